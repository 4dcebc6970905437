import { parseFlightNumber, type PassKindOf, type RoleReader } from '@app/passes';

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

/**
 * An event ticket's tags: the event, its times from the schedule (on a holder's own day its
 * start is that day, and the pass's end, doors and length, which belong to another day, are
 * absent), the venue and where it is, the holder's gate, name and seat; `eventType` for the
 * poster event ticket.
 */
export function eventTags(
  { block: event, schedule }: PassKindOf<'eventTicket'>,
  value: RoleReader,
  poster: boolean,
): SemanticTags | undefined {
  if (event === null) return undefined;
  return withSeat(
    {
      eventName: event.name,
      ...optional('eventStartDate', schedule.start),
      ...optional('eventEndDate', schedule.end),
      ...optional('venueDoorsOpenDate', schedule.doorsOpen),
      ...optional('duration', schedule.durationSeconds),
      venueName: event.venueName,
      ...optional('venueRegionName', event.venueRegion),
      ...optional('venueRoom', event.venueRoom),
      ...(event.latitude !== undefined && event.longitude !== undefined
        ? { venueLocation: { latitude: event.latitude, longitude: event.longitude } }
        : {}),
      ...optional('venueEntranceGate', value('gate')),
      ...optional('attendeeName', value('person')),
      ...(poster ? { eventType: 'PKEventTypeGeneric' as const } : {}),
    },
    value,
  );
}

/**
 * A boarding pass's tags: the trip and its times, the holder's gate, group and booking, and per
 * mode the airline's or the railway's own tags; the seat.
 */
export function tripTags(
  { block: transit, schedule }: PassKindOf<'boardingPass'>,
  value: RoleReader,
): SemanticTags | undefined {
  if (transit === null) return undefined;
  const tags: SemanticTags = {
    ...optional('transitProvider', transit.carrier || undefined),
    departureLocationDescription: transit.origin.name,
    destinationLocationDescription: transit.destination.name,
    ...optional('originalDepartureDate', schedule.start),
    ...optional('originalArrivalDate', schedule.end),
    ...optional('duration', schedule.durationSeconds),
    ...optional('departureGate', value('gate')),
    ...optional('boardingGroup', value('boardingGroup')),
    ...optional('confirmationNumber', value('confirmationCode')),
  };
  if (transit.transitType === 'air') {
    // The IATA tags cannot take an ICAO designator (EZY); its flight number's digits still count.
    const flight = transit.number ? parseFlightNumber(transit.number) : null;
    return withSeat(
      {
        ...tags,
        ...(flight !== null && 'iata' in flight
          ? { airlineCode: flight.iata, flightCode: `${flight.iata}${flight.digits}` }
          : {}),
        ...(flight !== null ? { flightNumber: Number(flight.digits) } : {}),
        departureAirportCode: transit.origin.code,
        departureAirportName: transit.origin.name,
        destinationAirportCode: transit.destination.code,
        destinationAirportName: transit.destination.name,
      },
      value,
    );
  }
  if (transit.transitType === 'train') {
    return withSeat(
      {
        ...tags,
        departureStationName: transit.origin.name,
        destinationStationName: transit.destination.name,
        ...optional('vehicleNumber', transit.number || undefined),
        ...optional('departurePlatform', value('platform')),
        ...optional('carNumber', value('coach')),
      },
      value,
    );
  }
  return withSeat(tags, value);
}

/** The tags with the holder's seat (its section, row and number fields), when it has one. */
function withSeat(tags: SemanticTags, value: RoleReader): SemanticTags {
  const seat = {
    ...optional('seatSection', value('section')),
    ...optional('seatRow', value('row')),
    ...optional('seatNumber', value('seat')),
  };
  return Object.keys(seat).length > 0 ? { ...tags, seats: [seat] } : tags;
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return value === undefined ? {} : ({ [key]: value } as { [P in K]?: V });
}
