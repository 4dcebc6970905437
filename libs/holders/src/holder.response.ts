import { ApiProperty } from '@nestjs/swagger';
import { shownNfcMessage } from './holder-edit';
import { PassengerNameDto } from './holder-input.dto';
import {
  HOLDER_STATUSES,
  type Holder,
  type HolderAttributes,
  type HolderStatus,
} from '@app/passes';

export class HolderResponse {
  @ApiProperty({ example: '019a2b3c-2222-7f60-8a1b-2c3d4e5f6a7b' }) id!: string;
  @ApiProperty({ example: '019a2b3c-1111-7f60-8a1b-2c3d4e5f6a7b' }) passId!: string;
  @ApiProperty({ example: 'member-10442' }) externalId!: string;
  @ApiProperty({
    example: '5f0c2a9e4b7d41c3a8e6d2f1b0c9a7e4',
    description:
      "The holder's WalletA serial number and WalletB object id suffix (never the pass id).",
  })
  serialNumber!: string;
  @ApiProperty({ enum: HOLDER_STATUSES, example: 'Active' }) status!: HolderStatus;
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string' },
    example: { points: '1200', name: 'Maya Rivera' },
    description: "The holder's own field values; a field without one shows the pass's.",
  })
  fieldValues!: Record<string, string>;
  @ApiProperty({
    type: [String],
    example: ['gold', 'zurich'],
    description: 'For audiences, sorted; never shown on the pass.',
  })
  tags!: string[];
  @ApiProperty({
    type: 'object',
    additionalProperties: { oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }] },
    example: { tier: 'gold', city: 'Zurich', spend: 1240.5 },
    description: 'For audiences; never shown on the pass.',
  })
  attributes!: HolderAttributes;
  @ApiProperty({
    nullable: true,
    type: String,
    example: 'https://brand.example/member/10442',
    description: "Effective barcode message: the holder's, else the pass's `qrUrl` (null: none).",
  })
  barcodeValue!: string | null;
  @ApiProperty({
    nullable: true,
    type: String,
    example: 'Member 10442',
    description: "Effective text under the barcode: the holder's, else the pass's `qrText`.",
  })
  barcodeText!: string | null;
  @ApiProperty({
    nullable: true,
    type: String,
    example: '2026-05-01T19:30:00+02:00',
    description: "Effective relevant date: the holder's, else the pass's `relevantDate`.",
  })
  relevantDate!: string | null;
  @ApiProperty({
    nullable: true,
    type: String,
    example: '2026-05-02T04:00:00+02:00',
    description: "Effective expiration date: the holder's, else the pass's `expirationDate`.",
  })
  expirationDate!: string | null;
  @ApiProperty({
    nullable: true,
    type: PassengerNameDto,
    description: "A boarding pass holder's passenger; null: none.",
  })
  passengerName!: Holder['passengerName'];
  @ApiProperty({
    nullable: true,
    type: String,
    example: 'MEMBER-10442',
    description:
      "What terminals read over NFC from this holder's copy: the holder's own `nfcMessage`, " +
      "else the pass's `nfc.message`; null for a pass without NFC.",
  })
  nfcMessage!: string | null;
  @ApiProperty({
    example: 'https://wallet.brand.example/p/summer-club/h/3q2-7Xb0kR1vYl9sN8cW4eTzA6dF5gHj',
    description:
      "The holder's own page with Add to WalletA / Add to WalletB: unguessable, no credentials.",
  })
  downloadUrl!: string;
  @ApiProperty({
    nullable: true,
    type: String,
    example:
      'https://wallet.brand.example/p/summer-club/h/3q2-7Xb0kR1vYl9sN8cW4eTzA6dF5gHj/wallet-b',
    description:
      "WalletB save link of the holder's own object (its barcode and field values, as they are when the link is opened): `{downloadUrl}/wallet-b`, which redirects (302) to Google's save URL signed at that moment. Null when WalletB is not configured, the pass is not Published or the holder is Voided.",
  })
  googleSaveUrl!: string | null;
  @ApiProperty({ example: 1, description: 'WalletA devices holding it now' })
  appleInstalledCount!: number;
  @ApiProperty({ example: 0, description: 'WalletB objects holding it now' })
  googleInstalledCount!: number;
  @ApiProperty() workspaceId!: string;
  @ApiProperty({ format: 'date-time' }) createdTime!: string;
  @ApiProperty({ format: 'date-time' }) updatedTime!: string;
  @ApiProperty({ nullable: true, type: String }) createdBy!: string | null;
  @ApiProperty({ nullable: true, type: String }) updatedBy!: string | null;
}

export class HolderPage {
  @ApiProperty({ type: [HolderResponse] }) items!: HolderResponse[];
  @ApiProperty({ nullable: true, type: String }) cursor!: string | null;
  @ApiProperty() hasMore!: boolean;
}

export class HolderImportResponse {
  @ApiProperty({ example: 9800, description: 'Holders added' }) created!: number;
  @ApiProperty({ example: 200, description: 'Active holders whose values were replaced' })
  updated!: number;
}

/** A holder with what its answer needs of the pass. */
export interface HolderView {
  holder: Holder;
  pass: {
    slug: string;
    passMetadata: {
      qrUrl?: string;
      qrText?: string;
      relevantDate?: string;
      expirationDate?: string;
      nfc?: { message: string } | null;
    };
  };
  publicBaseUrl: string;
  /** Whether the holder has a WalletB save link now (`googleSaveUrl` is null otherwise). */
  googleCanSave: boolean;
}

export function toHolderResponse({
  holder,
  pass,
  publicBaseUrl,
  googleCanSave,
}: HolderView): HolderResponse {
  const qrUrl = pass.passMetadata.qrUrl;
  const qrText = pass.passMetadata.qrText;
  const downloadUrl = `${publicBaseUrl}/p/${pass.slug}/h/${holder.holderToken}`;
  return {
    id: holder.id,
    passId: holder.passId,
    externalId: holder.externalId,
    serialNumber: holder.serialNumber,
    status: holder.status,
    fieldValues: holder.fieldValues,
    tags: holder.tags,
    attributes: holder.attributes,
    barcodeValue: holder.barcodeValue ?? (qrUrl === undefined || qrUrl === '' ? null : qrUrl),
    barcodeText: holder.barcodeText ?? qrText ?? null,
    relevantDate: holder.relevantDate ?? pass.passMetadata.relevantDate ?? null,
    expirationDate: holder.expirationDate ?? pass.passMetadata.expirationDate ?? null,
    passengerName: holder.passengerName ?? null,
    nfcMessage: shownNfcMessage(pass.passMetadata.nfc, holder.nfcMessage),
    downloadUrl,
    // A redirect signed when opened, not a signed link: the same at every read and in the
    // holder's events, never stale, and free to make for every row of a 10,000-row import.
    googleSaveUrl: googleCanSave ? `${downloadUrl}/wallet-b` : null,
    appleInstalledCount: holder.appleInstalledCount,
    googleInstalledCount: holder.googleInstalledCount,
    workspaceId: holder.workspaceId,
    createdTime: holder.createdTime.toISOString(),
    updatedTime: holder.updatedTime.toISOString(),
    createdBy: holder.createdBy,
    updatedBy: holder.updatedBy,
  };
}
