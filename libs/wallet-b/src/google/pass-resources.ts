import { displayTextDeep } from '@app/core';
import type { FieldDto, Holder, Pass } from '@app/passes';
import { createHash, randomBytes } from 'node:crypto';
import type {
  CardRowTemplateInfo,
  GenericClass,
  GenericObjectContent,
  LinksModuleData,
  LocalizedString,
  TemplateItem,
  TextModuleData,
  WalletImage,
} from './wallet-objects.types';

/**
 * How a pass becomes Google Wallet resources. Google splits a Generic pass in two:
 * - the class (one per pass, `<issuer id>.<pass id>`) holds what all holders share and Google
 *   lets a class hold: the fields (text modules, shown on the card through a card template),
 *   the back-field links (links module), the callback URL and the messages;
 * - each holder's object holds what Google only accepts on objects: title (`cardTitle`),
 *   `header`, logo, hero image, background colour, barcode and state.
 */

const LANGUAGE = 'en';

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

function localized(value: string): LocalizedString {
  return { defaultValue: { language: LANGUAGE, value } };
}

function textModule(field: FieldDto): TextModuleData {
  return { id: field.key, ...(field.label ? { header: field.label } : {}), body: field.value };
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

/**
 * The pass's class. The top field gets a card row of its own, the secondary fields (at most
 * four) rows of up to three, so the card shows what the WalletA pass shows on its front; back
 * fields go to the details: links (through their short links, so taps are counted) to the
 * links module, link-less text to text modules.
 */
export function buildPassClass(pass: Pass, issuerId: string, callbackUrl?: string): GenericClass {
  return displayTextDeep(passClass(pass, issuerId, callbackUrl));
}

function passClass(pass: Pass, issuerId: string, callbackUrl?: string): GenericClass {
  const metadata = pass.passMetadata;
  const front = [
    ...(metadata.topField ? [metadata.topField] : []),
    ...(metadata.secondaryFields ?? []),
  ];
  const textModulesData = front.map(textModule);
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
      textModulesData.push({
        id: backField.key,
        ...(backField.label ? { header: backField.label } : {}),
        body: texts.join('\n'),
      });
    }
  }

  const rows: CardRowTemplateInfo[] = [];
  if (metadata.topField) rows.push(cardRow([metadata.topField.key]));
  const secondary = (metadata.secondaryFields ?? []).map((field) => field.key);
  for (let i = 0; i < secondary.length; i += 3) rows.push(cardRow(secondary.slice(i, i + 3)));

  return {
    id: classIdFor(issuerId, pass.id),
    ...(rows.length > 0
      ? { classTemplateInfo: { cardTemplateOverride: { cardRowTemplateInfos: rows } } }
      : {}),
    textModulesData,
    linksModuleData: { uris },
    ...(callbackUrl !== undefined ? { callbackOptions: { url: callbackUrl } } : {}),
  };
}

/** Signed URLs of the images a holder's object shows. */
export interface ObjectImages {
  logoUrl: string | null;
  heroUrl: string | null;
}

function image(uri: string, description: string): WalletImage {
  return { sourceUri: { uri }, contentDescription: localized(description) };
}

/**
 * What a holder's object shows: the organisation as card title, the pass name as title, the
 * logo, the strip image as hero image, the background colour and the QR code. A deleted pass's
 * objects are EXPIRED (Google's equivalent of a voided WalletA pass). Google picks the text
 * colour itself: Generic passes have no field for `displayTextColor`.
 */
export function buildObjectContent(pass: Pass, images: ObjectImages): GenericObjectContent {
  return displayTextDeep(objectContent(pass, images));
}

function objectContent(pass: Pass, images: ObjectImages): GenericObjectContent {
  const metadata = pass.passMetadata;
  return {
    state: pass.deletedTime === null ? 'ACTIVE' : 'EXPIRED',
    cardTitle: localized(metadata.organizationName),
    header: localized(pass.passName),
    ...(images.logoUrl !== null
      ? { logo: image(images.logoUrl, `${metadata.organizationName} logo`) }
      : {}),
    ...(images.heroUrl !== null ? { heroImage: image(images.heroUrl, pass.passName) } : {}),
    ...(metadata.backgroundColor ? { hexBackgroundColor: metadata.backgroundColor } : {}),
    ...(metadata.qrUrl
      ? {
          barcode: {
            type: 'QR_CODE' as const,
            value: metadata.qrUrl,
            ...(metadata.qrText ? { alternateText: metadata.qrText } : {}),
          },
        }
      : {}),
  };
}

/**
 * A personal holder's object: the pass's object content with the holder's barcode (value and
 * text, each defaulting to the pass's), its own field values as text modules (the class keeps
 * the pass's values, which the card shows for fields the holder has none of), and EXPIRED once
 * the holder is Voided. `textModulesData` is always sent, so a PATCH also clears values the
 * holder no longer has.
 */
export function buildHolderObjectContent(
  pass: Pass,
  holder: Holder,
  images: ObjectImages,
): GenericObjectContent {
  const metadata = pass.passMetadata;
  const barcodeValue = holder.barcodeValue ?? metadata.qrUrl;
  const barcodeText = holder.barcodeText ?? metadata.qrText;
  const front = [
    ...(metadata.topField ? [metadata.topField] : []),
    ...(metadata.secondaryFields ?? []),
  ];
  // The pass's barcode exists only when qrUrl does, so the holder's (which defaults to it)
  // replaces it whenever there is one.
  const shared = objectContent(pass, images);
  return displayTextDeep({
    ...shared,
    state: holder.status === 'Voided' ? 'EXPIRED' : shared.state,
    ...(barcodeValue
      ? {
          barcode: {
            type: 'QR_CODE' as const,
            value: barcodeValue,
            ...(barcodeText ? { alternateText: barcodeText } : {}),
          },
        }
      : {}),
    textModulesData: front
      .filter((field) => holder.fieldValues[field.key] !== undefined)
      .map((field) => textModule({ ...field, value: holder.fieldValues[field.key] })),
  });
}

/** Upload keys of the logo and the strip (hero) image, when the pass has them. */
export function objectImageKeys(pass: Pass): { logo?: string; hero?: string } {
  const key = (name: string) =>
    pass.uploadInfoList.find((info) => info.fileName === name)?.uploadKey;
  return { logo: key('logo.png'), hero: key('strip.png') };
}

/**
 * A digest of what holders' objects show, with images by upload key (their signed URLs change
 * at every read): when it did not change, a class sync leaves the objects alone.
 */
export function objectContentHash(pass: Pass): string {
  const metadata = pass.passMetadata;
  return createHash('sha256')
    .update(
      JSON.stringify([
        metadata.organizationName,
        pass.passName,
        metadata.backgroundColor ?? null,
        metadata.qrUrl ?? null,
        metadata.qrText ?? null,
        objectImageKeys(pass),
        pass.deletedTime === null,
        // Holders' objects show the labels of the fields they have values of.
        [metadata.topField, ...(metadata.secondaryFields ?? [])].map((field) =>
          field ? [field.key, field.label ?? null] : null,
        ),
      ]),
    )
    .digest('hex');
}
