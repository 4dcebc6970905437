import type { PassKindOf, UpcomingEventFacts } from '@app/kinds';
import type { PassJsonField } from './pass-json-field';

/**
 * pass.json's `upcomingPassInformation` (iOS 26): the events of a festival or a season ticket,
 * each an `UpcomingPassInformationEntry`. Only keys confirmed against a first-party description
 * are written (docs/decisions.md, "Upcoming events"): Apple's WalletPasses reference
 * (`UpcomingPassInformationEntry`, its `DateInformation` and `BackFields`) as passkit-generator's
 * schema (3.5+) transcribes it, checked by `upcoming-events.spec.ts`:
 * - `type` (`"event"`, the one type Apple defines), `identifier` and `name`: required;
 * - `dateInformation.date`: the event's start (without it Wallet labels the entry "TBD");
 * - `semantics`: Apple's semantic tags of the entry (`eventStartDate`, `eventEndDate`,
 *   `venueName`, `venueLocation`);
 * - `backFields`: the entry's details view, which Wallet shows only when the entry has at least
 *   one back field (passkit-generator 3.5.3's changelog and its issue #249/PR #256).
 * Not written: `isActive` (it would make the package change with the clock), `URLs`, `images`,
 * `additionalInfoFields`, `auxiliaryStoreIdentifiers`, and `dateInformation.timeZone` (the API
 * takes offsets, not IANA zones).
 */
export interface UpcomingPassInformationEntry {
  type: 'event';
  identifier: string;
  name: string;
  dateInformation: { date: string };
  semantics: UpcomingSemantics;
  backFields: PassJsonField[];
}

/** The semantic tags of an entry: Apple's `SemanticTags` names. */
export interface UpcomingSemantics {
  eventStartDate: string;
  eventEndDate?: string;
  venueName: string;
  venueLocation?: { latitude: number; longitude: number };
}

const DATE_AND_TIME = { dateStyle: 'PKDateStyleMedium', timeStyle: 'PKDateStyleShort' } as const;

/**
 * The entries of a ticket's upcoming events, in the pass's order, from the kind's facts (so a
 * holder's own day, which has none, writes none); undefined when there are none.
 */
export function upcomingPassInformation({
  block: event,
  facts,
}: PassKindOf<'eventTicket'>): UpcomingPassInformationEntry[] | undefined {
  const upcoming = facts?.upcoming;
  if (event === null || upcoming === undefined || upcoming.length === 0) return undefined;
  const location =
    event.latitude !== undefined && event.longitude !== undefined
      ? { latitude: event.latitude, longitude: event.longitude }
      : undefined;
  return upcoming.map((entry) => ({
    type: 'event',
    identifier: entry.identifier,
    name: entry.name,
    dateInformation: { date: entry.date.value },
    semantics: {
      eventStartDate: entry.date.value,
      ...(entry.end !== undefined ? { eventEndDate: entry.end.value } : {}),
      venueName: entry.venue.value,
      // The ticket's location is this event's only when it is at the ticket's venue.
      ...(entry.atTicketVenue && location !== undefined ? { venueLocation: location } : {}),
    },
    backFields: backFields(entry),
  }));
}

/** The entry's details: its date, end and venue, dates in the holder's locale and time zone. */
function backFields(entry: UpcomingEventFacts): PassJsonField[] {
  return [entry.date, entry.end, entry.venue]
    .filter((fact) => fact !== undefined)
    .map((fact) => ({
      key: fact.key,
      label: fact.label,
      value: fact.value,
      ...(fact.time === 'dateTime' ? DATE_AND_TIME : {}),
    }));
}
