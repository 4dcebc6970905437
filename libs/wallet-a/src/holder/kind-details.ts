import {
  factText,
  formatSpan,
  type KindFact,
  type PassKind,
  type PassKindOf,
  type PassType,
} from '@app/kinds';

/**
 * What the holder page shows of a pass's kind, besides the card: a ticket's
 * event, date and venue, a coupon's offer, a boarding pass's route and times, each from the
 * kind's facts (a flight's code and number in its heading, a holder's passenger in its rows). The seat and
 * gate are face fields, which the card already shows with the holder's values.
 */
export interface KindDetails {
  /** The section's heading: the event, the offer, or the carrier and number of a trip. */
  heading: string;
  /** A boarding pass's origin → destination. */
  route: { from: Stop; to: Stop } | null;
  rows: DetailRow[];
  /** A festival's or a season ticket's events, in the pass's order; absent: none. */
  upcoming?: UpcomingRow[];
}

/** One upcoming event as the page lists it. */
export interface UpcomingRow {
  identifier: string;
  name: string;
  /** When, at the venue's clock: `Fri 10 July 2026, 18:00–23:30`. */
  when: string;
  /** Its start (ISO 8601), for `<time datetime>`. */
  dateTime: string;
  venue: string;
}

interface Stop {
  code: string;
  name: string;
}

export interface DetailRow {
  label: string;
  value: string;
  /** The ISO 8601 date-time a row stands for, for `<time datetime>`. */
  dateTime?: string;
}

/** A fact as a row: times at their own offset (the venue's or station's clock). */
function row(fact: KindFact): DetailRow {
  return {
    label: fact.label,
    value: factText(fact),
    ...(fact.time !== undefined ? { dateTime: fact.value } : {}),
  };
}

const rows = (...facts: (KindFact | undefined)[]): DetailRow[] =>
  facts.filter((fact) => fact !== undefined).map(row);

/** A trip's end: its code, and the place's name that labels it. */
const stop = (fact: KindFact): Stop => ({ code: fact.value, name: fact.label });

/** Each kind's section, or null for the kinds that are their card alone. */
const KIND_SECTIONS: { [K in PassType]: (kind: PassKindOf<K>) => KindDetails | null } = {
  storeCard: () => null,
  generic: () => null,
  eventTicket: ({ facts }) =>
    facts && {
      heading: facts.heading,
      route: null,
      rows: [
        ...rows(facts.date, facts.doors, facts.end),
        // The venue and its address together: where to go.
        {
          label: facts.venue.label,
          value: facts.address ? `${facts.venue.value}\n${facts.address.value}` : facts.venue.value,
        },
      ],
      ...(facts.upcoming !== undefined && facts.upcoming.length > 0
        ? {
            upcoming: facts.upcoming.map((event) => ({
              identifier: event.identifier,
              name: event.name,
              when: formatSpan(event.date.value, event.end?.value),
              dateTime: event.date.value,
              venue: event.venue.value,
            })),
          }
        : {}),
    },
  coupon: ({ facts }) =>
    facts && {
      heading: facts.heading,
      route: null,
      rows: rows(facts.provider, facts.redemption, facts.terms),
    },
  boardingPass: ({ facts }) =>
    facts && {
      heading: facts.heading,
      route: { from: stop(facts.origin), to: stop(facts.destination) },
      rows: rows(facts.passenger, facts.boarding, facts.departure, facts.arrival),
    },
};

/** The section of a pass's kind (`passKindOf(metadata, holder)`): a holder's own day included. */
export function kindDetails(kind: PassKind): KindDetails | null {
  return sectionOf(kind);
}

function sectionOf<K extends PassType>(kind: PassKindOf<K>): KindDetails | null {
  return KIND_SECTIONS[kind.type](kind);
}
