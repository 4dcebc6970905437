import type { PassKind, PassKindOf, PassType, RoleReader, TransitType } from '@app/passes';
import { couponFields, eventFields, tripFields, type KindFields } from './kind-fields';
import { eventTags, semanticFlight, tripTags, type SemanticTags } from './semantic-tags';

/** WalletA's pass styles: the key of pass.json's field structure. */
export type AppleStyle = 'storeCard' | 'coupon' | 'eventTicket' | 'boardingPass' | 'generic';

/** What pass.json makes of one kind of pass. */
interface PassJsonKind<K extends PassType> {
  style: AppleStyle;
  /** The kind can be shown as a poster (iOS 26's poster event ticket), given artwork. */
  poster: boolean;
  /** Keys of the style's structure besides its fields (a boarding pass's `transitType`). */
  styleKeys(kind: PassKindOf<K>): Record<string, string>;
  /** The kind's facts as fields, slot by slot (`kind-fields.ts`). */
  fields(kind: PassKindOf<K>): KindFields;
  /** Its semantic tags (`semantic-tags.ts`); undefined for a kind that has none. */
  semantics(kind: PassKindOf<K>, value: RoleReader, poster: boolean): SemanticTags | undefined;
  /**
   * The newer layout this copy opts into (`preferredStyleSchemes`, iOS 26), the classic style
   * last: devices before iOS 26 ignore the key and show the classic style of the same fields.
   */
  styleSchemes(kind: PassKindOf<K>, poster: boolean): string[] | undefined;
}

/** A boarding pass's `transit.transitType` as pass.json names it. */
const PK_TRANSIT_TYPES: Record<TransitType, string> = {
  air: 'PKTransitTypeAir',
  train: 'PKTransitTypeTrain',
  bus: 'PKTransitTypeBus',
  boat: 'PKTransitTypeBoat',
  generic: 'PKTransitTypeGeneric',
};

const none = () => ({});
const noTags = () => undefined;
const classic = () => undefined;

/** Every kind of pass as pass.json shows it: one entry per kind, which the compiler checks. */
const PASS_JSON_KINDS: { [K in PassType]: PassJsonKind<K> } = {
  storeCard: {
    style: 'storeCard',
    poster: false,
    styleKeys: none,
    fields: none,
    semantics: noTags,
    styleSchemes: classic,
  },
  coupon: {
    style: 'coupon',
    poster: false,
    styleKeys: none,
    fields: couponFields,
    semantics: noTags,
    styleSchemes: classic,
  },
  eventTicket: {
    style: 'eventTicket',
    poster: true,
    styleKeys: none,
    fields: eventFields,
    semantics: eventTags,
    styleSchemes: (_kind, poster) => (poster ? ['posterEventTicket', 'eventTicket'] : undefined),
  },
  boardingPass: {
    style: 'boardingPass',
    poster: false,
    styleKeys: ({ block }) => ({
      transitType: PK_TRANSIT_TYPES[block?.transitType ?? 'generic'],
    }),
    fields: tripFields,
    semantics: (kind, value) => tripTags(kind, value),
    styleSchemes: (kind) =>
      semanticFlight(kind) !== null ? ['semanticBoardingPass', 'boardingPass'] : undefined,
  },
  generic: {
    style: 'generic',
    poster: false,
    styleKeys: none,
    fields: none,
    semantics: noTags,
    styleSchemes: classic,
  },
};

/** What pass.json makes of a pass's kind, each part read from the kind's one entry. */
export interface PassJsonKindParts {
  style: AppleStyle;
  poster: boolean;
  styleKeys: Record<string, string>;
  fields: KindFields;
  semantics(value: RoleReader, poster: boolean): SemanticTags | undefined;
  styleSchemes(poster: boolean): string[] | undefined;
}

/** The Apple style a pass's kind is shown in. */
export function appleStyleOf(kind: PassKind): AppleStyle {
  return PASS_JSON_KINDS[kind.type].style;
}

/** What pass.json makes of a pass's kind (`passKindOf`), from the kind's entry. */
export function passJsonKind(kind: PassKind): PassJsonKindParts {
  return partsOf(kind);
}

function partsOf<K extends PassType>(kind: PassKindOf<K>): PassJsonKindParts {
  const entry: PassJsonKind<K> = PASS_JSON_KINDS[kind.type];
  return {
    style: entry.style,
    poster: entry.poster,
    styleKeys: entry.styleKeys(kind),
    fields: entry.fields(kind),
    semantics: (value, poster) => entry.semantics(kind, value, poster),
    styleSchemes: (poster) => entry.styleSchemes(kind, poster),
  };
}
