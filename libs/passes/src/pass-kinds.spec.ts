import { ConflictError, InvalidInputError, isIsoDateTime } from '@app/core';
import { flightOf, parseFlightNumber } from '@app/kinds';
import { assertPassKind, assertPassTypeKept, assertPosterArtwork, slotLimit } from './pass-kinds';

const field = (key: string, value = 'x') => ({ key, value });
const fields = (prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) => field(`${prefix}${i}`));

const EVENT = { name: 'Gala', venueName: 'Hall', startTime: '2026-05-01T19:30:00+02:00' };
const OFFER = { title: '10 % off', provider: 'Brand', redemptionChannel: 'both' } as const;
const TRANSIT = {
  transitType: 'bus',
  origin: { code: 'A', name: 'Airport' },
  destination: { code: 'C', name: 'City' },
  departureTime: '2026-05-01T08:00:00Z',
};
/**
 * The rules hold for stored metadata too, which no DTO has shaped: the cases are partial
 * metadata, as loose as stored JSON can be (every field of `KindMetadata` is optional).
 */

const BLOCKS: Record<string, object> = {
  storeCard: {},
  generic: {},
  coupon: { offer: OFFER },
  eventTicket: { event: EVENT },
  boardingPass: { transit: TRANSIT },
};

/** The context of the INVALID_INPUT the rules throw for `metadata`. */
function problems(metadata: object): Record<string, unknown> | undefined {
  try {
    assertPassKind(metadata);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidInputError);
    return (error as InvalidInputError).context;
  }
}

describe('pass kinds', () => {
  it('takes a pass that sends none of the new fields as a store card, as today', () => {
    expect(problems({ topField: field('points'), secondaryFields: fields('s', 4) })).toBe(
      undefined,
    );
  });

  it.each([
    ['storeCard', 'headerFields', 3],
    ['boardingPass', 'primaryFields', 2],
    ['eventTicket', 'primaryFields', 1],
    ['eventTicket', 'secondaryFields', 4],
    ['eventTicket', 'auxiliaryFields', 4],
    ['boardingPass', 'auxiliaryFields', 5],
  ] as const)('a %s holds %s up to its limit and names slot and limit past it', (type, slot, n) => {
    expect(slotLimit(type, slot)).toBe(n);
    const base = { passType: type, ...BLOCKS[type] };
    expect(problems({ ...base, [slot]: fields('f', n) })).toBe(undefined);
    expect(problems({ ...base, [slot]: fields('f', n + 1) })).toEqual({
      [`passMetadata.${slot}`]: `${type === 'eventTicket' ? 'an' : 'a'} ${type} has at most ${n} ${slot} (${n + 1} given)`,
    });
  });

  it('counts topField as a header field', () => {
    expect(problems({ topField: field('t'), headerFields: fields('h', 3) })).toEqual({
      'passMetadata.headerFields':
        'a storeCard has at most 3 headerFields, topField included (4 given)',
    });
  });

  it.each(['storeCard', 'coupon', 'generic'] as const)(
    'a %s has four secondary and auxiliary fields together',
    (type) => {
      const base = { passType: type, ...BLOCKS[type] };
      expect(
        problems({ ...base, secondaryFields: fields('s', 2), auxiliaryFields: fields('a', 2) }),
      ).toBe(undefined);
      expect(
        problems({ ...base, secondaryFields: fields('s', 3), auxiliaryFields: fields('a', 2) }),
      ).toEqual({
        'passMetadata.auxiliaryFields': `a ${type} has at most 4 secondaryFields and auxiliaryFields together (5 given)`,
      });
    },
  );

  it('lets an event ticket have four secondary and four auxiliary fields', () => {
    expect(
      problems({
        passType: 'eventTicket',
        event: EVENT,
        secondaryFields: fields('s', 4),
        auxiliaryFields: fields('a', 4),
      }),
    ).toBe(undefined);
  });

  it('keeps field keys unique across front and back', () => {
    expect(problems({ primaryFields: [field('seat')], backFields: [{ key: 'seat' }] })).toEqual({
      'passMetadata.backFields[0].key': 'is used by another field of the pass',
    });
    expect(problems({ topField: field('k'), auxiliaryFields: [field('k')] })).toEqual({
      'passMetadata.auxiliaryFields[0].key': 'is used by another field of the pass',
    });
  });

  it('wants an ISO 8601 date-time where a field has a date or time style', () => {
    const dated = { key: 'doors', dateStyle: 'short', value: '2026-05-01T19:30:00+02:00' };
    expect(problems({ secondaryFields: [dated] })).toBe(undefined);
    expect(
      problems({ secondaryFields: [{ ...dated, timeStyle: 'none', value: '1 May' }] }),
    ).toEqual({
      'passMetadata.secondaryFields[0].value':
        'must be an ISO 8601 date-time with its offset (e.g. 2026-05-01T19:30:00+02:00) when dateStyle or timeStyle is set',
    });
    expect(isIsoDateTime('2026-05-01T19:30:00')).toBe(false);
    expect(isIsoDateTime('2026-13-01T19:30:00Z')).toBe(false);
    expect(isIsoDateTime('2026-05-01T19:30:00.123Z')).toBe(true);
  });

  it('wants ISO 8601 date-times for relevantDate and expirationDate', () => {
    expect(
      problems({
        relevantDate: '2026-05-01T18:00:00Z',
        expirationDate: '2026-05-02T00:00:00+01:00',
      }),
    ).toBe(undefined);
    expect(problems({ expirationDate: 'tomorrow' })).toEqual({
      'passMetadata.expirationDate':
        'must be an ISO 8601 date-time with its offset (e.g. 2026-05-01T19:30:00+02:00)',
    });
  });

  it.each([
    ['eventTicket', 'event'],
    ['coupon', 'offer'],
    ['boardingPass', 'transit'],
  ] as const)('a %s needs its %s block', (type, block) => {
    expect(problems({ passType: type })).toEqual({
      [`passMetadata.${block}`]: `is required for ${type === 'eventTicket' ? 'an' : 'a'} ${type}`,
    });
  });

  it("refuses another style's block", () => {
    expect(problems({ passType: 'eventTicket', event: EVENT, offer: OFFER })).toEqual({
      'passMetadata.offer': 'is for a coupon, not an eventTicket',
    });
    expect(problems({ transit: TRANSIT })).toEqual({
      'passMetadata.transit': 'is for a boardingPass, not a storeCard',
    });
  });

  it('keeps a Code128 barcode to ASCII', () => {
    expect(problems({ barcodeFormat: 'Code128', qrUrl: 'MEMBER-123' })).toBe(undefined);
    expect(problems({ barcodeFormat: 'Code128', qrUrl: 'Café-123' })).toEqual({
      'passMetadata.qrUrl': 'must be ASCII text for a Code128 barcode',
    });
    expect(problems({ barcodeFormat: 'QR', qrUrl: 'Café-123' })).toBe(undefined);
  });

  it('reads a flight number as an IATA or ICAO airline code and one to four digits', () => {
    expect(parseFlightNumber('BA123')).toEqual({ iata: 'BA', digits: '123' });
    expect(parseFlightNumber('u2 8751')).toEqual({ iata: 'U2', digits: '8751' });
    expect(parseFlightNumber('EZY8751')).toEqual({ icao: 'EZY', digits: '8751' });
    expect(parseFlightNumber('B6123')).toEqual({ iata: 'B6', digits: '123' });
    for (const wrong of ['123', '12345', 'BA12345', 'BA', 'BA-123', 'BA12A', '']) {
      expect(parseFlightNumber(wrong)).toBeNull();
    }
  });

  it('wants a flight number and airport codes for an air trip, and only there', () => {
    const flight = {
      ...TRANSIT,
      transitType: 'air',
      number: 'BA123',
      origin: { code: 'LHR', name: 'London' },
      destination: { code: 'sfo', name: 'San Francisco' },
    };
    const boarding = (transit: object) => problems({ passType: 'boardingPass', transit });
    expect(boarding(flight)).toBe(undefined);
    expect(boarding({ ...flight, number: undefined })).toEqual({
      'passMetadata.transit.number':
        "is required for an air trip: the flight number, with the airline's code (LX318) or after a carrier code (carrier LX, number 318)",
    });
    expect(boarding({ ...flight, number: 'Flight 7' })).toHaveProperty([
      'passMetadata.transit.number',
    ]);
    expect(boarding({ ...flight, destination: { code: 'SFO1', name: 'x' } })).toEqual({
      'passMetadata.transit.destination.code':
        "must be the airport's three-letter IATA code for an air trip",
    });
    // A bus's stops have codes of any shape, and its number is free text.
    expect(boarding({ ...TRANSIT, number: 'Route 7 express' })).toBe(undefined);
  });

  it('takes a flight by carrier and number or by its number alone, as the same flight', () => {
    const flight = (carrier: string | undefined, number: string | undefined) =>
      problems({
        passType: 'boardingPass',
        transit: {
          ...TRANSIT,
          transitType: 'air',
          carrier,
          number,
          origin: { code: 'ZRH' },
          destination: { code: 'JFK' },
        },
      });
    for (const [carrier, number] of [
      ['LX', '318'],
      [undefined, 'LX318'],
      ['LX', 'LX318'],
      ['lx', 'lx 318'],
      ['SWR', '318'],
      // An IATA code beside an ICAO one: the flight has both.
      ['SWR', 'LX318'],
      // A longer carrier is the airline's name, beside a number that carries the code.
      ['Swiss', 'LX318'],
    ] as const) {
      expect(flight(carrier, number)).toBe(undefined);
    }
    expect(flight(undefined, '318')).toEqual({
      'passMetadata.transit.carrier':
        "must be the airline's IATA code (2 letters or digits) or ICAO code (3 letters) when transit.number has none (carrier LX, number 318)",
    });
    expect(flight('Swiss', '318')).toHaveProperty(['passMetadata.transit.carrier']);
    expect(flight('BA', 'LX318')).toEqual({
      'passMetadata.transit.carrier':
        'is BA but transit.number is a flight of LX: they must name the same airline',
    });
    expect(flight('EZY', 'SWR318')).toHaveProperty(['passMetadata.transit.carrier']);
    for (const shape of ['L', '12', 'L-X', 'LX1']) {
      expect(flight(shape, '318')).toEqual({
        'passMetadata.transit.carrier':
          "must be the airline's IATA code (2 letters or digits) or ICAO code (3 letters), e.g. LX",
      });
    }
    expect(flight('LX', '31A')).toHaveProperty(['passMetadata.transit.number']);
    expect(flight('LX', '12345')).toHaveProperty(['passMetadata.transit.number']);
  });

  it('reads a flight as its codes, digits and designator', () => {
    expect(flightOf({ carrier: 'LX', number: '318' })).toEqual({
      iata: 'LX',
      digits: '318',
      designator: 'LX318',
    });
    expect(flightOf({ number: 'LX318' })).toEqual(flightOf({ carrier: 'LX', number: '318' }));
    expect(flightOf({ carrier: 'SWR', number: 'LX 318' })).toEqual({
      iata: 'LX',
      icao: 'SWR',
      digits: '318',
      designator: 'LX318',
    });
    expect(flightOf({ carrier: 'easyJet', number: 'EZY8751' })).toEqual({
      icao: 'EZY',
      digits: '8751',
      airlineName: 'easyJet',
      designator: 'EZY8751',
    });
    expect(flightOf({ carrier: 'BA', number: 'LX318' })).toBeNull();
  });

  it("wants a trip's time zones as IANA names", () => {
    const zones = (origin: string | undefined, destination: string | undefined) =>
      problems({
        passType: 'boardingPass',
        transit: {
          ...TRANSIT,
          origin: { ...TRANSIT.origin, timeZone: origin },
          destination: { ...TRANSIT.destination, timeZone: destination },
        },
      });
    for (const zone of ['Europe/Zurich', 'America/Argentina/Buenos_Aires', 'UTC', 'Etc/UTC']) {
      expect(zones(zone, zone)).toBe(undefined);
    }
    // An alias is its zone; case is the database's.
    expect(zones('US/Eastern', 'europe/zurich')).toBe(undefined);
    for (const wrong of ['+01:00', 'CET+1', 'Europe/Atlantis', 'Zurich', '']) {
      expect(zones(wrong, undefined)).toEqual({
        'passMetadata.transit.origin.timeZone':
          'must be an IANA time zone name, such as Europe/Zurich (not an offset)',
      });
    }
    expect(zones('Europe/Zurich', 'GMT+2')).toHaveProperty([
      'passMetadata.transit.destination.timeZone',
    ]);
  });

  it("keeps a Published pass's passType", () => {
    const coupon = { passType: 'coupon' as const, offer: OFFER };
    expect(() => assertPassTypeKept('Draft', {}, coupon)).not.toThrow();
    expect(() => assertPassTypeKept('Published', coupon, coupon)).not.toThrow();
    expect(() => assertPassTypeKept('Published', { passType: 'storeCard' }, {})).not.toThrow();
    expect(() => assertPassTypeKept('Published', {}, coupon)).toThrow(ConflictError);
    try {
      assertPassTypeKept('Published', {}, coupon);
    } catch (error) {
      expect((error as ConflictError).context).toEqual({ passType: 'storeCard' });
    }
  });

  it('takes an artwork image on an eventTicket only with the venue and the NFC a poster needs', () => {
    const poster = (metadata: object, fileNames: string[]) => {
      try {
        assertPosterArtwork(metadata, fileNames);
        return undefined;
      } catch (error) {
        expect(error).toBeInstanceOf(InvalidInputError);
        return (error as InvalidInputError).context;
      }
    };
    const venue = { venueRegion: 'Springfield', venueRoom: 'Main Hall' };
    const nfc = { message: 'TICKET-1', encryptionPublicKey: 'key' };
    const ticket = { passType: 'eventTicket' as const, event: { ...EVENT, ...venue }, nfc };
    expect(poster(ticket, ['logo.png', 'artwork@3x.png'])).toBe(undefined);
    const withoutNfc =
      'is required with an artwork image: Wallet shows a poster event ticket only to a pass ' +
      'that terminals can read over NFC';
    expect(poster({ ...ticket, nfc: undefined }, ['artwork.png'])).toEqual({
      'passMetadata.nfc': withoutNfc,
    });
    // Without artwork, a ticket needs no more than before.
    expect(poster({ passType: 'eventTicket', event: EVENT }, ['logo.png'])).toBe(undefined);
    expect(poster({ passType: 'eventTicket', event: EVENT, nfc }, ['artwork.png'])).toEqual({
      'passMetadata.event.venueRegion':
        'is required with an artwork image: Wallet shows a poster event ticket only with it',
      'passMetadata.event.venueRoom':
        'is required with an artwork image: Wallet shows a poster event ticket only with it',
    });
    expect(
      poster({ passType: 'eventTicket', event: { ...EVENT, venueRegion: 'Springfield' } }, [
        'artwork@2x.png',
      ]),
    ).toEqual({
      'passMetadata.event.venueRoom':
        'is required with an artwork image: Wallet shows a poster event ticket only with it',
      'passMetadata.nfc': withoutNfc,
    });
    // The poster generic pass has no such requirement; on a kind without a poster, the artwork
    // is a brand image its package leaves out, not an error.
    expect(poster({ passType: 'generic' }, ['artwork.png'])).toBe(undefined);
    expect(poster({ passType: 'coupon', offer: OFFER }, ['artwork.png'])).toBe(undefined);
    expect(poster({}, ['artwork.png'])).toBe(undefined);
  });

  it("takes each featured action type once: it is the action's identifier", () => {
    const url = 'https://brand.example/benefits';
    const withActions = (featuredActions: { type: string; url: string }[]): object => ({
      featuredActions,
    });
    expect(
      problems(
        withActions([
          { type: 'membershipBenefits', url },
          { type: 'shop', url },
        ]),
      ),
    ).toBe(undefined);
    expect(
      problems(
        withActions([
          { type: 'shop', url },
          { type: 'shop', url: `${url}/2` },
        ]),
      ),
    ).toEqual({ 'passMetadata.featuredActions[1].type': 'is the type of another featured action' });
  });

  describe("a festival's or a season ticket's upcoming events", () => {
    const day = (n: number, changes: Record<string, unknown> = {}) => ({
      identifier: `day-${n}`,
      name: `Day ${n}`,
      startTime: `2026-07-${String(n).padStart(2, '0')}T18:00:00+02:00`,
      endTime: `2026-07-${String(n).padStart(2, '0')}T23:00:00+02:00`,
      ...changes,
    });
    const ticket = (upcoming: object[], passType = 'eventTicket' as const) => ({
      passType,
      event: { ...EVENT, upcoming },
    });

    it('takes up to 20 events with unique identifiers, an end at or after the start', () => {
      const twenty = Array.from({ length: 20 }, (_, i) => day(i + 1));
      expect(problems(ticket(twenty))).toBe(undefined);
      expect(problems(ticket([day(1, { endTime: undefined }), day(2)]))).toBe(undefined);
      expect(problems(ticket([day(1, { endTime: day(1).startTime })]))).toBe(undefined);
      expect(problems(ticket([...twenty, day(21)]))).toEqual({
        'passMetadata.event.upcoming': 'must have at most 20 events',
      });
    });

    it('names the entry of a duplicate identifier, a bad date or an end before the start', () => {
      expect(problems(ticket([day(1), day(2), day(3, { identifier: 'day-1' })]))).toEqual({
        'passMetadata.event.upcoming[2].identifier':
          'is used by another upcoming event of the pass',
      });
      expect(problems(ticket([day(1), day(2, { startTime: '11 July' })]))).toEqual({
        'passMetadata.event.upcoming[1].startTime':
          'must be an ISO 8601 date-time with its offset (e.g. 2026-05-01T19:30:00+02:00)',
      });
      expect(problems(ticket([day(1, { endTime: '2026-07-01T17:00:00+02:00' })]))).toEqual({
        'passMetadata.event.upcoming[0].endTime': 'must not be before its startTime',
      });
    });

    it('refuses them on any other kind, naming the upcoming field', () => {
      expect(
        problems({ passType: 'coupon', offer: OFFER, event: { ...EVENT, upcoming: [day(1)] } }),
      ).toEqual({ 'passMetadata.event.upcoming': 'is for an eventTicket, not a coupon' });
      // An event block without them is named as before.
      expect(problems({ passType: 'coupon', offer: OFFER, event: EVENT })).toEqual({
        'passMetadata.event': 'is for an eventTicket, not a coupon',
      });
    });
  });
});
