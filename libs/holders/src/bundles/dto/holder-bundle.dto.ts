import { ID_PATTERN, Required } from '@app/core';
import { ApiProperty } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsString,
  Matches,
  MaxLength,
} from 'class-validator';

/**
 * Holders a bundle takes: at least two (one is the holder's own link), at most ten, which is
 * also the most Apple's `.pkpasses` bundle holds ("Distributing and updating a pass").
 */
export const MIN_BUNDLE_HOLDERS = 2;
export const MAX_BUNDLE_HOLDERS = 10;

/** `POST /v1/wallet-pass/{id}/holders/bundle`. */
export class CreateHolderBundleDto {
  @ApiProperty({
    type: [String],
    minItems: MIN_BUNDLE_HOLDERS,
    maxItems: MAX_BUNDLE_HOLDERS,
    uniqueItems: true,
    pattern: ID_PATTERN.source,
    description:
      `${MIN_BUNDLE_HOLDERS} to ${MAX_BUNDLE_HOLDERS} different Active holders of the pass, by ` +
      'id, in the order their passes are shown and added.',
    example: [
      '019a2b3c-2222-7f60-8a1b-2c3d4e5f6a7b',
      '019a2b3c-2223-7f60-8a1b-2c3d4e5f6a7b',
      '019a2b3c-2224-7f60-8a1b-2c3d4e5f6a7b',
    ],
  })
  @Required()
  @IsArray()
  @ArrayMinSize(MIN_BUNDLE_HOLDERS)
  @ArrayMaxSize(MAX_BUNDLE_HOLDERS)
  @ArrayUnique({ message: 'must name each holder once' })
  @IsString({ each: true })
  @Matches(ID_PATTERN, { each: true, message: `each value must match ${ID_PATTERN.source}` })
  @MaxLength(64, { each: true })
  holderIds!: string[];
}

export class HolderBundleResponse {
  @ApiProperty({
    example:
      'https://wallet.brand.example/p/riverside-gala/b/Xq7vR2k9mT4pL0sN8cW3eZaB5dF6gHj1/passes.pkpasses',
    description:
      "One `.pkpasses` download (`application/vnd.apple.pkpasses`): each holder's own signed " +
      '`.pkpass`, as their own link serves it; WalletA adds them all in one tap.',
  })
  walletAUrl!: string;

  @ApiProperty({
    nullable: true,
    type: String,
    example:
      'https://wallet.brand.example/p/riverside-gala/b/Xq7vR2k9mT4pL0sN8cW3eZaB5dF6gHj1/wallet-b',
    description:
      "One WalletB save link of all the holders' own objects, grouped (Google's `groupingInfo`: " +
      'one `groupingId`, a `sortIndex` each, in the order given): `{pageUrl}/wallet-b`, which ' +
      "redirects (302) to Google's save URL signed at that moment. Null when WalletB is not " +
      'configured.',
  })
  googleSaveUrl!: string | null;

  @ApiProperty({
    example: 'https://wallet.brand.example/p/riverside-gala/b/Xq7vR2k9mT4pL0sN8cW3eZaB5dF6gHj1',
    description:
      "A page of them all (each holder's pass) with Add to WalletA (the bundle) and Add to " +
      "WalletB (the grouped link), like a holder's page: unguessable, no credentials. A holder " +
      'Voided later is left out of all three links; with none left, the page says the passes ' +
      'are no longer valid and the downloads are a 404.',
  })
  pageUrl!: string;
}

/** The links of a bundle: its page, and under it the WalletA bundle and the WalletB redirect. */
export interface HolderBundleUrls {
  pageUrl: string;
  walletAUrl: string;
  /** The redirect to the grouped save link (`Holder.googleSaveUrl`'s kind of link). */
  walletBUrl: string;
}

export function holderBundleUrls(
  publicBaseUrl: string,
  slug: string,
  bundleToken: string,
): HolderBundleUrls {
  const pageUrl = `${publicBaseUrl}/p/${slug}/b/${bundleToken}`;
  return {
    pageUrl,
    walletAUrl: `${pageUrl}/passes.pkpasses`,
    walletBUrl: `${pageUrl}/wallet-b`,
  };
}
