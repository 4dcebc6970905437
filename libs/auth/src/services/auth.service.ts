import { APP_CONFIG, UnauthorizedError, type AppConfig } from '@app/core';
import { Inject, Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, Repository } from 'typeorm';
import type { AccessTokenResponse } from '../dto/login.dto';
import { User } from '../entities/user.entity';
import { DUMMY_PASSWORD_HASH, verifyPassword } from './credentials';
import { LoginThrottle } from './login-throttle.service';

@Injectable()
export class AuthService {
  constructor(
    @InjectRepository(User) private readonly users: Repository<User>,
    private readonly jwt: JwtService,
    private readonly throttle: LoginThrottle,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Exchanges e-mail and password for a bearer token. Every failure reads the same. Throttled
   * per client IP and per e-mail address before the password is checked (429).
   */
  async login(email: string, password: string, clientIp: string): Promise<AccessTokenResponse> {
    const address = email.toLowerCase();
    await this.throttle.assertAllowed(address, clientIp);
    const user = await this.users.findOneBy({ email: address, removedTime: IsNull() });
    const matches = await verifyPassword(password, user?.passwordHash ?? DUMMY_PASSWORD_HASH);
    if (!user || !matches) {
      await this.throttle.recordFailure(address, clientIp);
      throw new UnauthorizedError('Invalid e-mail or password');
    }
    await this.throttle.recordSuccess(address, clientIp);

    const expiresIn = this.config.jwt.expiresInSeconds;
    // `tv`: the token dies when the user's token version moves on (see JwtStrategy).
    const accessToken = await this.jwt.signAsync(
      { sub: user.id, tv: user.tokenVersion },
      { secret: this.config.jwt.secret, algorithm: 'HS256', expiresIn },
    );
    return { accessToken, tokenType: 'Bearer', expiresIn };
  }
}
