import { displayTextDeep } from '@app/core';
import { shownNfcMessage } from '@app/holders';
import {
  barcodeFormatsFor,
  passImagesOf,
  type BarcodeFormat,
  passKindOf,
  roleReader,
  type PassengerName,
  type PassKind,
} from '@app/kinds';
import { type BackFieldDto, type FeaturedActionDto, type FieldDto, type Pass } from '@app/passes';
import { placeKindFields } from './kind-fields';
import { PK_DATE_STYLES, type PassJsonField } from './pass-json-field';
import { passJsonKind } from './pass-json-kinds';
import { posterGenericFields } from './poster-fields';
import { relevance } from './relevance';

export type { PassJsonField, PKDateStyle } from './pass-json-field';

/** What pass.json needs besides the pass itself. */
export interface PassJsonContext {
  passTypeIdentifier: string;
  teamIdentifier: string;
  webServiceURL: string;
  authenticationToken: string;
  locations: {
    latitude: number;
    longitude: number;
    altitude: number | null;
    relevantText: string;
  }[];
  /** A message field shown on the lock screen through its changeMessage (notifications). */
  messageField?: PassJsonField;
  /** A personal holder's copy of the pass; absent: the shared pass. */
  holder?: PassJsonHolder;
}

/** What a holder's package has of its own. */
export interface PassJsonHolder {
  serialNumber: string;
  /** By field key: replaces the `value` of the pass's face field (any slot) of that key. */
  fieldValues: Record<string, string>;
  /** Null: the pass's `qrUrl` / `qrText`. */
  barcodeValue: string | null;
  barcodeText: string | null;
  voided: boolean;
  /** The holder's own day and end (ISO 8601); null or absent: the pass's. */
  relevantDate?: string | null;
  expirationDate?: string | null;
  /** A boarding pass's passenger; null or absent: none. */
  passengerName?: PassengerName | null;
  /** The holder's own NFC message; null or absent: the pass's `nfc.message`. */
  nfcMessage?: string | null;
}

/** Apple's colour format: `rgb(r, g, b)`. */
export function hexToRgb(hex: string): string {
  const value = Number.parseInt(hex.slice(1), 16);
  return `rgb(${(value >> 16) & 0xff}, ${(value >> 8) & 0xff}, ${value & 0xff})`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * A front field; a holder's own value goes into `value` itself, so that Wallet compares it with
 * the value it held and shows the field's `changeMessage` on that holder's lock screen.
 */
function field(source: FieldDto, values: Record<string, string> = {}): PassJsonField {
  return {
    key: source.key,
    ...(source.label ? { label: source.label } : {}),
    value: Object.prototype.hasOwnProperty.call(values, source.key)
      ? values[source.key]
      : source.value,
    ...(source.changeMessage ? { changeMessage: source.changeMessage } : {}),
    ...(source.dateStyle ? { dateStyle: PK_DATE_STYLES[source.dateStyle] } : {}),
    ...(source.timeStyle ? { timeStyle: PK_DATE_STYLES[source.timeStyle] } : {}),
  };
}

/** Back-field links point at their short links, so taps are counted; the text links them. */
function backField(source: BackFieldDto): PassJsonField {
  const lines = source.value.map((item) => {
    const href = item.shortLinkValue ?? item.link;
    const text = item.text ?? href ?? '';
    return {
      plain: href && text !== href ? `${text}: ${href}` : text,
      html: href ? `<a href="${escapeHtml(href)}">${escapeHtml(text)}</a>` : escapeHtml(text),
    };
  });
  return {
    key: source.key,
    ...(source.label ? { label: source.label } : {}),
    value: lines.map((line) => line.plain).join('\n'),
    attributedValue: lines.map((line) => line.html).join('\n'),
    ...(source.changeMessage ? { changeMessage: source.changeMessage } : {}),
  };
}

/** What a holder's copy changes on the face of the pass ({@link PassJsonHolder}). */
export type PassFaceHolder = Pick<PassJsonHolder, 'fieldValues' | 'barcodeValue' | 'barcodeText'>;

/**
 * The API's `barcodeFormat` as pass.json names it (QR when absent). Apple's Pass.Barcodes page
 * names the iOS 27 formats (Code 39, Codabar, EAN 13, Interleaved 2 of 5); their constants are
 * passkit-generator's (3.6, which cites that page): `pkpass-archive.spec.ts` checks each against
 * its schema.
 */
export const PK_BARCODE_FORMATS = {
  QR: 'PKBarcodeFormatQR',
  PDF417: 'PKBarcodeFormatPDF417',
  Aztec: 'PKBarcodeFormatAztec',
  Code128: 'PKBarcodeFormatCode128',
  EAN13: 'PKBarcodeFormatEAN13',
  Code39: 'PKBarcodeFormatCode39',
  Codabar: 'PKBarcodeFormatCodabar',
  ITF: 'PKBarcodeFormatI2of5',
} as const satisfies Record<BarcodeFormat, `PKBarcodeFormat${string}`>;
export type PKBarcodeFormat = (typeof PK_BARCODE_FORMATS)[keyof typeof PK_BARCODE_FORMATS];

/** The pass's one barcode, as pass.json's `barcodes` entry has it. */
export interface PassBarcode {
  format: PKBarcodeFormat;
  message: string;
  messageEncoding: BarcodeEncoding;
  altText?: string;
}

export type BarcodeEncoding = 'iso-8859-1' | 'utf-8';

/**
 * The encoding Wallet turns a barcode message into bytes with. ISO-8859-1 (what Apple calls the
 * typical value, and what scanners assume without an ECI marker) whenever it holds the message,
 * so the bytes of every message it can hold stay as they always were; UTF-8 otherwise, since
 * Wallet cannot convert a message to an encoding that lacks its characters and would show no
 * barcode. The holder page draws its QR code with the same bytes (`barcodeSvg`).
 */
export function barcodeEncoding(message: string): BarcodeEncoding {
  for (let index = 0; index < message.length; index += 1) {
    // ISO-8859-1 holds U+0000–U+00FF, one byte each.
    if (message.charCodeAt(index) > 0xff) return 'utf-8';
  }
  return 'iso-8859-1';
}

/**
 * What a holder sees on the front of the pass: its colours (`#RRGGBB`, null where Wallet uses
 * its own), the brand's front fields and the barcode. The package and the holder's page
 * both read it from here, so a holder's values and barcode fall back to the pass's in one place.
 */
export interface PassFace {
  backgroundColor: string | null;
  foregroundColor: string | null;
  labelColor: string | null;
  headerFields: PassJsonField[];
  primaryFields: PassJsonField[];
  secondaryFields: PassJsonField[];
  auxiliaryFields: PassJsonField[];
  /** The barcode current phones show (the holder page draws it). */
  barcode: PassBarcode | null;
  /** After an iOS 27 format: the same message in the format older iPhones render. */
  barcodeFallback: PassBarcode | null;
}

/** The face of the pass, or of a holder's copy of it; text cleaned as holders see it. */
export function buildPassFace(pass: Pass, holder?: PassFaceHolder): PassFace {
  return displayTextDeep(passFace(pass, holder));
}

function passFace(pass: Pass, holder?: PassFaceHolder): PassFace {
  const metadata = pass.passMetadata;
  const values = holder?.fieldValues ?? {};
  const qrUrl = holder?.barcodeValue ?? metadata.qrUrl;
  const qrText = holder?.barcodeText ?? metadata.qrText;
  const [format, fallback] = qrUrl ? barcodeFormatsFor(metadata, qrUrl) : [];
  const barcode = (of: BarcodeFormat | undefined): PassBarcode | null =>
    qrUrl && of
      ? {
          format: PK_BARCODE_FORMATS[of],
          message: qrUrl,
          messageEncoding: barcodeEncoding(qrUrl),
          ...(qrText ? { altText: qrText } : {}),
        }
      : null;
  return {
    backgroundColor: metadata.backgroundColor ?? null,
    // Wallet's labels take the text colour too: the API has one colour for both.
    foregroundColor: metadata.displayTextColor ?? null,
    labelColor: metadata.displayTextColor ?? null,
    // topField is the first header field.
    headerFields: [
      ...(metadata.topField ? [metadata.topField] : []),
      ...(metadata.headerFields ?? []),
    ].map((source) => field(source, values)),
    primaryFields: (metadata.primaryFields ?? []).map((source) => field(source, values)),
    secondaryFields: (metadata.secondaryFields ?? []).map((source) => field(source, values)),
    auxiliaryFields: (metadata.auxiliaryFields ?? []).map((source) => field(source, values)),
    barcode: barcode(format),
    barcodeFallback: barcode(fallback),
  };
}

/**
 * A pass's featured actions as pass.json has them (Apple, WWDC26 "What's new in Wallet" and its
 * Pass Builder's `Pass.Action`: `identifier`, `type`, `url`); an action's type, unique on the
 * pass, is its identifier.
 */
function featuredActions(actions: FeaturedActionDto[] | undefined): Record<string, unknown> {
  if (actions === undefined || actions.length === 0) return {};
  return {
    featuredActions: actions.map(({ type, url }) => ({ identifier: type, type, url })),
  };
}

/**
 * The pass.json of a pass, or of a holder's copy of it, in the Apple style of its kind
 * (`pass-json-kinds.ts`): the brand's fields slot for slot (topField first in the
 * header), the kind's facts where the brand left room (`kind-fields.ts`), the relevant dates of
 * its schedule (`relevance.ts`), its semantic tags (`semantic-tags.ts`), its featured actions,
 * a ticket's upcoming events (`upcoming-events.ts`), the newer layout it opts into
 * (`preferredStyleSchemes`: iOS 26's semantic boarding pass for a holder's flight that has what
 * it shows) and, given an artwork image, the poster of a kind that has one (its unit's
 * `poster`): the poster event ticket, or the poster generic pass beside the generic one
 * (`poster-fields.ts`).
 * The notification message is the first back field, which every style has. `kind`: the pass's
 * kind for this copy, when the caller has worked it out already.
 */
export function buildPassJson(
  pass: Pass,
  context: PassJsonContext,
  kind: PassKind = passKindOf(pass.passMetadata, context.holder),
): Record<string, unknown> {
  return displayTextDeep(passJson(pass, context, kind));
}

function passJson(pass: Pass, context: PassJsonContext, kind: PassKind): Record<string, unknown> {
  const metadata = pass.passMetadata;
  const holder = context.holder;
  const walletA = passJsonKind(kind);
  const face = passFace(pass, holder);
  const brandBack = (metadata.backFields ?? []).map(backField);
  if (context.messageField) brandBack.unshift(context.messageField);
  const usedKeys = new Set(
    [
      ...face.headerFields,
      ...face.primaryFields,
      ...face.secondaryFields,
      ...face.auxiliaryFields,
      ...brandBack,
    ].map((field) => field.key),
  );
  const placed = placeKindFields(
    {
      headerFields: face.headerFields,
      primaryFields: face.primaryFields,
      secondaryFields: face.secondaryFields,
      auxiliaryFields: face.auxiliaryFields,
    },
    brandBack,
    walletA.fields,
    usedKeys,
  );
  const poster =
    walletA.poster !== null &&
    passImagesOf(
      kind.type,
      pass.uploadInfoList.map((image) => image.fileName),
      Boolean(metadata.nfc),
    ).poster
      ? walletA.poster
      : null;
  const semantics = walletA.semantics(
    roleReader(metadata, holder?.fieldValues ?? {}),
    poster !== null,
  );
  const styleSchemes = walletA.styleSchemes(poster !== null);
  const expirationDate = holder?.expirationDate ?? metadata.expirationDate;
  return {
    formatVersion: 1,
    passTypeIdentifier: context.passTypeIdentifier,
    teamIdentifier: context.teamIdentifier,
    serialNumber: holder?.serialNumber ?? pass.id,
    organizationName: metadata.organizationName,
    description: metadata.description,
    ...(face.backgroundColor ? { backgroundColor: hexToRgb(face.backgroundColor) } : {}),
    ...(face.foregroundColor ? { foregroundColor: hexToRgb(face.foregroundColor) } : {}),
    ...(face.labelColor ? { labelColor: hexToRgb(face.labelColor) } : {}),
    webServiceURL: context.webServiceURL,
    authenticationToken: context.authenticationToken,
    // Wallet renders the first barcode its iOS knows: an iOS 27 format, then the fallback. No
    // legacy `barcode` key: iOS 9 and later read `barcodes`.
    ...(face.barcode
      ? { barcodes: face.barcodeFallback ? [face.barcode, face.barcodeFallback] : [face.barcode] }
      : {}),
    ...(metadata.nfc
      ? {
          // requiresAuthentication always written: Pass Builder refuses a poster event ticket
          // whose nfc leaves it out, and false is Apple's default anyway.
          nfc: {
            message: shownNfcMessage(metadata.nfc, holder?.nfcMessage),
            encryptionPublicKey: metadata.nfc.encryptionPublicKey,
            requiresAuthentication: metadata.nfc.requiresAuthentication ?? false,
          },
        }
      : {}),
    ...relevance(kind.schedule),
    ...(expirationDate ? { expirationDate } : {}),
    ...(context.locations.length > 0
      ? {
          locations: context.locations.slice(0, 10).map((location) => ({
            latitude: location.latitude,
            longitude: location.longitude,
            ...(location.altitude !== null ? { altitude: location.altitude } : {}),
            relevantText: location.relevantText,
          })),
        }
      : {}),
    ...(pass.deletedTime !== null || holder?.voided === true ? { voided: true } : {}),
    ...(semantics ? { semantics } : {}),
    ...featuredActions(metadata.featuredActions),
    // Devices before iOS 26 ignore the key and show the classic style of the same fields.
    ...(styleSchemes !== undefined ? { preferredStyleSchemes: styleSchemes } : {}),
    // Wallet shows this dictionary when it knows it (iOS 27), else the generic one.
    ...(poster === 'posterGeneric'
      ? { posterGeneric: posterGenericFields(placed.face, placed.backFields) }
      : {}),
    // The kind's own keys: a festival's or a season ticket's upcoming events (iOS 26).
    ...walletA.passKeys(poster !== null),
    [walletA.style]: {
      ...walletA.styleKeys,
      ...placed.face,
      backFields: placed.backFields,
    },
  };
}
