import { NotEmpty, ORGANISATION_ROLES, Required, type OrganisationRole } from '@app/core';
import { ApiProperty } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  IsArray,
  IsEmail,
  IsIn,
  IsString,
  Matches,
  MaxLength,
  MinLength,
} from 'class-validator';
import type { User } from '../entities/user.entity';
import { NotWeakPassword } from './password-policy';

export class AddMemberDto {
  @ApiProperty({ example: 'editor@brand.example' })
  @Required()
  @IsEmail()
  @MaxLength(320)
  email!: string;

  @ApiProperty({
    minLength: 8,
    example: 'plum kettle harbour 42',
    description:
      'Not blank, not one of the most common passwords, not the e-mail address (400 otherwise).',
  })
  @Required()
  @IsString()
  @NotEmpty()
  @MinLength(8)
  @MaxLength(1024)
  @NotWeakPassword('email')
  password!: string;

  @ApiProperty({ enum: ORGANISATION_ROLES, example: 'member' })
  @Required()
  @IsIn(ORGANISATION_ROLES)
  role!: OrganisationRole;

  @ApiProperty({
    type: [String],
    description: 'Workspaces the member is assigned to, first = default.',
  })
  @Required()
  @IsArray()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  @Matches(/^[a-zA-Z0-9-_]+$/, { each: true })
  workspaceIds!: string[];
}

export class MemberResponse {
  @ApiProperty() id!: string;
  @ApiProperty() email!: string;
  @ApiProperty({ enum: ORGANISATION_ROLES }) role!: OrganisationRole;
  @ApiProperty({ type: [String] }) workspaceIds!: string[];
  @ApiProperty({ format: 'date-time' }) createdTime!: string;
  @ApiProperty({ nullable: true, type: String }) createdBy!: string | null;
}

export function toMemberResponse(user: User, workspaceIds: string[]): MemberResponse {
  return {
    id: user.id,
    email: user.email,
    role: user.role,
    workspaceIds,
    createdTime: user.createdTime.toISOString(),
    createdBy: user.createdBy,
  };
}
