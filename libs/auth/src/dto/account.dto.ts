import { NotEmpty, PageQuery, Required } from '@app/core';
import { ApiProperty } from '@nestjs/swagger';
import { IsString, MaxLength } from 'class-validator';
import type { Account } from '../entities/account.entity';

export class CreateAccountDto {
  @ApiProperty({ example: 'Brand EU', maxLength: 255 })
  @Required()
  @IsString()
  @NotEmpty()
  @MaxLength(255)
  name!: string;
}

export class ListAccountsQuery extends PageQuery {}

export class AccountResponse {
  @ApiProperty() id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ description: 'Used for passes created without an account.' }) isDefault!: boolean;
  @ApiProperty() workspaceId!: string;
  @ApiProperty({ format: 'date-time' }) createdTime!: string;
  @ApiProperty({ format: 'date-time' }) updatedTime!: string;
  @ApiProperty({ nullable: true, type: String }) createdBy!: string | null;
  @ApiProperty({ nullable: true, type: String }) updatedBy!: string | null;
}

export class AccountPage {
  @ApiProperty({ type: [AccountResponse] }) items!: AccountResponse[];
  @ApiProperty({ nullable: true, type: String }) cursor!: string | null;
  @ApiProperty() hasMore!: boolean;
}

export function toAccountResponse(account: Account): AccountResponse {
  return {
    id: account.id,
    name: account.name,
    isDefault: account.isDefault,
    workspaceId: account.workspaceId,
    createdTime: account.createdTime.toISOString(),
    updatedTime: account.updatedTime.toISOString(),
    createdBy: account.createdBy,
    updatedBy: account.updatedBy,
  };
}
