import type { EventDto, OfferDto, PassMetadataDto, TransitDto } from '@app/passes';
import { REDEMPTION, TRANSIT_MODE } from '../package/kind-fields';

/**
 * What the holder page shows of a pass's kind (DESIGN.md §9), besides the card: a ticket's
 * event, date and venue, a coupon's offer, a boarding pass's route and times. The seat, gate or
 * passenger are face fields, which the card already shows with the holder's values.
 */
export interface KindDetails {
  /** The section's heading: the event, the offer, or the carrier and number of a trip. */
  heading: string;
  /** A boarding pass's origin → destination. */
  route: { from: Stop; to: Stop } | null;
  rows: DetailRow[];
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

/** What the details read of a pass and of a holder's copy. */
export interface KindSource {
  metadata: Pick<PassMetadataDto, 'passType' | 'event' | 'offer' | 'transit'>;
  /** A holder's own day (`relevantDate`): a ticket for that day shows it as its date. */
  holderDate?: string | null;
}

/** Null for the kinds that are their card alone (store cards and generic passes). */
export function kindDetails({ metadata, holderDate }: KindSource): KindDetails | null {
  switch (metadata.passType) {
    case 'eventTicket':
      return metadata.event ? eventDetails(metadata.event, holderDate ?? null) : null;
    case 'coupon':
      return metadata.offer ? offerDetails(metadata.offer) : null;
    case 'boardingPass':
      return metadata.transit ? transitDetails(metadata.transit) : null;
    default:
      return null;
  }
}

function eventDetails(event: EventDto, holderDate: string | null): KindDetails {
  const start = holderDate ?? event.startTime;
  const rows: DetailRow[] = [{ label: 'Date', value: formatDateTime(start), dateTime: start }];
  if (event.doorsOpen) {
    rows.push({ label: 'Doors', value: formatTime(event.doorsOpen), dateTime: event.doorsOpen });
  }
  if (event.endTime && holderDate == null) {
    rows.push({ label: 'Ends', value: formatDateTime(event.endTime), dateTime: event.endTime });
  }
  rows.push({
    label: 'Venue',
    value: event.venueAddress ? `${event.venueName}\n${event.venueAddress}` : event.venueName,
  });
  return { heading: event.name, route: null, rows };
}

function offerDetails(offer: OfferDto): KindDetails {
  const rows: DetailRow[] = [
    { label: 'From', value: offer.provider },
    { label: 'Redeem', value: REDEMPTION[offer.redemptionChannel] },
  ];
  if (offer.finePrint) rows.push({ label: 'Terms', value: offer.finePrint });
  return { heading: offer.title, route: null, rows };
}

function transitDetails(transit: TransitDto): KindDetails {
  const rows: DetailRow[] = [
    {
      label: 'Departs',
      value: formatDateTime(transit.departureTime),
      dateTime: transit.departureTime,
    },
  ];
  if (transit.arrivalTime) {
    rows.push({
      label: 'Arrives',
      value: formatDateTime(transit.arrivalTime),
      dateTime: transit.arrivalTime,
    });
  }
  const heading = [TRANSIT_MODE[transit.transitType], transit.carrier, transit.number]
    .filter((part) => part !== undefined && part !== '')
    .join(' ');
  return { heading, route: { from: transit.origin, to: transit.destination }, rows };
}

/**
 * An ISO 8601 date-time as the wall-clock time at its own offset: a ticket's door time is the
 * venue's, a departure the station's, whatever time zone the reader's browser is in (Wallet on
 * the phone converts to the device's zone itself).
 */
function wallClock(iso: string): Date {
  const offset = /([+-])(\d{2}):(\d{2})$/.exec(iso);
  const minutes = offset
    ? (offset[1] === '-' ? -1 : 1) * (Number(offset[2]) * 60 + Number(offset[3]))
    : 0;
  return new Date(Date.parse(iso) + minutes * 60_000);
}

const DATE_TIME = new Intl.DateTimeFormat('en-GB', {
  weekday: 'short',
  day: 'numeric',
  month: 'long',
  year: 'numeric',
  timeZone: 'UTC',
});

/** `Fri 1 May 2026, 19:30`, put together from its parts: ICU's own joining differs by version. */
export function formatDateTime(iso: string): string {
  const part: Partial<Record<Intl.DateTimeFormatPartTypes, string>> = {};
  for (const { type, value } of DATE_TIME.formatToParts(wallClock(iso))) part[type] = value;
  return `${part.weekday} ${part.day} ${part.month} ${part.year}, ${formatTime(iso)}`;
}

function formatTime(iso: string): string {
  const date = wallClock(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}`;
}
