import { ORGANISATION_ROLES, type OrganisationRole } from '@app/core';
import { ApiProperty } from '@nestjs/swagger';

class MeUser {
  @ApiProperty() id!: string;
  @ApiProperty() email!: string;
  @ApiProperty({ enum: ORGANISATION_ROLES }) role!: OrganisationRole;
}

class MeOrganisation {
  @ApiProperty() id!: string;
  @ApiProperty() name!: string;
}

class MeWorkspace {
  @ApiProperty() id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ enum: ORGANISATION_ROLES }) role!: OrganisationRole;
  @ApiProperty({ description: 'True for the workspace used when no x-workspace-id is sent.' })
  isDefault!: boolean;
}

export class MeResponse {
  @ApiProperty({ type: MeUser }) user!: MeUser;
  @ApiProperty({ type: MeOrganisation }) organisation!: MeOrganisation;
  @ApiProperty({ type: [MeWorkspace] }) workspaces!: MeWorkspace[];
  @ApiProperty({ nullable: true, type: String, description: 'Set when called with an API key.' })
  apiKeyId!: string | null;
}
