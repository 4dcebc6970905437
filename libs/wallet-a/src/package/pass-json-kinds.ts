import type {
  KindPosters,
  PassKind,
  PassKindOf,
  PassType,
  RoleReader,
  TransitType,
} from '@app/kinds';
import { couponFields, eventFields, tripFields, type KindFields } from './kind-fields';
import { eventTags, semanticFlight, tripTags, type SemanticTags } from './semantic-tags';
import { upcomingPassInformation } from './upcoming-events';

/** WalletA's pass styles: the key of pass.json's field structure. */
export type AppleStyle = 'storeCard' | 'coupon' | 'eventTicket' | 'boardingPass' | 'generic';

/**
 * How pass.json opts a kind into its poster, once the pass has artwork: iOS 26's poster event
 * ticket is a preferred style scheme over the `eventTicket` style (`preferredStyleSchemes`);
 * iOS 27's poster generic pass is a style dictionary of its own, `posterGeneric`, beside the
 * `generic` one that older devices show (Apple, "Creating a poster generic pass").
 */
export type PosterStyle = 'posterEventTicket' | 'posterGeneric';

/** A kind whose unit has a poster (`KindPosters`) names its style; the others none. */
type PosterOf<K extends PassType> = KindPosters[K] extends null ? null : PosterStyle;

/** What pass.json makes of one kind of pass. */
interface PassJsonKind<K extends PassType> {
  style: AppleStyle;
  /** How its poster is written, for the kinds that have one. */
  poster: PosterOf<K>;
  /** Keys of the style's structure besides its fields (a boarding pass's `transitType`). */
  styleKeys(kind: PassKindOf<K>): Record<string, string>;
  /** The kind's facts as fields, slot by slot (`kind-fields.ts`). */
  fields(kind: PassKindOf<K>): KindFields;
  /** Its semantic tags (`semantic-tags.ts`); undefined for a kind that has none. */
  semantics(kind: PassKindOf<K>, value: RoleReader, poster: boolean): SemanticTags | undefined;
  /**
   * Top-level keys of pass.json of the kind's own: a poster event ticket's upcoming events
   * (Wallet takes `upcomingPassInformation` only beside the `posterEventTicket` scheme, which
   * @walletpass/pass-js 7 enforces; a classic ticket lists them as a back field instead).
   */
  passKeys(kind: PassKindOf<K>, poster: boolean): Record<string, unknown>;
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

/** `upcomingPassInformation` (iOS 26) when the ticket has upcoming events. */
function ticketKeys(kind: PassKindOf<'eventTicket'>): Record<string, unknown> {
  const upcoming = upcomingPassInformation(kind);
  return upcoming !== undefined ? { upcomingPassInformation: upcoming } : {};
}

/** Every kind of pass as pass.json shows it: one entry per kind, which the compiler checks. */
const PASS_JSON_KINDS: { [K in PassType]: PassJsonKind<K> } = {
  storeCard: {
    style: 'storeCard',
    poster: null,
    styleKeys: none,
    fields: none,
    semantics: noTags,
    passKeys: none,
    styleSchemes: classic,
  },
  coupon: {
    style: 'coupon',
    poster: null,
    styleKeys: none,
    fields: couponFields,
    semantics: noTags,
    passKeys: none,
    styleSchemes: classic,
  },
  eventTicket: {
    style: 'eventTicket',
    poster: 'posterEventTicket',
    styleKeys: none,
    fields: eventFields,
    semantics: eventTags,
    passKeys: (kind, poster) => (poster ? ticketKeys(kind) : {}),
    styleSchemes: (_kind, poster) => (poster ? ['posterEventTicket', 'eventTicket'] : undefined),
  },
  boardingPass: {
    style: 'boardingPass',
    poster: null,
    styleKeys: ({ block }) => ({
      transitType: PK_TRANSIT_TYPES[block?.transitType ?? 'generic'],
    }),
    fields: tripFields,
    semantics: (kind, value) => tripTags(kind, value),
    passKeys: none,
    styleSchemes: (kind) =>
      semanticFlight(kind) !== null ? ['semanticBoardingPass', 'boardingPass'] : undefined,
  },
  generic: {
    style: 'generic',
    poster: 'posterGeneric',
    styleKeys: none,
    fields: none,
    semantics: noTags,
    passKeys: none,
    // Its poster (iOS 27) is a style dictionary of its own, not a scheme over this one.
    styleSchemes: classic,
  },
};

/** What pass.json makes of a pass's kind, each part read from the kind's one entry. */
export interface PassJsonKindParts {
  style: AppleStyle;
  poster: PosterStyle | null;
  styleKeys: Record<string, string>;
  fields: KindFields;
  semantics(value: RoleReader, poster: boolean): SemanticTags | undefined;
  passKeys(poster: boolean): Record<string, unknown>;
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
    passKeys: (poster) => entry.passKeys(kind, poster),
    styleSchemes: (poster) => entry.styleSchemes(kind, poster),
  };
}
