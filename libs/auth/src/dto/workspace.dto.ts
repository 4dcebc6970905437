import { NotEmpty, Required } from '@app/core';
import { ApiProperty } from '@nestjs/swagger';
import { IsString, MaxLength } from 'class-validator';
import type { Workspace } from '../entities/workspace.entity';

export class CreateWorkspaceDto {
  @ApiProperty({ example: 'Summer campaign', maxLength: 255 })
  @Required()
  @IsString()
  @NotEmpty()
  @MaxLength(255)
  name!: string;
}

export class WorkspaceResponse {
  @ApiProperty() id!: string;
  @ApiProperty() name!: string;
  @ApiProperty() organisationId!: string;
  @ApiProperty({ format: 'date-time' }) createdTime!: string;
  @ApiProperty({ format: 'date-time' }) updatedTime!: string;
  @ApiProperty({ nullable: true, type: String }) createdBy!: string | null;
  @ApiProperty({ nullable: true, type: String }) updatedBy!: string | null;
}

export function toWorkspaceResponse(workspace: Workspace): WorkspaceResponse {
  return {
    id: workspace.id,
    name: workspace.name,
    organisationId: workspace.organisationId,
    createdTime: workspace.createdTime.toISOString(),
    updatedTime: workspace.updatedTime.toISOString(),
    createdBy: workspace.createdBy,
    updatedBy: workspace.updatedBy,
  };
}
