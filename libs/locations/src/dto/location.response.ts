import { ApiProperty } from '@nestjs/swagger';
import type { PassLocation } from '../entities/pass-location.entity';

export class PassRefResponse {
  @ApiProperty({ example: '019a2b3c-1111-7f60-8a1b-2c3d4e5f6a7b' }) id!: string;
}

export class LocationResponse {
  @ApiProperty({ example: '019a2b3c-4d5e-7f60-8a1b-2c3d4e5f6a7b' }) id!: string;
  @ApiProperty({ example: 'Flagship store' }) name!: string;
  @ApiProperty({ example: 51.5074 }) latitude!: number;
  @ApiProperty({ example: -0.1278 }) longitude!: number;
  @ApiProperty({ example: 'Your member offer is waiting in store' }) relevantText!: string;
  @ApiProperty({ example: true }) enabled!: boolean;
  @ApiProperty({ nullable: true, type: Number, example: 35, description: 'Metres' })
  altitude!: number | null;
  @ApiProperty({ nullable: true, type: PassRefResponse }) walletPass!: PassRefResponse | null;
  @ApiProperty({
    nullable: true,
    type: String,
    description: 'The account of the referenced pass; null when the location has no pass.',
  })
  accountId!: string | null;
  @ApiProperty() workspaceId!: string;
  @ApiProperty({ format: 'date-time' }) createdTime!: string;
  @ApiProperty({ format: 'date-time' }) updatedTime!: string;
  @ApiProperty({ nullable: true, type: String }) createdBy!: string | null;
  @ApiProperty({ nullable: true, type: String }) updatedBy!: string | null;
}

export class LocationPage {
  @ApiProperty({ type: [LocationResponse] }) items!: LocationResponse[];
  @ApiProperty({ nullable: true, type: String }) cursor!: string | null;
  @ApiProperty() hasMore!: boolean;
}

/** A location and the account of its pass (locations have no account of their own). */
export interface LocationView {
  location: PassLocation;
  accountId: string | null;
}

export function toLocationResponse({ location, accountId }: LocationView): LocationResponse {
  return {
    id: location.id,
    name: location.name,
    latitude: location.latitude,
    longitude: location.longitude,
    relevantText: location.relevantText,
    enabled: location.enabled,
    altitude: location.altitude,
    walletPass: location.passId === null ? null : { id: location.passId },
    accountId,
    workspaceId: location.workspaceId,
    createdTime: location.createdTime.toISOString(),
    updatedTime: location.updatedTime.toISOString(),
    createdBy: location.createdBy,
    updatedBy: location.updatedBy,
  };
}
