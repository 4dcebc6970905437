/**
 * The parts of the Google Wallet API's resources (walletobjects v1) this service writes.
 * Field names are Google's; see developers.google.com/wallet/generic/rest/v1.
 */

export interface TranslatedString {
  language: string;
  value: string;
}

export interface LocalizedString {
  defaultValue: TranslatedString;
}

export interface WalletImage {
  sourceUri: { uri: string };
  contentDescription?: LocalizedString;
}

export interface TextModuleData {
  id: string;
  header?: string;
  body: string;
}

export interface LinksModuleData {
  uris: { uri: string; description: string; id: string }[];
}

export interface FieldSelector {
  fields: { fieldPath: string }[];
}

export interface TemplateItem {
  firstValue: FieldSelector;
}

export type CardRowTemplateInfo =
  | { oneItem: { item: TemplateItem } }
  | { twoItems: { startItem: TemplateItem; endItem: TemplateItem } }
  | { threeItems: { startItem: TemplateItem; middleItem: TemplateItem; endItem: TemplateItem } };

export type MessageType = 'TEXT' | 'TEXT_AND_NOTIFY';

export interface WalletMessage {
  id: string;
  header: string;
  body: string;
  messageType: MessageType;
}

export interface GenericClass {
  id: string;
  classTemplateInfo?: { cardTemplateOverride: { cardRowTemplateInfos: CardRowTemplateInfo[] } };
  textModulesData?: TextModuleData[];
  linksModuleData?: LinksModuleData;
  callbackOptions?: { url: string };
  messages?: WalletMessage[];
}

export type GenericObjectState = 'ACTIVE' | 'EXPIRED' | 'INACTIVE' | 'COMPLETED';

export interface GenericObject {
  id: string;
  classId: string;
  state: GenericObjectState;
  cardTitle: LocalizedString;
  header: LocalizedString;
  logo?: WalletImage;
  heroImage?: WalletImage;
  hexBackgroundColor?: string;
  barcode?: { type: 'QR_CODE'; value: string; alternateText?: string };
  /** A personal holder's own field values (the card template shows them before the class's). */
  textModulesData?: TextModuleData[];
  /** Messages added to this object alone (a notification to chosen holders). */
  messages?: WalletMessage[];
}

/** The fields of a GenericObject that follow the pass (everything but id, class and messages). */
export type GenericObjectContent = Omit<GenericObject, 'id' | 'classId' | 'messages'>;
