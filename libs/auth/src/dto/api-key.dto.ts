import { NotEmpty, Required } from '@app/core';
import { ApiProperty } from '@nestjs/swagger';
import { IsString, MaxLength } from 'class-validator';
import type { ApiKey } from '../entities/api-key.entity';

export class CreateApiKeyDto {
  @ApiProperty({ description: 'A descriptive name', example: 'CRM integration' })
  @Required()
  @IsString()
  @NotEmpty()
  @MaxLength(255)
  name!: string;
}

export class ApiKeyResponse {
  @ApiProperty() id!: string;
  @ApiProperty() name!: string;
  @ApiProperty() userId!: string;
  @ApiProperty({ format: 'date-time' }) createdTime!: string;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) lastUsedTime!: string | null;
}

export class CreatedApiKeyResponse extends ApiKeyResponse {
  @ApiProperty({
    description: 'The key itself, shown this once. Send it as the `api-key` header.',
    example: 'wpk.0193a5e0-7b7a-7c1e-9d51-3f0b6c1e2a4b.q7PZ0...',
  })
  key!: string;
}

export function toApiKeyResponse(apiKey: ApiKey): ApiKeyResponse {
  return {
    id: apiKey.id,
    name: apiKey.name,
    userId: apiKey.userId,
    createdTime: apiKey.createdTime.toISOString(),
    lastUsedTime: apiKey.lastUsedTime?.toISOString() ?? null,
  };
}
