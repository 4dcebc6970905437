import { APP_CONFIG, UnauthorizedError, type AppConfig } from '@app/core';
import { Inject, Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, Repository } from 'typeorm';
import type { AccessTokenResponse } from '../dto/login.dto';
import { User } from '../entities/user.entity';
import { DUMMY_PASSWORD_HASH, verifyPassword } from './credentials';

@Injectable()
export class AuthService {
  constructor(
    @InjectRepository(User) private readonly users: Repository<User>,
    private readonly jwt: JwtService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Exchanges e-mail and password for a bearer token. Every failure reads the same. */
  async login(email: string, password: string): Promise<AccessTokenResponse> {
    const user = await this.users.findOneBy({ email: email.toLowerCase(), removedTime: IsNull() });
    const matches = await verifyPassword(password, user?.passwordHash ?? DUMMY_PASSWORD_HASH);
    if (!user || !matches) throw new UnauthorizedError('Invalid e-mail or password');

    const expiresIn = this.config.jwt.expiresInSeconds;
    const accessToken = await this.jwt.signAsync(
      { sub: user.id },
      { secret: this.config.jwt.secret, algorithm: 'HS256', expiresIn },
    );
    return { accessToken, tokenType: 'Bearer', expiresIn };
  }
}
