/**
 * The parts of the Google Wallet API's resources (walletobjects v1) this service writes, per
 * class type. Field names and enum values are Google's (developers.google.com/wallet/reference/
 * rest/v1); a spec type-checks every payload we build against `@googleapis/walletobjects`.
 * A property Google marks "Required" is required here, except the images a Published pass always
 * has (its logo), which a vanished upload can still leave out.
 */

/** Google's class (and object) types this service issues. */
export const CLASS_TYPES = [
  'generic',
  'loyalty',
  'offer',
  'eventTicket',
  'flight',
  'transit',
] as const;
export type ClassType = (typeof CLASS_TYPES)[number];

export interface TranslatedString {
  language: string;
  value: string;
}

export interface LocalizedString {
  defaultValue: TranslatedString;
  /** The pass's `localizations` of the same text. */
  translatedValues?: TranslatedString[];
}

export interface WalletImage {
  sourceUri: { uri: string };
  contentDescription?: LocalizedString;
}

export interface TextModuleData {
  id: string;
  header?: string;
  body: string;
  localizedHeader?: LocalizedString;
  localizedBody?: LocalizedString;
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

export interface ClassTemplateInfo {
  cardTemplateOverride: { cardRowTemplateInfos: CardRowTemplateInfo[] };
}

export type MessageType = 'TEXT' | 'TEXT_AND_NOTIFY';

export interface WalletMessage {
  id: string;
  header: string;
  body: string;
  messageType: MessageType;
}

/** Google's BarcodeType values we send (Google's REST reference, `BarcodeType`). */
export type BarcodeType =
  'QR_CODE' | 'PDF_417' | 'AZTEC' | 'CODE_128' | 'EAN_13' | 'CODE_39' | 'CODABAR' | 'ITF_14';

export interface Barcode {
  type: BarcodeType;
  value: string;
  alternateText?: string;
}

/** An ISO 8601 date-time; whether it may carry an offset is the parent field's rule. */
export interface WalletDateTime {
  date: string;
}

export interface TimeInterval {
  start?: WalletDateTime;
  end?: WalletDateTime;
}

export type ObjectState = 'ACTIVE' | 'EXPIRED' | 'INACTIVE' | 'COMPLETED';

/**
 * Every class type but generic needs a review status. An issuer may only send `UNDER_REVIEW`
 * or `DRAFT`, and Google asks for `UNDER_REVIEW` on every update of an approved class too.
 */
export type ReviewStatus = 'UNDER_REVIEW';

// ---- Classes ------------------------------------------------------------------------------

interface ClassBase {
  id: string;
  classTemplateInfo?: ClassTemplateInfo;
  textModulesData?: TextModuleData[];
  linksModuleData?: LinksModuleData;
  callbackOptions?: { url: string };
  messages?: WalletMessage[];
  /** Smart Tap: terminals of the `redemptionIssuers` read the objects' redemption value. */
  enableSmartTap?: boolean;
  redemptionIssuers?: string[];
}

export type GenericClass = ClassBase;

/** What every class type but generic requires besides its own fields. */
interface IssuedClass extends ClassBase {
  issuerName: string;
  localizedIssuerName?: LocalizedString;
  reviewStatus: ReviewStatus;
  hexBackgroundColor?: string;
}

export interface LoyaltyClass extends IssuedClass {
  programName: string;
  localizedProgramName?: LocalizedString;
  programLogo?: WalletImage;
}

export type GoogleRedemptionChannel = 'INSTORE' | 'ONLINE' | 'BOTH';

export interface OfferClass extends IssuedClass {
  title: string;
  provider: string;
  redemptionChannel: GoogleRedemptionChannel;
  finePrint?: string;
  titleImage?: WalletImage;
}

/** Google requires both once a venue is given. */
export interface EventVenue {
  name: LocalizedString;
  address: LocalizedString;
}

/** ISO 8601 date-times, with or without an offset. */
export interface EventDateTime {
  doorsOpen?: string;
  start?: string;
  end?: string;
}

export interface EventTicketClass extends IssuedClass {
  eventName: LocalizedString;
  venue?: EventVenue;
  dateTime?: EventDateTime;
  logo?: WalletImage;
}

export interface AirportInfo {
  /** Three letters. */
  airportIataCode: string;
  airportNameOverride?: LocalizedString;
}

/** Exactly one of the two codes (IATA: two characters, ICAO: three letters). */
export interface FlightCarrier {
  carrierIataCode?: string;
  carrierIcaoCode?: string;
  airlineName?: LocalizedString;
}

export interface FlightHeader {
  carrier: FlightCarrier;
  /** Digits only, without the carrier code. */
  flightNumber: string;
}

export interface FlightClass extends IssuedClass {
  flightHeader: FlightHeader;
  origin: AirportInfo;
  destination: AirportInfo;
  /** Local date-times at the airport, without an offset (Google refuses one). */
  localBoardingDateTime?: string;
  localScheduledDepartureDateTime: string;
  localScheduledArrivalDateTime?: string;
}

export type GoogleTransitType = 'BUS' | 'RAIL' | 'TRAM' | 'FERRY' | 'OTHER';

export interface TransitClass extends IssuedClass {
  transitType: GoogleTransitType;
  logo?: WalletImage;
  transitOperatorName?: LocalizedString;
}

export interface ClassOf {
  generic: GenericClass;
  loyalty: LoyaltyClass;
  offer: OfferClass;
  eventTicket: EventTicketClass;
  flight: FlightClass;
  transit: TransitClass;
}

export type WalletClass = ClassOf[ClassType];

// ---- Objects ------------------------------------------------------------------------------

/** Passes of one `groupingId` show together (a carousel), by `sortIndex`, lowest first. */
export interface GroupingInfo {
  groupingId: string;
  sortIndex: number;
}

interface ObjectBase {
  id: string;
  classId: string;
  state: ObjectState;
  barcode?: Barcode;
  heroImage?: WalletImage;
  /** A personal holder's own field values (the card template shows them before the class's). */
  textModulesData?: TextModuleData[];
  validTimeInterval?: TimeInterval;
  /** Messages added to this object alone (a notification to chosen holders). */
  messages?: WalletMessage[];
  /** Set in a bundle's save link only, where the holders' objects are saved together. */
  groupingInfo?: GroupingInfo;
  /** What a Smart Tap terminal reads over NFC (ASCII only). */
  smartTapRedemptionValue?: string;
}

export interface GenericObject extends ObjectBase {
  cardTitle: LocalizedString;
  header: LocalizedString;
  logo?: WalletImage;
  hexBackgroundColor?: string;
}

export type LoyaltyObject = ObjectBase;

export type OfferObject = ObjectBase;

export interface EventSeat {
  seat?: LocalizedString;
  row?: LocalizedString;
  section?: LocalizedString;
  gate?: LocalizedString;
}

export interface EventTicketObject extends ObjectBase {
  seatInfo?: EventSeat;
  ticketHolderName?: string;
}

export interface FlightObject extends ObjectBase {
  passengerName: string;
  reservationInfo: { confirmationCode?: string };
  boardingAndSeatingInfo?: { seatNumber?: string; boardingGroup?: string };
}

export interface TicketLeg {
  originStationCode: string;
  originName: LocalizedString;
  destinationStationCode: string;
  destinationName: LocalizedString;
  /** Required while the object has no validTimeInterval; we always send it. */
  departureDateTime: string;
  arrivalDateTime?: string;
  transitOperatorName?: LocalizedString;
  /** The train or ship (or bus) name or number to board. */
  carriage?: string;
  platform?: string;
  ticketSeat?: { seat?: string; coach?: string };
}

export interface TransitObject extends ObjectBase {
  tripType: 'ONE_WAY' | 'ROUND_TRIP';
  ticketLeg: TicketLeg;
  passengerNames?: string;
}

export interface ObjectOf {
  generic: GenericObject;
  loyalty: LoyaltyObject;
  offer: OfferObject;
  eventTicket: EventTicketObject;
  flight: FlightObject;
  transit: TransitObject;
}

export type WalletObject = ObjectOf[ClassType];

/** `Omit` applied to each member of a union (TypeScript's own collapses the union). */
type OmitEach<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** The fields of an object that follow the pass (all but id, class, messages and grouping). */
export type ObjectContentOf<T extends ClassType> = OmitEach<
  ObjectOf[T],
  'id' | 'classId' | 'messages' | 'groupingInfo'
>;

export type WalletObjectContent = ObjectContentOf<ClassType>;
