import { passKindOf, roleReader, type PassengerName } from '@app/kinds';
import { type PassMetadataDto, type TransitDto } from '@app/passes';
import { WALLET_A_KINDS } from '../../../../test/support/wallet-a-kinds';
import { passJsonKind } from './pass-json-kinds';

/** The tags pass.json gets for a pass's kind, or for a holder's copy of it. */
function semanticTags(source: {
  metadata: PassMetadataDto;
  holder?: {
    fieldValues: Record<string, string>;
    relevantDate?: string;
    passengerName?: { givenName: string; familyName: string };
  };
  poster: boolean;
}) {
  const kind = passKindOf(source.metadata, source.holder);
  return passJsonKind(kind).semantics(
    roleReader(source.metadata, source.holder?.fieldValues ?? {}),
    source.poster,
  );
}

const trip = (changes: Partial<TransitDto>): PassMetadataDto => ({
  ...WALLET_A_KINDS.flight.metadata,
  transit: { ...WALLET_A_KINDS.flight.metadata.transit, ...changes },
});

describe('semantic tags', () => {
  it("describe an event: name, dates, venue and where it is, the holder's seat and gate", () => {
    const kind = WALLET_A_KINDS.eventTicket;
    expect(semanticTags({ metadata: kind.metadata, poster: false })).toEqual({
      eventName: 'Summer Gala',
      eventStartDate: '2026-07-01T19:30:00+02:00',
      eventEndDate: '2026-07-01T23:00:00+02:00',
      venueDoorsOpenDate: '2026-07-01T18:30:00+02:00',
      duration: 12_600,
      venueName: 'Riverside Hall',
      venueRegionName: 'Springfield',
      venueRoom: 'Main Hall',
      venueLocation: { latitude: 48.8566, longitude: 2.3522 },
      venueEntranceGate: 'A',
      // The shared pass's own values, until a holder has its own.
      seats: [{ seatSection: 'Floor', seatRow: '-', seatNumber: '-' }],
    });
    const holder = { fieldValues: kind.holderValues, relevantDate: '2026-07-02T19:30:00+02:00' };
    const holderTags = semanticTags({ metadata: kind.metadata, holder, poster: true });
    expect(JSON.stringify(holderTags)).not.toContain('2026-07-01');
    expect(holderTags).toEqual({
      eventName: 'Summer Gala',
      eventType: 'PKEventTypeGeneric',
      // A holder's own day: the pass's end, doors and length belong to another day.
      eventStartDate: '2026-07-02T19:30:00+02:00',
      venueName: 'Riverside Hall',
      venueRegionName: 'Springfield',
      venueRoom: 'Main Hall',
      venueLocation: { latitude: 48.8566, longitude: 2.3522 },
      venueEntranceGate: 'C',
      seats: [{ seatSection: 'B', seatRow: '12', seatNumber: '7' }],
    });
  });

  it('leave out a venue location without both coordinates, and seats without seat fields', () => {
    const { event } = WALLET_A_KINDS.eventTicket.metadata;
    const tags = semanticTags({
      metadata: {
        ...WALLET_A_KINDS.eventTicket.metadata,
        event: { ...event, longitude: undefined },
        topField: undefined,
        secondaryFields: [],
      },
      poster: false,
    });
    expect(tags?.venueLocation).toBeUndefined();
    expect(tags?.seats).toBeUndefined();
    expect(tags?.venueEntranceGate).toBeUndefined();
  });

  it('describe a flight with its IATA codes, flight number and times', () => {
    const kind = WALLET_A_KINDS.flight;
    expect(
      semanticTags({
        metadata: kind.metadata,
        holder: { fieldValues: kind.holderValues },
        poster: false,
      }),
    ).toEqual({
      transitProvider: 'Brand Air',
      departureLocationDescription: 'London Heathrow',
      destinationLocationDescription: 'San Francisco',
      originalDepartureDate: '2026-05-01T08:00:00+01:00',
      originalArrivalDate: '2026-05-01T11:10:00-07:00',
      duration: 40_200,
      departureGate: 'B32',
      boardingGroup: '1',
      airlineCode: 'BA',
      flightCode: 'BA123',
      flightNumber: 123,
      departureAirportCode: 'LHR',
      departureAirportName: 'London Heathrow',
      destinationAirportCode: 'SFO',
      destinationAirportName: 'San Francisco',
      seats: [{ seatNumber: '14A' }],
    });
  });

  it('read a flight number as IATA (BA123, U2 8751) or ICAO (EZY8751), and nothing else', () => {
    const flight = (number: string | undefined) => {
      const tags = semanticTags({ metadata: trip({ number }), poster: false });
      return {
        airlineCode: tags?.airlineCode,
        flightCode: tags?.flightCode,
        flightNumber: tags?.flightNumber,
      };
    };
    expect(flight('U2 8751')).toEqual({
      airlineCode: 'U2',
      flightCode: 'U28751',
      flightNumber: 8751,
    });
    // An ICAO designator is no IATA airline code; the number's digits still count.
    expect(flight('EZY8751')).toEqual({
      airlineCode: undefined,
      flightCode: undefined,
      flightNumber: 8751,
    });
    for (const number of ['12 345', 'Shuttle 7', undefined]) {
      expect(flight(number)).toEqual({
        airlineCode: undefined,
        flightCode: undefined,
        flightNumber: undefined,
      });
    }
  });

  it('describe a train with its stations, train number, platform and coach', () => {
    const kind = WALLET_A_KINDS.train;
    const tags = semanticTags({
      metadata: kind.metadata,
      holder: { fieldValues: kind.holderValues },
      poster: false,
    });
    expect(tags).toMatchObject({
      transitProvider: 'Brand Rail',
      departureStationName: 'Frankfurt Hbf',
      destinationStationName: 'Köln Hbf',
      vehicleNumber: 'ICE 512',
      departurePlatform: '7',
      carNumber: '9',
      seats: [{ seatNumber: '55' }],
    });
    // Airport tags are for airline boarding passes only.
    expect(tags?.departureAirportCode).toBeUndefined();
    expect(tags?.flightNumber).toBeUndefined();
  });

  it('describe a bus or boat trip with what every boarding pass has, no station or airport', () => {
    const tags = semanticTags({
      metadata: trip({ transitType: 'bus', number: '7' }),
      poster: false,
    });
    expect(tags).toMatchObject({
      transitProvider: 'Brand Air',
      departureLocationDescription: 'London Heathrow',
      originalDepartureDate: '2026-05-01T08:00:00+01:00',
    });
    for (const key of ['departureAirportCode', 'departureStationName', 'vehicleNumber']) {
      expect(tags).not.toHaveProperty(key);
    }
  });

  it('give store cards, coupons and generic passes none', () => {
    for (const kind of [WALLET_A_KINDS.storeCard, WALLET_A_KINDS.coupon, WALLET_A_KINDS.generic]) {
      expect(semanticTags({ metadata: kind.metadata, poster: false })).toBeUndefined();
    }
  });

  it("give a holder's flight the semantic boarding pass's tags only with everything it shows", () => {
    const kind = WALLET_A_KINDS.semanticFlight;
    const holder = { fieldValues: kind.holderValues, passengerName: kind.passengerName };
    const tags = semanticTags({ metadata: kind.metadata, holder, poster: false });
    expect(tags).toMatchObject({
      airlineCode: 'LX',
      flightNumber: 318,
      originalBoardingDate: '2026-05-01T12:25:00+02:00',
      departureCityName: 'Zurich',
      destinationCityName: 'New York',
      departureLocationTimeZone: 'Europe/Zurich',
      destinationLocationTimeZone: 'America/New_York',
      departureGate: 'E44',
      destinationGate: 'B22',
      passengerName: { givenName: 'Maya', familyName: 'Rivera' },
    });
    // The carrier is a code: no company's name to tell.
    expect(tags).not.toHaveProperty('transitProvider');
    const schemes = (
      metadata: PassMetadataDto,
      passengerName: PassengerName | null = kind.passengerName,
    ) => passJsonKind(passKindOf(metadata, { passengerName })).styleSchemes(false);
    expect(schemes(kind.metadata)).toEqual(['semanticBoardingPass', 'boardingPass']);
    const transit = kind.metadata.transit;
    for (const classic of [
      { ...transit, boardingTime: undefined },
      { ...transit, origin: { code: 'ZRH', name: 'Zurich' } },
      // Apple's airlineCode is IATA: an ICAO-only flight stays classic.
      { ...transit, carrier: 'SWR' },
    ]) {
      expect(schemes({ ...kind.metadata, transit: classic })).toBeUndefined();
    }
    expect(schemes(kind.metadata, null)).toBeUndefined();
    const shared = semanticTags({ metadata: kind.metadata, poster: false });
    expect(shared).not.toHaveProperty('departureCityName');
    expect(shared).not.toHaveProperty('passengerName');
  });
});
