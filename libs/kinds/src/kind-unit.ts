import type { EventDto, OfferDto, TransitDto } from './kind-payloads';
import type { PassType } from './kind-names';

/**
 * What a kind of pass is, in the API's terms: one unit per kind (`store-card.ts`,
 * `coupon.ts`, `event-ticket.ts`, `boarding-pass.ts`, `generic.ts`), listed in `kinds.ts`. Each
 * wallet and the holder page render what a unit says; none of them decides it again.
 */

/** A per-kind type that names every kind: a kind added to PASS_TYPES is a compile error here. */
type EveryKind<T extends Record<PassType, unknown>> = T;

/** The name of a kind's block in `passMetadata`. */
export type BlockName = 'event' | 'offer' | 'transit';

/** Each kind's block: what the kind is about, required on it and refused on any other. */
export type KindBlocks = EveryKind<{
  storeCard: null;
  coupon: OfferDto;
  eventTicket: EventDto;
  boardingPass: TransitDto;
  generic: null;
}>;

/**
 * How many fields each face slot holds (Apple's pass design, which the API enforces for both
 * wallets): `secondaryAndAuxiliary` where those two rows share one budget.
 */
export interface FaceLimits {
  headerFields: number;
  primaryFields: number;
  secondaryFields: number;
  auxiliaryFields: number;
  secondaryAndAuxiliary?: number;
}

/** The times a kind's block gives (ISO 8601 with their offset, as sent). */
export interface KindTimes {
  /** When the event starts or the trip departs. */
  start?: string;
  /** When the event ends or the trip arrives. */
  end?: string;
  doorsOpen?: string;
  /** When a trip boards. */
  boarding?: string;
  /**
   * A holder's own day (its `relevantDate`) replaces the kind's date: a ticket for one day of a
   * festival. A trip keeps its departure; the holder's day then only moves the lock screen.
   */
  takesHolderDay: boolean;
  /** The pass stays relevant from its doors to its end (an event), not at one moment. */
  lasts: boolean;
  /** The events of a festival or a season ticket (`event.upcoming`), in the pass's order. */
  events?: EventTimes[];
}

/** When one event of a festival or a season ticket starts and ends. */
export interface EventTimes {
  /** Its identifier, unique among the pass's events. */
  id: string;
  start: string;
  end?: string;
}

/**
 * When the lock screen offers the pass for an event: from its start to its end when it lasts at
 * most a day (longer intervals Wallet drops), else at its start.
 */
export type EventRelevance = { startDate: string; endDate: string } | { date: string };

/** One event of a festival or a season ticket, as the schedule has it. */
export interface ScheduledEvent extends EventTimes {
  relevance: EventRelevance;
}

/**
 * When a pass, or a holder's copy of it, happens: computed once (`schedule.ts`) from the pass
 * and the holder, and read by every output that shows a time (the face fields, the semantic
 * tags, the relevant dates, the holder page, WalletB). On a holder's own day the start is that
 * day, and the end and the doors, which are times of the pass's day, are absent.
 */
export interface KindSchedule {
  start?: string;
  end?: string;
  doorsOpen?: string;
  boarding?: string;
  /** The holder's own day the kind's date gave way to; null: the pass's own day. */
  ownDay: string | null;
  /** When the lock screen offers the pass: the holder's day, else the pass's, else the start. */
  relevantDate?: string;
  /** From the pass's relevant date (else doors, else start) to the end, when within a day. */
  relevantInterval?: { startDate: string; endDate: string };
  /** Whole seconds from start to end, when the end is later. */
  durationSeconds?: number;
  /**
   * The events of a festival or a season ticket, in the pass's order, each relevant on its own
   * (the relevant dates are one per event). Absent on a holder's own day: that copy is a ticket
   * for its one day, not for the pass's events.
   */
  events?: ScheduledEvent[];
}

/**
 * A labelled value a kind shows, in English like every text the API writes itself (a brand's
 * own field in its place wins, and is translatable).
 */
export interface KindFact {
  /** As a field of the pass: prefixed by the block (`event.start`), apart from brands' keys. */
  key: string;
  label: string;
  value: string;
  /** The value is an ISO 8601 date-time, shown with its date or as a time of day. */
  time?: 'dateTime' | 'time';
  /** The IANA zone of the place the time is at (a trip's end), when known; else its offset's. */
  timeZone?: string;
}

/** A ticket's event: its name, date, venue and, when known, doors, end and address. */
export interface EventFacts {
  heading: string;
  name: KindFact;
  date: KindFact;
  venue: KindFact;
  doors?: KindFact;
  end?: KindFact;
  address?: KindFact;
  /** A festival's or a season ticket's events, in the pass's order. */
  upcoming?: UpcomingEventFacts[];
}

/**
 * One upcoming event: its identifier and name, its date and end from the schedule, its venue
 * (its own, else the ticket's) and whether that is the ticket's own venue.
 */
export interface UpcomingEventFacts {
  identifier: string;
  name: string;
  date: KindFact;
  end?: KindFact;
  venue: KindFact;
  /** The event is at the ticket's venue (it names none of its own): its location is the pass's. */
  atTicketVenue: boolean;
}

/** A coupon's offer: its title (labelled by the provider, whose offer it is), provider, terms. */
export interface OfferFacts {
  heading: string;
  title: KindFact;
  provider: KindFact;
  redemption: KindFact;
  terms?: KindFact;
}

/**
 * A trip: origin and destination (the code, labelled by the place's name), boarding, departure,
 * arrival, the service (the flight's code and number, a train's number, else the carrier) and,
 * on a holder's copy, its passenger.
 */
export interface TripFacts {
  heading: string;
  origin: KindFact;
  destination: KindFact;
  boarding?: KindFact;
  departure: KindFact;
  arrival?: KindFact;
  service?: KindFact;
  passenger?: KindFact;
}

/** What each kind shows of its block; null for the kinds that are their card alone. */
export type KindFacts = EveryKind<{
  storeCard: null;
  coupon: OfferFacts;
  eventTicket: EventFacts;
  boardingPass: TripFacts;
  generic: null;
}>;

/** A passenger's name, as a holder of a boarding pass gives it. */
export interface PassengerName {
  givenName: string;
  familyName: string;
}

/** What a holder's copy brings to its kind's facts besides its day. */
export interface KindHolder {
  /** The holder's passenger (boarding passes only); null: none, and on the shared pass. */
  passengerName: PassengerName | null;
}

/**
 * What a kind's own rule finds wrong with its block, beyond each field's shape (the DTO's): the
 * field's path under the block (`number`, `upcoming[2].endTime`) and what it must be.
 */
export interface BlockProblem {
  field: string;
  message: string;
}

/**
 * A kind's poster, which an `artwork` image opts into: iOS 26's poster event ticket, iOS 27's
 * poster generic pass. Its classic face stays in the package for older devices.
 */
export interface KindPoster {
  /** As the API's messages name it: "poster event ticket". */
  name: string;
  /**
   * The fields of the block Wallet requires for the poster beside those the block always has;
   * lacking one, Wallet silently shows the classic face, so the API refuses the artwork instead.
   */
  needs: readonly string[];
  /** Wallet shows the poster only to a pass with NFC (Pass Builder refuses one without). */
  needsNfc: boolean;
}

/** Which kinds have a poster; WalletA's table says how pass.json writes exactly those. */
export type KindPosters = EveryKind<{
  storeCard: null;
  coupon: null;
  eventTicket: KindPoster;
  boardingPass: null;
  generic: KindPoster;
}>;

/** One kind of pass, as the rules and both wallets know it. */
export interface KindUnit<K extends PassType> {
  /** Its block in `passMetadata`, if it has one. */
  block: BlockName | null;
  face: FaceLimits;
  /**
   * Its own rule over fields of its block together (a flight's carrier and number, a
   * festival's events), which holds for stored metadata too: the first problem, or null.
   */
  problem(block: NonNullable<KindBlocks[K]>): BlockProblem | null;
  /** A holder of the kind may give a passenger, which its facts show (a boarding pass's). */
  passenger: boolean;
  poster: KindPosters[K];
  times(block: NonNullable<KindBlocks[K]>): KindTimes;
  facts(
    block: NonNullable<KindBlocks[K]>,
    schedule: KindSchedule,
    holder: KindHolder,
  ): KindFacts[K];
}

/**
 * A pass's kind, worked out once for the shared pass or a holder's copy (`passKindOf`): its
 * type, its block, its schedule and its facts. Null block and facts: a kind without a block, or
 * a pass that lacks it (which the rules refuse).
 */
export interface PassKindOf<K extends PassType> {
  type: K;
  block: KindBlocks[K] | null;
  schedule: KindSchedule;
  facts: KindFacts[K] | null;
  /** The holder's passenger, on a holder's copy of a boarding pass; else null. */
  passengerName: PassengerName | null;
}
export type PassKind = { [K in PassType]: PassKindOf<K> }[PassType];

/** What each kind has no block for: no times, no facts. */
export const NO_TIMES: KindTimes = { takesHolderDay: false, lasts: false };
