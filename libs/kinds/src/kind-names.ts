/**
 * The names the kinds of pass are made of, with nothing imported: the DTOs, the rules and both
 * wallets read them from here, so none of them imports another to learn a name.
 */

/**
 * The kinds of pass. A kind is the API's name: WalletA's style and WalletB's
 * class type are each wallet's own names for it (`libs/wallet-a/src/package/pass-json-kinds.ts`,
 * `libs/wallet-b/src/google/class-types.ts`). Adding one here makes the compiler name every
 * table that must say what the kind is (docs/architecture.md, "Adding a kind of pass").
 */
export const PASS_TYPES = [
  'storeCard',
  'coupon',
  'eventTicket',
  'boardingPass',
  'generic',
] as const;
export type PassType = (typeof PASS_TYPES)[number];
/** A pass that names no kind is a store card, as every pass was before there were kinds. */
export const DEFAULT_PASS_TYPE: PassType = 'storeCard';

/** The kind of a pass's metadata (stored, or a request's): a store card when it names none. */
export function passTypeOf(metadata: { passType?: PassType } | null | undefined): PassType {
  return metadata?.passType ?? DEFAULT_PASS_TYPE;
}

/** A field's `dateStyle`/`timeStyle` (WalletA `PKDateStyleNone`, `PKDateStyleShort`, ...). */
export const DATE_STYLES = ['none', 'short', 'medium', 'long', 'full'] as const;
export type DateStyle = (typeof DATE_STYLES)[number];

export const REDEMPTION_CHANNELS = ['instore', 'online', 'both'] as const;
export type RedemptionChannel = (typeof REDEMPTION_CHANNELS)[number];

/** `air` makes a WalletB flight; the others a WalletB transit object of that type. */
export const TRANSIT_TYPES = ['air', 'train', 'bus', 'boat', 'generic'] as const;
export type TransitType = (typeof TRANSIT_TYPES)[number];

/**
 * The barcode formats. `EAN13`, `Code39`, `Codabar` and `ITF` are iOS 27's:
 * older iPhones render the pass's `barcodeFallbackFormat` instead (`kinds/barcode-formats.ts`).
 */
export const BARCODE_FORMATS = [
  'QR',
  'PDF417',
  'Aztec',
  'Code128',
  'EAN13',
  'Code39',
  'Codabar',
  'ITF',
] as const;
export type BarcodeFormat = (typeof BARCODE_FORMATS)[number];

/** What an iPhone before iOS 27 renders in place of an iOS 27 format. */
export const BARCODE_FALLBACK_FORMATS = ['QR', 'Code128'] as const;
export type BarcodeFallbackFormat = (typeof BARCODE_FALLBACK_FORMATS)[number];
export const DEFAULT_BARCODE_FALLBACK_FORMAT: BarcodeFallbackFormat = 'QR';
