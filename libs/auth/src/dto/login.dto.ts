import { NotEmpty, Required } from '@app/core';
import { ApiProperty } from '@nestjs/swagger';
import { IsEmail, IsString, MaxLength } from 'class-validator';

export class LoginDto {
  @ApiProperty({ example: 'admin@example.com' })
  @Required()
  @IsEmail()
  @MaxLength(320)
  email!: string;

  @ApiProperty({ example: 'correct horse battery staple' })
  @Required()
  @IsString()
  @NotEmpty()
  @MaxLength(1024)
  password!: string;
}

export class AccessTokenResponse {
  @ApiProperty({ description: 'Send as `Authorization: Bearer <accessToken>`.' })
  accessToken!: string;

  @ApiProperty({ enum: ['Bearer'] })
  tokenType!: 'Bearer';

  @ApiProperty({ description: 'Seconds until the token expires.', example: 3600 })
  expiresIn!: number;
}
