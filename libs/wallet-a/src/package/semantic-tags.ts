import {
  flightOf,
  ianaTimeZone,
  type Flight,
  type PassengerName,
  type PassKindOf,
  type RoleReader,
} from '@app/kinds';

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
  originalBoardingDate?: string;
  departureGate?: string;
  boardingGroup?: string;
  confirmationNumber?: string;
  /** Apple's PersonNameComponents. */
  passengerName?: PassengerName;
  // Airline boarding passes only.
  airlineCode?: string;
  flightCode?: string;
  /** A number: the digits of the flight code (`123` of `EX123`). */
  flightNumber?: number;
  departureAirportCode?: string;
  departureAirportName?: string;
  destinationAirportCode?: string;
  destinationAirportName?: string;
  /**
   * IANA names (iOS 26), such as `America/Chicago`, under both spellings with the same value:
   * Apple's semantic tags reference and the pass libraries write `…LocationTimeZone`, while
   * Apple's Pass Builder reads `…AirportTimeZone` (and refuses a semantic boarding pass without
   * the departure one).
   */
  departureLocationTimeZone?: string;
  destinationLocationTimeZone?: string;
  departureAirportTimeZone?: string;
  destinationAirportTimeZone?: string;
  // The semantic boarding pass's (iOS 26).
  departureCityName?: string;
  destinationCityName?: string;
  destinationGate?: string;
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

/** What a semantic boarding pass (iOS 26) shows that a classic one may lack. */
export interface SemanticFlight {
  flight: Flight & { iata: string };
  boarding: string;
  originTimeZone: string;
  destinationTimeZone: string;
  passengerName: PassengerName;
}

/**
 * A holder's flight that opts into iOS 26's semantic boarding pass: an air trip
 * with the airline's IATA code (Apple's `airlineCode` takes no ICAO one), its boarding time and
 * both ends' IANA time zones, on the copy of a holder with a passenger. Null: the classic
 * boarding pass, which the shared pass, having no passenger, always is.
 */
export function semanticFlight(kind: PassKindOf<'boardingPass'>): SemanticFlight | null {
  const { block: transit, schedule, passengerName } = kind;
  if (transit === null || transit.transitType !== 'air' || passengerName === null) return null;
  const flight = flightOf(transit);
  const originTimeZone = zoneOf(transit.origin.timeZone);
  const destinationTimeZone = zoneOf(transit.destination.timeZone);
  if (
    flight?.iata === undefined ||
    schedule.boarding === undefined ||
    originTimeZone === undefined ||
    destinationTimeZone === undefined
  ) {
    return null;
  }
  return {
    flight: { ...flight, iata: flight.iata },
    boarding: schedule.boarding,
    originTimeZone,
    destinationTimeZone,
    passengerName,
  };
}

/** A trip end's zone as the time zone database spells it; undefined when it has none. */
const zoneOf = (name: string | undefined): string | undefined =>
  name === undefined ? undefined : (ianaTimeZone(name) ?? undefined);

/**
 * A boarding pass's tags: the trip and its times (boarding included), the holder's gate, group,
 * booking and passenger, and per mode the airline's or the railway's own tags; the seat. A
 * flight's tags carry its airline code and number, and its ends' time zones when given; a
 * semantic boarding pass (`semanticFlight`) adds the cities and the arrival gate its layout
 * shows.
 */
export function tripTags(
  kind: PassKindOf<'boardingPass'>,
  value: RoleReader,
): SemanticTags | undefined {
  const { block: transit, schedule, passengerName } = kind;
  if (transit === null) return undefined;
  // A flight's carrier may be the airline's code, which is no company's name.
  const flight = transit.transitType === 'air' ? flightOf(transit) : null;
  const provider = transit.transitType === 'air' ? flight?.airlineName : transit.carrier;
  const tags: SemanticTags = {
    ...optional('transitProvider', provider || undefined),
    departureLocationDescription: transit.origin.name,
    destinationLocationDescription: transit.destination.name,
    ...optional('originalDepartureDate', schedule.start),
    ...optional('originalArrivalDate', schedule.end),
    ...optional('originalBoardingDate', schedule.boarding),
    ...optional('duration', schedule.durationSeconds),
    ...optional('departureGate', value('gate')),
    ...optional('boardingGroup', value('boardingGroup')),
    ...optional('confirmationNumber', value('confirmationCode')),
    ...(passengerName !== null
      ? {
          passengerName: {
            givenName: passengerName.givenName,
            familyName: passengerName.familyName,
          },
        }
      : {}),
  };
  if (transit.transitType === 'air') {
    // The IATA tags cannot take an ICAO designator (EZY); its flight number's digits still count.
    const semantic = semanticFlight(kind);
    return withSeat(
      {
        ...tags,
        ...(flight?.iata !== undefined
          ? { airlineCode: flight.iata, flightCode: `${flight.iata}${flight.digits}` }
          : {}),
        ...(flight !== null ? { flightNumber: Number(flight.digits) } : {}),
        departureAirportCode: transit.origin.code,
        departureAirportName: transit.origin.name,
        destinationAirportCode: transit.destination.code,
        destinationAirportName: transit.destination.name,
        ...zoneTags('departure', zoneOf(transit.origin.timeZone)),
        ...zoneTags('destination', zoneOf(transit.destination.timeZone)),
        ...(semantic !== null
          ? {
              departureCityName: transit.origin.name,
              destinationCityName: transit.destination.name,
              ...optional('destinationGate', value('arrivalGate')),
            }
          : {}),
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

/** A trip end's zone under both the names Apple documents and the names Pass Builder reads. */
function zoneTags(end: 'departure' | 'destination', zone: string | undefined): SemanticTags {
  return {
    ...optional(`${end}LocationTimeZone`, zone),
    ...optional(`${end}AirportTimeZone`, zone),
  };
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
