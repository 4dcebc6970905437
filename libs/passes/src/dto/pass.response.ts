import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { Account } from '@app/auth';
import { PASS_STATUSES, type Pass, type PassStatus } from '../entities/pass.entity';
import { PassMetadataDto } from '../metadata/pass-metadata.dto';

export class UploadInfoResponse {
  @ApiProperty() fileName!: string;
  @ApiProperty() uploadKey!: string;
  @ApiPropertyOptional({ description: 'Signed, expiring image URL (with includeAssets=true).' })
  url?: string;
}

export class PassAccountResponse {
  @ApiProperty() id!: string;
  @ApiProperty() name!: string;
}

export class PassSummaryResponse {
  @ApiProperty() id!: string;
  @ApiProperty() passName!: string;
  @ApiProperty({ enum: PASS_STATUSES }) status!: PassStatus;
  @ApiProperty({ description: 'Users who added the pass to WalletA' }) appleIssuedCount!: number;
  @ApiProperty({ description: 'Users who added the pass to WalletB' }) googleIssuedCount!: number;
  @ApiProperty() totalIssuedCount!: number;
  @ApiProperty({ description: 'WalletA holders who have not removed it' })
  appleActiveCount!: number;
  @ApiProperty({ description: 'WalletB holders who have not removed it' })
  googleActiveCount!: number;
  @ApiProperty() totalActiveCount!: number;
}

export class PassResponse extends PassSummaryResponse {
  @ApiProperty({ type: PassMetadataDto }) passMetadata!: PassMetadataDto;
  @ApiProperty({ nullable: true, type: String }) notificationHeader!: string | null;
  @ApiProperty({ type: [UploadInfoResponse] }) uploadInfoList!: UploadInfoResponse[];
  @ApiProperty({ type: PassAccountResponse }) account!: PassAccountResponse;
  @ApiProperty() accountId!: string;
  @ApiProperty({ description: 'Slug of the pass link' }) slug!: string;
  @ApiProperty({ description: 'Holder page: Add to WalletA / WalletB' }) downloadUrl!: string;
  @ApiProperty({
    nullable: true,
    type: String,
    description: 'Raw "Save to WalletB" link; null until WalletB issuing is set up for the pass.',
  })
  googleSaveUrl!: string | null;
  @ApiProperty() workspaceId!: string;
  @ApiProperty({ format: 'date-time' }) createdTime!: string;
  @ApiProperty({ format: 'date-time' }) updatedTime!: string;
  @ApiProperty({ nullable: true, type: String }) createdBy!: string | null;
  @ApiProperty({ nullable: true, type: String }) updatedBy!: string | null;
}

export class PassPage {
  @ApiProperty({ type: [PassResponse], description: 'PassSummary items with summary=true' })
  items!: (PassResponse | PassSummaryResponse)[];
  @ApiProperty({ nullable: true, type: String }) cursor!: string | null;
  @ApiProperty() hasMore!: boolean;
}

export function toPassSummary(pass: Pass): PassSummaryResponse {
  return {
    id: pass.id,
    passName: pass.passName,
    status: pass.status,
    appleIssuedCount: pass.appleIssuedCount,
    googleIssuedCount: pass.googleIssuedCount,
    totalIssuedCount: pass.totalIssuedCount,
    appleActiveCount: pass.appleActiveCount,
    googleActiveCount: pass.googleActiveCount,
    totalActiveCount: pass.totalActiveCount,
  };
}

export interface PassView {
  pass: Pass;
  account: Pick<Account, 'id' | 'name'>;
  downloadUrl: string;
  googleSaveUrl: string | null;
  /** Signed image URLs by upload key, when assets were asked for. */
  assetUrls?: Map<string, string>;
}

export function toPassResponse({
  pass,
  account,
  downloadUrl,
  googleSaveUrl,
  assetUrls,
}: PassView): PassResponse {
  // Object.assign rather than `{ ...summary, more }`: V8 adds every property written after a
  // spread through a slow runtime call, which made this mapping 15x slower (BENCHMARKS.md).
  return Object.assign(toPassSummary(pass), {
    passMetadata: pass.passMetadata,
    notificationHeader: pass.notificationHeader,
    uploadInfoList: pass.uploadInfoList.map((info) => {
      const url = assetUrls?.get(info.uploadKey);
      return url === undefined ? { ...info } : { ...info, url };
    }),
    account: { id: account.id, name: account.name },
    accountId: pass.accountId,
    slug: pass.slug,
    downloadUrl,
    googleSaveUrl,
    workspaceId: pass.workspaceId,
    createdTime: pass.createdTime.toISOString(),
    updatedTime: pass.updatedTime.toISOString(),
    createdBy: pass.createdBy,
    updatedBy: pass.updatedBy,
  });
}
