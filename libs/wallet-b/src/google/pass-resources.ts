import { displayTextDeep } from '@app/core';
import { shownNfcMessage } from '@app/holders';
import { barcodeFormatsFor, isGs1Number, passKindOf, type BarcodeFormat } from '@app/kinds';
import { fieldTexts, type FieldDto, type Holder, type Pass } from '@app/passes';
import { createHash, randomBytes } from 'node:crypto';
import {
  kindClass,
  kindObject,
  type ObjectImages,
  type SharedObjectContent,
} from './kind-resources';
import { faceFields, translated, walletImage } from './resource-values';
import type {
  BarcodeType,
  CardRowTemplateInfo,
  ClassType,
  GenericClass,
  LinksModuleData,
  TemplateItem,
  TextModuleData,
  TimeInterval,
  WalletClass,
  WalletObjectContent,
} from './wallet-objects.types';

export type { ObjectImages } from './kind-resources';

/**
 * How a pass becomes Google Wallet resources, of the class type the pass has (class-types.ts;
 * what each type adds is kind-resources.ts). Google splits a pass in two:
 * - the class (one per pass, `<issuer id>.<pass id>`) holds what all holders share: the fields
 *   (text modules, shown on the card through a card template), the back-field links (links
 *   module), the callback URL, the messages, and the type's own details (issuer, program,
 *   offer, event, flight or trip);
 * - each holder's object holds what is each holder's or Google only accepts on objects: state,
 *   barcode, hero image, validity, a personal holder's values (and for a generic object its
 *   title, header, logo and colour).
 */

export function classIdFor(issuerId: string, passId: string): string {
  return `${issuerId}.${passId}`;
}

/** The pass id inside one of our class ids, or null when the id is not one of ours. */
export function passIdFromClassId(issuerId: string, classId: string): string | null {
  const prefix = `${issuerId}.`;
  if (!classId.startsWith(prefix)) return null;
  const passId = classId.slice(prefix.length);
  return /^[A-Za-z0-9_-]{1,64}$/.test(passId) ? passId : null;
}

/** A new holder's object id: `<issuer id>.<pass id>-<16 random characters>`. */
export function newObjectId(issuerId: string, passId: string): string {
  return `${classIdFor(issuerId, passId)}-${randomBytes(12).toString('base64url')}`;
}

/**
 * A personal holder's object id: `<issuer id>.<holder serial number>`. Deterministic, so the
 * holder's save link always names the same object and a holder change knows what to patch;
 * the serial (32 hex characters, unique across passes) never clashes with a shared pass's
 * object ids, which start with a pass id and a dash.
 */
export function holderObjectId(issuerId: string, holder: Pick<Holder, 'serialNumber'>): string {
  return `${issuerId}.${holder.serialNumber}`;
}

/** The holder serial number inside an object id, or null when it is not a holder's object. */
export function holderSerialFromObjectId(issuerId: string, objectId: string): string | null {
  const prefix = `${issuerId}.`;
  if (!objectId.startsWith(prefix)) return null;
  const serial = objectId.slice(prefix.length);
  return /^[0-9a-f]{32}$/.test(serial) ? serial : null;
}

/**
 * A field as a text module, with the pass's translations of its label, and of its value where
 * the value is the pass's own (`holderValue` absent): a holder's value is in no language of
 * the pass's.
 */
function textModule(pass: Pass, field: FieldDto, holderValue?: string): TextModuleData {
  const body = holderValue ?? field.value;
  const header = field.label
    ? translated(pass, field.label, (texts) => fieldTexts(texts, field.key)?.label)
    : undefined;
  const value =
    holderValue === undefined
      ? translated(pass, body, (texts) => fieldTexts(texts, field.key)?.value)
      : undefined;
  return {
    id: field.key,
    ...(field.label ? { header: field.label } : {}),
    body,
    ...(header !== undefined ? { localizedHeader: header } : {}),
    ...(value !== undefined ? { localizedBody: value } : {}),
  };
}

/**
 * Google shows the first of the references that is not empty: a personal holder's object
 * carries its own values of the fields it set, every other object shows the class's.
 */
function templateItem(key: string): TemplateItem {
  return {
    firstValue: {
      fields: [
        { fieldPath: `object.textModulesData['${key}']` },
        { fieldPath: `class.textModulesData['${key}']` },
      ],
    },
  };
}

/** One row per group of up to three keys. */
function cardRow(keys: string[]): CardRowTemplateInfo {
  const [first, second, third] = keys.map(templateItem);
  if (third !== undefined)
    return { threeItems: { startItem: first, middleItem: second, endItem: third } };
  if (second !== undefined) return { twoItems: { startItem: first, endItem: second } };
  return { oneItem: { item: first } };
}

/** Google shows at most three rows on the card. */
const CARD_ROWS = 3;

/**
 * The card's rows, as WalletA lays out the front: the header fields (topField first), the
 * primary fields, then the secondary and auxiliary fields in rows of three. Fields past the
 * third row are in the details only.
 */
function cardRows(pass: Pass): CardRowTemplateInfo[] {
  const metadata = pass.passMetadata;
  const keys = (fields: FieldDto[] | undefined) => (fields ?? []).map((field) => field.key);
  const groups = [
    [...(metadata.topField ? [metadata.topField.key] : []), ...keys(metadata.headerFields)],
    keys(metadata.primaryFields),
  ];
  const rest = [...keys(metadata.secondaryFields), ...keys(metadata.auxiliaryFields)];
  for (let i = 0; i < rest.length; i += 3) groups.push(rest.slice(i, i + 3));
  return groups
    .filter((group) => group.length > 0)
    .slice(0, CARD_ROWS)
    .map(cardRow);
}

/**
 * The pass's class, of its class type. The face fields go to text modules the card template
 * shows as WalletA shows the front; back fields go to the details: links (through their short
 * links, so taps are counted) to the links module, link-less text to text modules. Loyalty,
 * offer, event ticket and transit classes show the logo (`images.logoUrl`). `now`: when the class
 * is written, which says which of a festival's or a season ticket's events is next.
 */
export function buildPassClass(
  pass: Pass,
  type: ClassType,
  issuerId: string,
  images: ObjectImages,
  callbackUrl?: string,
  now: Date = new Date(),
): WalletClass {
  return displayTextDeep(
    kindClass(
      type,
      sharedClass(pass, issuerId, callbackUrl),
      pass,
      passKindOf(pass.passMetadata),
      images,
      now,
    ),
  );
}

function sharedClass(pass: Pass, issuerId: string, callbackUrl?: string): GenericClass {
  const metadata = pass.passMetadata;
  const textModulesData = faceFields(pass).map((field) => textModule(pass, field));
  const uris: LinksModuleData['uris'] = [];
  for (const backField of metadata.backFields ?? []) {
    const texts: string[] = [];
    backField.value.forEach((item, index) => {
      const href = item.shortLinkValue ?? item.link;
      if (href === undefined) {
        if (item.text) texts.push(item.text);
        return;
      }
      uris.push({
        uri: href,
        description: item.text ?? backField.label ?? href,
        id: `${backField.key}.${index}`,
      });
    });
    if (texts.length > 0) {
      textModulesData.push(
        textModule(pass, { key: backField.key, label: backField.label, value: texts.join('\n') }),
      );
    }
  }

  const rows = cardRows(pass);
  return {
    id: classIdFor(issuerId, pass.id),
    ...(rows.length > 0
      ? { classTemplateInfo: { cardTemplateOverride: { cardRowTemplateInfos: rows } } }
      : {}),
    textModulesData,
    linksModuleData: { uris },
    ...(callbackUrl !== undefined ? { callbackOptions: { url: callbackUrl } } : {}),
    // The issuer redeems its own passes: its Smart Tap keys are the terminals' keys.
    ...(metadata.nfc ? { enableSmartTap: true, redemptionIssuers: [issuerId] } : {}),
  };
}

/**
 * What a Smart Tap terminal reads of an object: the holder's own NFC message, else the pass's.
 * Google carries ASCII only, so a message with other characters (which WalletA's terminals
 * read as UTF-8) is left out of the object rather than refused by Google at every sync.
 */
function smartTapValue(
  pass: Pass,
  nfcMessage: string | null,
): { smartTapRedemptionValue?: string } {
  const message = shownNfcMessage(pass.passMetadata.nfc, nfcMessage);
  // eslint-disable-next-line no-control-regex
  return message !== null && /^[\x00-\x7f]+$/.test(message)
    ? { smartTapRedemptionValue: message }
    : {};
}

/**
 * Google's type for each format, and what a value must be for it where the API's format takes
 * more than Google's type does: Google's `ITF_14` is a GTIN-14 (14 digits ending in their check
 * digit), the API's `ITF` any even number of digits.
 */
const BARCODE_TYPES: Record<BarcodeFormat, { type: BarcodeType; fits?(value: string): boolean }> = {
  QR: { type: 'QR_CODE' },
  PDF417: { type: 'PDF_417' },
  Aztec: { type: 'AZTEC' },
  Code128: { type: 'CODE_128' },
  EAN13: { type: 'EAN_13' },
  Code39: { type: 'CODE_39' },
  Codabar: { type: 'CODABAR' },
  ITF: { type: 'ITF_14', fits: (value) => isGs1Number(value, 14) },
};

/**
 * The barcode's WalletB type: the first of the pass's formats for the value
 * (`barcodeFormatsFor`) whose Google type can carry it, so an ITF value that is no ITF-14 gets
 * the fallback's type, as older iPhones get the fallback.
 */
export function walletBBarcodeType(metadata: Pass['passMetadata'], value: string): BarcodeType {
  const formats = barcodeFormatsFor(metadata, value);
  const fitting = formats.find((format) => BARCODE_TYPES[format].fits?.(value) ?? true);
  return BARCODE_TYPES[fitting ?? formats[formats.length - 1]].type;
}

/**
 * The object's validity: it ends at the expiration date (after it Google shows the pass as
 * expired, as WalletA does). The relevant date is not its start: before its start Google takes
 * an object as not yet usable, and a ticket or a coupon is usable before the moment it is
 * relevant for; Google reads that moment from the type's own times (an event's start, a
 * departure).
 */
function validity(expirationDate: string | undefined): { validTimeInterval?: TimeInterval } {
  return expirationDate ? { validTimeInterval: { end: { date: expirationDate } } } : {};
}

/**
 * What every object shows: the hero image (the strip image), the barcode in the pass's format,
 * its validity, and its state: EXPIRED once the pass is deleted (Google's equivalent of a
 * voided WalletA pass).
 */
function sharedObject(
  pass: Pass,
  images: ObjectImages,
  barcode: { value: string | null | undefined; text: string | null | undefined },
  expirationDate: string | undefined,
  nfcMessage: string | null,
): SharedObjectContent {
  const metadata = pass.passMetadata;
  return {
    state: pass.deletedTime === null ? 'ACTIVE' : 'EXPIRED',
    ...(images.heroUrl !== null ? { heroImage: walletImage(images.heroUrl, pass.passName) } : {}),
    ...(barcode.value
      ? {
          barcode: {
            type: walletBBarcodeType(metadata, barcode.value),
            value: barcode.value,
            ...(barcode.text ? { alternateText: barcode.text } : {}),
          },
        }
      : {}),
    ...validity(expirationDate),
    ...smartTapValue(pass, nfcMessage),
  };
}

/** What an object of the shared pass (one saved through the pass's own link) shows. */
export function buildObjectContent(
  pass: Pass,
  type: ClassType,
  images: ObjectImages,
): WalletObjectContent {
  const metadata = pass.passMetadata;
  const shared = sharedObject(
    pass,
    images,
    { value: metadata.qrUrl, text: metadata.qrText },
    metadata.expirationDate,
    null,
  );
  return displayTextDeep(kindObject(type, shared, pass, passKindOf(metadata), images, null));
}

/**
 * A personal holder's object: the pass's object content with the holder's barcode (value and
 * text, each defaulting to the pass's) and validity (its own expirationDate, else the pass's;
 * a ticket for a given day ends then), its own field values as text modules (the class keeps
 * the pass's values, which the card shows for fields the holder has none of) and in the type's
 * own properties (seat, passenger, ...), and EXPIRED once the holder is Voided.
 * `textModulesData` is always sent, so a PATCH also clears values the holder no longer has.
 */
export function buildHolderObjectContent(
  pass: Pass,
  type: ClassType,
  holder: Holder,
  images: ObjectImages,
): WalletObjectContent {
  const metadata = pass.passMetadata;
  const shared = sharedObject(
    pass,
    images,
    { value: holder.barcodeValue ?? metadata.qrUrl, text: holder.barcodeText ?? metadata.qrText },
    holder.expirationDate ?? metadata.expirationDate,
    holder.nfcMessage,
  );
  return displayTextDeep(
    kindObject(
      type,
      {
        ...shared,
        state: holder.status === 'Voided' ? 'EXPIRED' : shared.state,
        textModulesData: faceFields(pass)
          .filter((field) => Object.hasOwn(holder.fieldValues, field.key))
          .map((field) => textModule(pass, field, holder.fieldValues[field.key])),
      },
      pass,
      passKindOf(metadata, holder),
      images,
      holder,
    ),
  );
}

/** Upload keys of the logo and the strip (hero) image, when the pass has them. */
export function objectImageKeys(pass: Pass): { logo?: string; hero?: string } {
  const key = (name: string) =>
    pass.uploadInfoList.find((info) => info.fileName === name)?.uploadKey;
  return { logo: key('logo.png'), hero: key('strip.png') };
}

/**
 * A digest of what holders' objects show, with images by upload key (their signed URLs change
 * at every read): when it did not change, a class sync leaves the objects alone. The content of
 * a shared object covers everything objects take from the pass, the labels of the face fields
 * what holders' objects show besides.
 */
export function objectContentHash(pass: Pass, type: ClassType): string {
  const keys = objectImageKeys(pass);
  const byKey = (key: string | undefined) => (key !== undefined ? `upload:${key}` : null);
  const content = buildObjectContent(pass, type, {
    logoUrl: byKey(keys.logo),
    heroUrl: byKey(keys.hero),
  });
  return createHash('sha256')
    .update(
      JSON.stringify([
        content,
        faceFields(pass).map((field) => [field.key, field.label ?? null]),
        // Holders' objects show the labels' translations too.
        pass.passMetadata.localizations ?? null,
      ]),
    )
    .digest('hex');
}
