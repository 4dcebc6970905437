import {
  fieldRoleValue,
  parseFlightNumber,
  passTypeOf,
  type EventDto,
  type FieldRole,
  type PassMetadataDto,
  type TransitDto,
} from '@app/passes';

/**
 * pass.json's `semantics`: machine-readable facts Wallet and the system read (Siri suggestions,
 * Maps, live activities, the poster event ticket). Tag names and types are Apple's
 * (WalletPasses `SemanticTags`), checked against its reference; only the ones the API has
 * something for.
 */
export interface SemanticTags {
  // Event tickets.
  eventName?: string;
  eventType?: 'PKEventTypeGeneric';
  eventStartDate?: string;
  eventEndDate?: string;
  venueName?: string;
  venueRegionName?: string;
  venueRoom?: string;
  venueLocation?: { latitude: number; longitude: number };
  venueDoorsOpenDate?: string;
  venueEntranceGate?: string;
  attendeeName?: string;
  // Boarding passes of any kind.
  transitProvider?: string;
  departureLocationDescription?: string;
  destinationLocationDescription?: string;
  originalDepartureDate?: string;
  originalArrivalDate?: string;
  departureGate?: string;
  boardingGroup?: string;
  confirmationNumber?: string;
  // Airline boarding passes only.
  airlineCode?: string;
  flightCode?: string;
  /** A number: the digits of the flight code (`123` of `EX123`). */
  flightNumber?: number;
  departureAirportCode?: string;
  departureAirportName?: string;
  destinationAirportCode?: string;
  destinationAirportName?: string;
  // Train and other rail boarding passes only.
  departureStationName?: string;
  destinationStationName?: string;
  departurePlatform?: string;
  carNumber?: string;
  vehicleNumber?: string;
  // Both.
  /** Seconds the event or the journey lasts. */
  duration?: number;
  seats?: { seatSection?: string; seatRow?: string; seatNumber?: string }[];
}

export interface SemanticSource {
  metadata: PassMetadataDto;
  holder?: { fieldValues: Record<string, string>; relevantDate?: string | null };
  /** The pass opts into the poster event ticket (an eventTicket with artwork). */
  poster: boolean;
}

/** The pass's semantic tags, or undefined when its kind has none (store cards, coupons, generic). */
export function semanticTags(source: SemanticSource): SemanticTags | undefined {
  const { metadata } = source;
  const value = roleReader(metadata, source.holder?.fieldValues ?? {});
  let tags: SemanticTags;
  switch (passTypeOf(metadata)) {
    case 'eventTicket':
      if (!metadata.event) return undefined;
      tags = eventTags(metadata.event, value, source.holder?.relevantDate ?? null);
      if (source.poster) tags.eventType = 'PKEventTypeGeneric';
      break;
    case 'boardingPass':
      if (!metadata.transit) return undefined;
      tags = transitTags(metadata.transit, value);
      break;
    default:
      return undefined;
  }
  const seat = seatOf(value);
  if (seat !== undefined) tags.seats = [seat];
  return tags;
}

type RoleReader = (role: FieldRole) => string | undefined;

function roleReader(metadata: PassMetadataDto, values: Record<string, string>): RoleReader {
  return (role) => fieldRoleValue(metadata, values, role);
}

function seatOf(value: RoleReader): NonNullable<SemanticTags['seats']>[number] | undefined {
  const seat = {
    ...optional('seatSection', value('section')),
    ...optional('seatRow', value('row')),
    ...optional('seatNumber', value('seat')),
  };
  return Object.keys(seat).length > 0 ? seat : undefined;
}

/**
 * A holder's own day (`relevantDate`) is when its ticket's event starts, as its page shows it;
 * the pass's end and doors times belong to the pass's own day, so they are left out then.
 */
function eventTags(event: EventDto, value: RoleReader, holderDay: string | null): SemanticTags {
  const start = holderDay ?? event.startTime;
  return {
    eventName: event.name,
    eventStartDate: start,
    ...(holderDay === null
      ? {
          ...optional('eventEndDate', event.endTime),
          ...optional('venueDoorsOpenDate', event.doorsOpen),
          ...optional('duration', seconds(event.startTime, event.endTime)),
        }
      : {}),
    venueName: event.venueName,
    ...optional('venueRegionName', event.venueRegion),
    ...optional('venueRoom', event.venueRoom),
    ...(event.latitude !== undefined && event.longitude !== undefined
      ? { venueLocation: { latitude: event.latitude, longitude: event.longitude } }
      : {}),
    ...optional('venueEntranceGate', value('gate')),
    ...optional('attendeeName', value('person')),
  };
}

function transitTags(transit: TransitDto, value: RoleReader): SemanticTags {
  const tags: SemanticTags = {
    ...optional('transitProvider', transit.carrier || undefined),
    departureLocationDescription: transit.origin.name,
    destinationLocationDescription: transit.destination.name,
    originalDepartureDate: transit.departureTime,
    ...optional('originalArrivalDate', transit.arrivalTime),
    ...optional('duration', seconds(transit.departureTime, transit.arrivalTime)),
    ...optional('departureGate', value('gate')),
    ...optional('boardingGroup', value('boardingGroup')),
    ...optional('confirmationNumber', value('confirmationCode')),
  };
  if (transit.transitType === 'air') {
    // The IATA tags cannot take an ICAO designator (EZY); its flight number's digits still count.
    const flight = transit.number ? parseFlightNumber(transit.number) : null;
    return {
      ...tags,
      ...(flight !== null && 'iata' in flight
        ? { airlineCode: flight.iata, flightCode: `${flight.iata}${flight.digits}` }
        : {}),
      ...(flight !== null ? { flightNumber: Number(flight.digits) } : {}),
      departureAirportCode: transit.origin.code,
      departureAirportName: transit.origin.name,
      destinationAirportCode: transit.destination.code,
      destinationAirportName: transit.destination.name,
    };
  }
  if (transit.transitType === 'train') {
    return {
      ...tags,
      departureStationName: transit.origin.name,
      destinationStationName: transit.destination.name,
      ...optional('vehicleNumber', transit.number || undefined),
      ...optional('departurePlatform', value('platform')),
      ...optional('carNumber', value('coach')),
    };
  }
  return tags;
}

/** Whole seconds from `start` to `end`, when both are given and `end` is later. */
function seconds(start: string, end: string | undefined): number | undefined {
  if (end === undefined) return undefined;
  const ms = Date.parse(end) - Date.parse(start);
  return ms > 0 ? Math.round(ms / 1000) : undefined;
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return value === undefined ? {} : ({ [key]: value } as { [P in K]?: V });
}
