import { formatSpan, type KindFact, type PassKindOf, type UpcomingEventFacts } from '@app/kinds';
import type { PassJsonField } from './pass-json-field';

/** The slots a kind's fields go to; a face field whose slot the brand filled goes to the back. */
export const KIND_FACE_SLOTS = ['primaryFields', 'secondaryFields', 'auxiliaryFields'] as const;
type KindFaceSlot = (typeof KIND_FACE_SLOTS)[number];

/** The fields a pass's kind gives pass.json, slot by slot. */
export type KindFields = Partial<Record<KindFaceSlot | 'backFields', PassJsonField[]>>;

const DATE_AND_TIME = { dateStyle: 'PKDateStyleMedium', timeStyle: 'PKDateStyleShort' } as const;
const TIME_ONLY = { dateStyle: 'PKDateStyleNone', timeStyle: 'PKDateStyleShort' } as const;

/** A kind's fact as a Wallet field; a date-time shown in the holder's locale and time zone. */
function field(fact: KindFact): PassJsonField {
  return {
    key: fact.key,
    label: fact.label,
    value: fact.value,
    ...(fact.time === 'dateTime' ? DATE_AND_TIME : fact.time === 'time' ? TIME_ONLY : {}),
  };
}

const fields = (...facts: (KindFact | undefined)[]): PassJsonField[] =>
  facts.filter((fact) => fact !== undefined).map(field);

/**
 * An event ticket's facts on the pass: the event's name (primary), date and
 * venue (secondary), doors (auxiliary), end and address (back); a festival's or a season
 * ticket's events as one back field, which every device shows (iOS 26 also lists them as
 * upcoming events, `upcoming-events.ts`).
 */
export function eventFields({ facts }: PassKindOf<'eventTicket'>): KindFields {
  if (facts === null) return {};
  return {
    primaryFields: fields(facts.name),
    secondaryFields: fields(facts.date, facts.venue),
    auxiliaryFields: fields(facts.doors),
    backFields: [
      ...fields(facts.end, facts.address),
      ...(facts.upcoming !== undefined && facts.upcoming.length > 0
        ? [programme(facts.upcoming)]
        : []),
    ],
  };
}

/**
 * The events as one text, a line each: `Fri 10 July 2026, 18:00–23:30 · Opening night ·
 * Main Stage`, times at their own offset (the venue's clock), as the holder page shows them.
 */
function programme(events: UpcomingEventFacts[]): PassJsonField {
  return {
    key: 'event.upcoming',
    label: 'Upcoming events',
    value: events.map(upcomingLine).join('\n'),
  };
}

/** One event as a line of text: when, what, where. */
function upcomingLine(event: UpcomingEventFacts): string {
  return `${formatSpan(event.date.value, event.end?.value)} · ${event.name} · ${event.venue.value}`;
}

/** A coupon's: its title headed by the provider (primary), where to redeem and terms (back). */
export function couponFields({ facts }: PassKindOf<'coupon'>): KindFields {
  if (facts === null) return {};
  return {
    primaryFields: fields(facts.title),
    backFields: fields(facts.redemption, facts.terms),
  };
}

/**
 * A boarding pass's: origin and destination (primary), boarding, departure and arrival
 * (secondary), the service and a holder's passenger (auxiliary). The semantic boarding pass
 * keeps them: devices before iOS 26 show these.
 */
export function tripFields({ facts }: PassKindOf<'boardingPass'>): KindFields {
  if (facts === null) return {};
  return {
    primaryFields: fields(facts.origin, facts.destination),
    secondaryFields: fields(facts.boarding, facts.departure, facts.arrival),
    auxiliaryFields: fields(facts.service, facts.passenger),
  };
}

/** The front of the pass: what the brand put in each slot. */
export type FaceSlots = Record<'headerFields' | KindFaceSlot, PassJsonField[]>;

/**
 * Puts the kind's fields where the brand left room: a face slot the brand left empty takes the
 * kind's fields for it; a slot the brand filled stays the brand's alone, and the kind's fields
 * for it go to the back, after the brand's back fields, so nothing of the event, offer or trip
 * is lost. A kind field whose key the pass already uses (`usedKeys`) is left out: keys stay
 * unique, and the brand's field of that key wins.
 */
export function placeKindFields(
  face: FaceSlots,
  backFields: PassJsonField[],
  kind: KindFields,
  usedKeys: ReadonlySet<string>,
): { face: FaceSlots; backFields: PassJsonField[] } {
  const unused = (fields: PassJsonField[] | undefined) =>
    (fields ?? []).filter((field) => !usedKeys.has(field.key));
  const placed: FaceSlots = { ...face };
  const moved: PassJsonField[] = [];
  for (const slot of KIND_FACE_SLOTS) {
    const fields = unused(kind[slot]);
    if (face[slot].length === 0) placed[slot] = fields;
    else moved.push(...fields);
  }
  return { face: placed, backFields: [...backFields, ...moved, ...unused(kind.backFields)] };
}
