import { NotEmpty, Required } from '@app/core';
import { ApiProperty } from '@nestjs/swagger';
import { IsString, MaxLength, MinLength } from 'class-validator';
import { NotWeakPassword } from './password-policy';

/** `PATCH /v1/me/password` (docs/decisions.md, "Changing one's own password"). */
export class ChangePasswordDto {
  @ApiProperty({ example: 'correct horse battery staple', maxLength: 1024 })
  @Required()
  @IsString()
  @NotEmpty()
  @MaxLength(1024)
  currentPassword!: string;

  @ApiProperty({
    minLength: 12,
    maxLength: 1024,
    example: 'plum kettle harbour 42',
    description:
      'At least 12 characters; not blank and not one of the most common passwords (400 otherwise).',
  })
  @Required()
  @IsString()
  @NotEmpty()
  @MinLength(12)
  @MaxLength(1024)
  @NotWeakPassword()
  newPassword!: string;
}
