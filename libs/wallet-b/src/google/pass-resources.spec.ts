import { Holder, Pass, type PassMetadataDto } from '@app/passes';
import { classProblems, objectProblems } from '../../../../test/fakes/google-wallet-fake';
import { KIND_FIXTURES, KIND_NAMES } from '../../../../test/support/pass-kind-fixtures';
import { classTypeFor, saveLinkPayload } from './class-types';
import { localDateTime } from './kind-resources';
import {
  buildHolderObjectContent,
  buildObjectContent,
  buildPassClass,
  objectContentHash,
} from './pass-resources';
import type {
  ClassType,
  WalletClass,
  WalletObject,
  WalletObjectContent,
} from './wallet-objects.types';

const ISSUER = '3388000000012345678';
const IMAGES = {
  logoUrl: 'https://files.test/logo.png?sig=1',
  heroUrl: 'https://files.test/strip.png?sig=1',
};
const CALLBACK = 'https://wallet.test/callbacks/wallet-b';

function passOf(metadata: PassMetadataDto, overrides: Partial<Pass> = {}): Pass {
  return Object.assign(new Pass(), {
    id: 'pass-1',
    workspaceId: 'workspace-1',
    passName: 'Summer pass',
    status: 'Published',
    deletedTime: null,
    passMetadata: metadata,
    uploadInfoList: [
      { fileName: 'logo.png', uploadKey: 'logo-key' },
      { fileName: 'strip.png', uploadKey: 'strip-key' },
    ],
    ...overrides,
  });
}

function holderOf(fieldValues: Record<string, string>, overrides: Partial<Holder> = {}): Holder {
  return Object.assign(new Holder(), {
    id: 'holder-1',
    passId: 'pass-1',
    serialNumber: '0123456789abcdef0123456789abcdef',
    status: 'Active',
    fieldValues,
    barcodeValue: null,
    barcodeText: null,
    relevantDate: null,
    expirationDate: null,
    ...overrides,
  });
}

const kindPass = (name: keyof typeof KIND_FIXTURES, overrides: Partial<Pass> = {}) =>
  passOf(KIND_FIXTURES[name].metadata, overrides);
const classOf = (pass: Pass, type: ClassType = classTypeFor(pass.passMetadata)) =>
  buildPassClass(pass, type, ISSUER, IMAGES, CALLBACK) as unknown as Record<string, unknown>;
const objectOf = (pass: Pass, type: ClassType = classTypeFor(pass.passMetadata)) =>
  buildObjectContent(pass, type, IMAGES) as unknown as Record<string, unknown>;
const holderObjectOf = (pass: Pass, holder: Holder) =>
  buildHolderObjectContent(
    pass,
    classTypeFor(pass.passMetadata),
    holder,
    IMAGES,
  ) as unknown as Record<string, unknown>;
const en = (value: string) => ({ defaultValue: { language: 'en', value } });

describe('WalletB resources of every kind of pass', () => {
  it('maps each kind to its class type', () => {
    expect(classTypeFor({})).toBe('loyalty');
    expect(classTypeFor({ passType: 'storeCard' })).toBe('loyalty');
    for (const name of KIND_NAMES) {
      expect(classTypeFor(KIND_FIXTURES[name].metadata)).toBe(KIND_FIXTURES[name].classType);
    }
    const trip = KIND_FIXTURES.transit.metadata.transit;
    for (const transitType of ['train', 'bus', 'boat', 'generic'] as const) {
      expect(classTypeFor({ passType: 'boardingPass', transit: { ...trip, transitType } })).toBe(
        'transit',
      );
    }
  });

  it.each(KIND_NAMES)(
    'builds the class and objects of a %s pass with all Google requires of their type',
    (name) => {
      const pass = kindPass(name);
      const type = KIND_FIXTURES[name].classType;
      const object = {
        id: `${ISSUER}.o`,
        classId: `${ISSUER}.pass-1`,
        ...objectOf(pass),
      };
      const holder = {
        id: `${ISSUER}.h`,
        classId: `${ISSUER}.pass-1`,
        ...holderObjectOf(pass, holderOf({ seat: '12C', passenger: 'Maya Rivera' })),
      };
      expect(classProblems(type, classOf(pass))).toEqual([]);
      expect(objectProblems(type, object)).toEqual([]);
      expect(objectProblems(type, holder)).toEqual([]);
      expect(Object.keys(saveLinkPayload(type, object as unknown as WalletObject))).toEqual([
        `${type}Objects`,
      ]);
    },
  );

  it('makes a store card a loyalty class: issuer, program, logo, colour, fields', () => {
    const pass = kindPass('storeCard');
    expect(classOf(pass)).toMatchObject({
      id: `${ISSUER}.pass-1`,
      issuerName: 'Brand Ltd',
      programName: 'Summer pass',
      programLogo: { sourceUri: { uri: IMAGES.logoUrl }, contentDescription: en('Brand Ltd logo') },
      reviewStatus: 'UNDER_REVIEW',
      hexBackgroundColor: '#102030',
      callbackOptions: { url: CALLBACK },
      textModulesData: [
        { id: 'points', header: 'Points', body: '100' },
        { id: 'tier', header: 'Tier', body: 'Gold' },
        { id: 'name', header: 'Member', body: 'Member' },
        { id: 'links', header: 'Links', body: 'Open daily' },
      ],
      linksModuleData: { uris: [{ uri: 'https://brand.example/stores', description: 'Stores' }] },
      enableSmartTap: true,
      redemptionIssuers: [ISSUER],
    });
    const object = objectOf(pass);
    expect(object).toEqual({
      state: 'ACTIVE',
      heroImage: { sourceUri: { uri: IMAGES.heroUrl }, contentDescription: en('Summer pass') },
      barcode: {
        type: 'QR_CODE',
        value: 'https://brand.example/member/1',
        alternateText: 'Member 1',
      },
      validTimeInterval: { end: { date: '2027-12-31T23:59:59+01:00' } },
      smartTapRedemptionValue: 'MEMBER-0001',
    });
  });

  it("shows a holder's own values of fields keyed like Object.prototype members, and no others", () => {
    const metadata = KIND_FIXTURES.storeCard.metadata;
    const pass = passOf({
      ...metadata,
      secondaryFields: [
        { key: 'constructor', label: 'Level', value: 'Basic' },
        { key: 'toString', label: 'Note', value: '-' },
      ],
    });
    expect(holderObjectOf(pass, holderOf({ constructor: 'Gold' })).textModulesData).toEqual([
      { id: 'constructor', header: 'Level', body: 'Gold' },
    ]);
  });

  it("hands Smart Tap terminals the holder's own NFC message, ASCII only, and nothing without NFC", () => {
    const pass = kindPass('storeCard');
    expect(holderObjectOf(pass, holderOf({})).smartTapRedemptionValue).toBe('MEMBER-0001');
    expect(
      holderObjectOf(pass, holderOf({}, { nfcMessage: 'MEMBER-0042' })).smartTapRedemptionValue,
    ).toBe('MEMBER-0042');
    // Google carries ASCII only: WalletA's terminals still read this one, Google's none.
    expect(holderObjectOf(pass, holderOf({}, { nfcMessage: 'MITGLIED-Ä1' }))).not.toHaveProperty(
      'smartTapRedemptionValue',
    );
    const { nfc, ...withoutNfc } = KIND_FIXTURES.storeCard.metadata;
    expect(nfc).toBeDefined();
    const plain = passOf(withoutNfc);
    expect(classOf(plain)).not.toHaveProperty('enableSmartTap');
    expect(classOf(plain)).not.toHaveProperty('redemptionIssuers');
    expect(objectOf(plain)).not.toHaveProperty('smartTapRedemptionValue');
    expect(holderObjectOf(plain, holderOf({}, { nfcMessage: 'MEMBER-0042' }))).not.toHaveProperty(
      'smartTapRedemptionValue',
    );
  });

  it('makes a coupon an offer class, with its barcode format', () => {
    const pass = kindPass('coupon');
    expect(classOf(pass)).toMatchObject({
      issuerName: 'Brand Ltd',
      title: '20 % off your next visit',
      provider: 'Brand Ltd',
      redemptionChannel: 'BOTH',
      finePrint: 'One per customer.',
      titleImage: { sourceUri: { uri: IMAGES.logoUrl } },
      reviewStatus: 'UNDER_REVIEW',
    });
    expect(objectOf(pass).barcode).toEqual({ type: 'CODE_128', value: 'SAVE20-0001' });
    for (const [channel, google] of [
      ['instore', 'INSTORE'],
      ['online', 'ONLINE'],
    ] as const) {
      const metadata = KIND_FIXTURES.coupon.metadata;
      const other = passOf({
        ...metadata,
        offer: { ...metadata.offer, redemptionChannel: channel },
      });
      expect(classOf(other).redemptionChannel).toBe(google);
    }
  });

  it('writes each barcode format as Google names it', () => {
    const generic = KIND_FIXTURES.generic.metadata as PassMetadataDto;
    for (const [format, type] of [
      ['QR', 'QR_CODE'],
      ['PDF417', 'PDF_417'],
      ['Aztec', 'AZTEC'],
      ['Code128', 'CODE_128'],
    ] as const) {
      const pass = passOf({ ...generic, barcodeFormat: format, qrUrl: 'ABC-1' });
      expect(objectOf(pass).barcode).toEqual({ type, value: 'ABC-1' });
    }
  });

  it("writes iOS 27's formats as Google's own types where the value fits, else the fallback's", () => {
    const generic = KIND_FIXTURES.generic.metadata as PassMetadataDto;
    for (const [format, fallback, value, type] of [
      ['EAN13', 'QR', '4006381333931', 'EAN_13'],
      ['Code39', 'QR', 'STAFF-0042', 'CODE_39'],
      ['Codabar', 'Code128', 'A40156B', 'CODABAR'],
      // ITF_14 is a GTIN-14: 14 digits ending in their check digit.
      ['ITF', 'QR', '15400141288763', 'ITF_14'],
      ['ITF', 'Code128', '1234567890', 'CODE_128'],
      ['ITF', 'QR', '15400141288764', 'QR_CODE'],
      // A holder's value written before the pass became an EAN13 pass.
      ['EAN13', 'Code128', 'M-7', 'CODE_128'],
    ] as const) {
      const pass = passOf({
        ...generic,
        barcodeFormat: format,
        barcodeFallbackFormat: fallback,
        qrUrl: value,
      });
      expect(objectOf(pass).barcode).toEqual({ type, value });
    }
  });

  it("makes an event ticket an eventTicket class; a holder's seat fills its seat info", () => {
    const pass = kindPass('eventTicket');
    expect(classOf(pass)).toMatchObject({
      issuerName: 'Brand Ltd',
      eventName: en('Summer Gala'),
      venue: { name: en('Riverside Hall'), address: en('1 River Street, Springfield') },
      dateTime: {
        start: '2026-07-01T19:30:00+02:00',
        end: '2026-07-01T23:00:00+02:00',
        doorsOpen: '2026-07-01T18:30:00+02:00',
      },
      logo: { sourceUri: { uri: IMAGES.logoUrl } },
    });
    // The pass's own values show until a holder has its own.
    expect(objectOf(pass).seatInfo).toEqual({
      seat: en('-'),
      row: en('-'),
      section: en('Floor'),
      gate: en('A'),
    });
    const holder = holderObjectOf(pass, holderOf({ seat: '12', row: 'F', name: 'Maya Rivera' }));
    expect(holder).toMatchObject({
      seatInfo: { seat: en('12'), row: en('F'), section: en('Floor'), gate: en('A') },
      textModulesData: [
        { id: 'row', header: 'Row', body: 'F' },
        { id: 'seat', header: 'Seat', body: '12' },
      ],
    });
    // `name` is not a face field of this pass, so it names no one.
    expect(holder).not.toHaveProperty('ticketHolderName');
  });

  it("tells a holder's own day on its object; the class keeps the pass's day for the rest", () => {
    const pass = kindPass('eventTicket');
    const holder = holderOf({ seat: '12' }, { relevantDate: '2026-07-02T19:30:00+02:00' });
    const object = holderObjectOf(pass, holder);
    expect(object.textModulesData).toEqual([
      { id: 'seat', header: 'Seat', body: '12' },
      // At the venue's clock, as the holder page shows it.
      { id: 'event.start', header: 'Date', body: 'Thu 2 July 2026, 19:30' },
    ]);
    // No time of the pass's day on the holder's object.
    expect(JSON.stringify(object)).not.toContain('2026-07-01');
    expect(JSON.stringify(object)).not.toContain('1 July');
    // A holder without a day of its own has the class's date only.
    expect(holderObjectOf(pass, holderOf({ seat: '12' })).textModulesData).toEqual([
      { id: 'seat', header: 'Seat', body: '12' },
    ]);
    // The class is every holder's: the pass's own schedule.
    expect(classOf(pass)).toMatchObject({
      dateTime: { start: '2026-07-01T19:30:00+02:00', doorsOpen: '2026-07-01T18:30:00+02:00' },
    });
  });

  it("gives an event without a venue address the venue's name as a text module", () => {
    const metadata = KIND_FIXTURES.eventTicket.metadata;
    const pass = passOf({ ...metadata, event: { ...metadata.event, venueAddress: undefined } });
    const resource = classOf(pass);
    expect(resource).not.toHaveProperty('venue');
    expect(resource.textModulesData).toContainEqual({
      id: 'event.venueName',
      body: 'Riverside Hall',
    });
  });

  it("dates a festival's class by its next event and lists every event as a text module", () => {
    const pass = kindPass('festival');
    const at = (iso: string) =>
      buildPassClass(pass, 'eventTicket', ISSUER, IMAGES, CALLBACK, new Date(iso)) as unknown as {
        dateTime: unknown;
        textModulesData: unknown[];
      };
    const before = at('2026-07-01T00:00:00Z');
    expect(classProblems('eventTicket', before as unknown as Record<string, unknown>)).toEqual([]);
    // The festival's doors are not this event's: only its start and end.
    expect(before.dateTime).toEqual({
      start: '2026-07-10T18:00:00+02:00',
      end: '2026-07-10T23:30:00+02:00',
    });
    expect(at('2026-07-11T09:00:00+02:00').dateTime).toEqual({
      start: '2026-07-11T14:00:00+02:00',
      end: '2026-07-11T18:00:00+02:00',
    });
    // All past: the last event's date, which Google shows as past.
    expect(at('2026-08-01T00:00:00Z').dateTime).toEqual({ start: '2026-07-12T20:00:00+02:00' });
    expect(before.textModulesData).toEqual([
      { id: 'pass', header: 'Pass', body: 'Weekend' },
      {
        id: 'event.upcoming.0',
        header: 'Opening night',
        body: 'Fri 10 July 2026, 18:00–23:30\nMain Stage',
      },
      {
        id: 'event.upcoming.1',
        header: 'Jazz afternoon',
        body: 'Sat 11 July 2026, 14:00–18:00\nRiverside Park',
      },
      {
        id: 'event.upcoming.2',
        header: 'Closing concert',
        body: 'Sun 12 July 2026, 20:00\nRiverside Park',
      },
    ]);
    // Objects do not carry the events: the class shows them to every holder, and an object's
    // content (hashed to skip unchanged objects) does not change with the clock.
    expect(JSON.stringify(objectOf(pass))).not.toContain('Opening night');
  });

  it('makes an air boarding pass a flight class, with local times and IATA codes', () => {
    const pass = kindPass('flight');
    expect(classOf(pass)).toMatchObject({
      issuerName: 'Brand Ltd',
      flightHeader: {
        carrier: { carrierIataCode: 'BA', airlineName: en('Brand Air') },
        flightNumber: '123',
      },
      origin: { airportIataCode: 'LHR', airportNameOverride: en('London Heathrow') },
      destination: { airportIataCode: 'SFO', airportNameOverride: en('San Francisco') },
      localScheduledDepartureDateTime: '2026-05-01T08:00:00',
      localScheduledArrivalDateTime: '2026-05-01T11:10:00',
    });
    expect(objectOf(pass)).toMatchObject({
      passengerName: 'Guest',
      reservationInfo: { confirmationCode: 'ABC123' },
      boardingAndSeatingInfo: { seatNumber: '-', boardingGroup: '1' },
      barcode: { type: 'PDF_417' },
    });
    expect(holderObjectOf(pass, holderOf({ passenger: 'RIVERA/MAYA', seat: '12C' }))).toMatchObject(
      {
        passengerName: 'RIVERA/MAYA',
        boardingAndSeatingInfo: { seatNumber: '12C', boardingGroup: '1' },
      },
    );

    const metadata = KIND_FIXTURES.flight.metadata;
    const icao = passOf({ ...metadata, transit: { ...metadata.transit, number: 'ezy 8751' } });
    expect(classOf(icao).flightHeader as object).toEqual({
      carrier: { carrierIcaoCode: 'EZY', airlineName: en('Brand Air') },
      flightNumber: '8751',
    });
    // Without a passenger field a flight object still names one, as Google requires.
    const nobody = passOf({ ...metadata, auxiliaryFields: [] });
    expect(objectOf(nobody)).toMatchObject({ passengerName: 'Summer pass', reservationInfo: {} });
  });

  it('writes local date-times without an offset, with seconds and at most milliseconds', () => {
    expect(localDateTime('2026-05-01T08:00:00+01:00')).toBe('2026-05-01T08:00:00');
    expect(localDateTime('2026-05-01T08:00Z')).toBe('2026-05-01T08:00:00');
    expect(localDateTime('2026-05-01T08:00:05.123456-07:00')).toBe('2026-05-01T08:00:05.123');
  });

  it.each([
    ['train', 'RAIL'],
    ['bus', 'BUS'],
    ['boat', 'FERRY'],
    ['generic', 'OTHER'],
  ] as const)('makes a %s boarding pass a transit class of type %s, one way', (mode, google) => {
    const metadata = KIND_FIXTURES.transit.metadata;
    const pass = passOf({ ...metadata, transit: { ...metadata.transit, transitType: mode } });
    expect(classOf(pass)).toMatchObject({
      issuerName: 'Brand Ltd',
      transitType: google,
      logo: { sourceUri: { uri: IMAGES.logoUrl } },
      transitOperatorName: en('Brand Shuttle'),
    });
    expect(objectOf(pass)).toMatchObject({
      tripType: 'ONE_WAY',
      passengerNames: 'Guest',
      ticketLeg: {
        originStationCode: 'AIR',
        originName: en('Airport'),
        destinationStationCode: 'CTY',
        destinationName: en('City centre'),
        departureDateTime: '2026-05-01T09:00:00+01:00',
        arrivalDateTime: '2026-05-01T09:45:00+01:00',
        carriage: '7',
        ticketSeat: { seat: 'Any' },
      },
      barcode: { type: 'AZTEC', value: 'SHUTTLE-0001' },
    });
  });

  it('keeps a generic class as it was: title, header, logo and colour on the object', () => {
    const pass = kindPass('generic');
    const resource = classOf(pass);
    expect(resource).not.toHaveProperty('issuerName');
    expect(resource).not.toHaveProperty('reviewStatus');
    expect(objectOf(pass)).toEqual({
      state: 'ACTIVE',
      cardTitle: en('Brand Ltd'),
      header: en('Summer pass'),
      logo: { sourceUri: { uri: IMAGES.logoUrl }, contentDescription: en('Brand Ltd logo') },
      heroImage: { sourceUri: { uri: IMAGES.heroUrl }, contentDescription: en('Summer pass') },
      hexBackgroundColor: '#102030',
      barcode: { type: 'QR_CODE', value: 'https://brand.example/staff/1' },
    });
    // A pass Published before class types existed keeps a generic class, whatever its kind.
    expect(classProblems('generic', classOf(kindPass('storeCard'), 'generic'))).toEqual([]);
    expect(objectOf(kindPass('storeCard'), 'generic')).toMatchObject({
      cardTitle: en('Brand Ltd'),
    });
  });

  it('takes expirationDate as the end of validity, and leaves relevantDate out of it', () => {
    const ticket = objectOf(kindPass('eventTicket'));
    expect(ticket.validTimeInterval).toEqual({ end: { date: '2026-07-02T04:00:00+02:00' } });
    expect(objectOf(kindPass('flight'))).not.toHaveProperty('validTimeInterval');
  });

  it("gives a holder's object its own expirationDate as the end of validity", () => {
    const pass = kindPass('eventTicket');
    const dated = holderOf(
      {},
      { relevantDate: '2026-07-03T18:00:00+02:00', expirationDate: '2026-07-04T04:00:00+02:00' },
    );
    expect(holderObjectOf(pass, dated).validTimeInterval).toEqual({
      end: { date: '2026-07-04T04:00:00+02:00' },
    });
    // Without dates of its own, the pass's.
    expect(holderObjectOf(pass, holderOf({})).validTimeInterval).toEqual({
      end: { date: '2026-07-02T04:00:00+02:00' },
    });
    expect(holderObjectOf(kindPass('flight'), dated).validTimeInterval).toEqual({
      end: { date: '2026-07-04T04:00:00+02:00' },
    });
  });

  it('expires the objects of a deleted pass and of a Voided holder', () => {
    expect(objectOf(kindPass('coupon', { deletedTime: new Date() })).state).toBe('EXPIRED');
    const voided = holderOf({}, { status: 'Voided' });
    expect(holderObjectOf(kindPass('coupon'), voided).state).toBe('EXPIRED');
    expect(holderObjectOf(kindPass('coupon'), holderOf({})).state).toBe('ACTIVE');
  });

  it("gives a holder's object its barcode, and its values of any face field", () => {
    const pass = kindPass('transit');
    const holder = holderOf(
      { from: 'T5', passenger: 'Maya Rivera' },
      { barcodeValue: 'SHUTTLE-0042', barcodeText: '42' },
    );
    expect(holderObjectOf(pass, holder)).toMatchObject({
      barcode: { type: 'AZTEC', value: 'SHUTTLE-0042', alternateText: '42' },
      passengerNames: 'Maya Rivera',
      textModulesData: [
        { id: 'from', header: 'Airport', body: 'T5' },
        { id: 'passenger', header: 'Passenger', body: 'Maya Rivera' },
      ],
    });
  });

  it('lays the face out in at most three card rows: header, primary, the rest by three', () => {
    const field = (key: string) => ({ key, value: key });
    const metadata = {
      ...KIND_FIXTURES.eventTicket.metadata,
      topField: field('top'),
      headerFields: [field('h1')],
      primaryFields: [field('p1')],
      secondaryFields: [field('s1'), field('s2')],
      auxiliaryFields: [field('a1'), field('a2')],
    };
    const rows = (
      classOf(passOf(metadata)).classTemplateInfo as {
        cardTemplateOverride: { cardRowTemplateInfos: object[] };
      }
    ).cardTemplateOverride.cardRowTemplateInfos;
    expect(rows).toHaveLength(3);
    const text = JSON.stringify(rows);
    for (const key of ['top', 'h1', 'p1', 's1', 's2', 'a1']) expect(text).toContain(`'${key}'`);
    expect(text).not.toContain("'a2'");
    // Every face field is still in the details.
    expect(
      (classOf(passOf(metadata)).textModulesData as { id: string }[]).map((module) => module.id),
    ).toEqual(expect.arrayContaining(['top', 'h1', 'p1', 's1', 's2', 'a1', 'a2']));
  });

  it("hashes what objects show: kind details and labels count, fields' values do not", () => {
    const pass = kindPass('transit');
    const hash = objectContentHash(pass, 'transit');
    const metadata = KIND_FIXTURES.transit.metadata;
    const later = passOf({
      ...metadata,
      transit: { ...metadata.transit, departureTime: '2026-05-01T10:00:00+01:00' },
    });
    expect(objectContentHash(later, 'transit')).not.toBe(hash);
    const relabelled = passOf({
      ...metadata,
      primaryFields: [
        { ...metadata.primaryFields[0], label: 'Terminal' },
        metadata.primaryFields[1],
      ],
    });
    expect(objectContentHash(relabelled, 'transit')).not.toBe(hash);
    const revalued = passOf({
      ...metadata,
      primaryFields: [{ ...metadata.primaryFields[0], value: 'T5' }, metadata.primaryFields[1]],
    });
    expect(objectContentHash(revalued, 'transit')).toBe(hash);
    expect(objectContentHash(pass, 'generic')).not.toBe(hash);
  });

  it("sends the pass's localizations as translated values; a holder's own value has none", () => {
    const metadata = KIND_FIXTURES.storeCard.metadata;
    const pass = passOf({
      ...metadata,
      localizations: {
        de: {
          organizationName: 'Marke GmbH',
          passName: 'Sommerkarte',
          fields: { points: { label: 'Punkte', value: 'hundert' }, links: { label: 'Verweise' } },
        },
        fr: { fields: { points: { label: 'Points fidélité' } } },
      },
    });
    const translatedClass = classOf(pass);
    expect(translatedClass).toMatchObject({
      localizedIssuerName: {
        defaultValue: { language: 'en', value: 'Brand Ltd' },
        translatedValues: [{ language: 'de', value: 'Marke GmbH' }],
      },
      localizedProgramName: {
        defaultValue: { language: 'en', value: 'Summer pass' },
        translatedValues: [{ language: 'de', value: 'Sommerkarte' }],
      },
    });
    const modules = translatedClass.textModulesData as Record<string, unknown>[];
    expect(modules[0]).toEqual({
      id: 'points',
      header: 'Points',
      body: '100',
      localizedHeader: {
        defaultValue: { language: 'en', value: 'Points' },
        translatedValues: [
          { language: 'de', value: 'Punkte' },
          { language: 'fr', value: 'Points fidélité' },
        ],
      },
      localizedBody: {
        defaultValue: { language: 'en', value: '100' },
        translatedValues: [{ language: 'de', value: 'hundert' }],
      },
    });
    expect(modules.find((module) => module.id === 'links')).toMatchObject({
      localizedHeader: { translatedValues: [{ language: 'de', value: 'Verweise' }] },
    });
    expect(modules.find((module) => module.id === 'tier')).toEqual({
      id: 'tier',
      header: 'Tier',
      body: 'Gold',
    });
    const holderModules = buildHolderObjectContent(
      pass,
      'loyalty',
      holderOf({ points: '250' }),
      IMAGES,
    ).textModulesData;
    expect(holderModules).toEqual([
      expect.objectContaining({
        id: 'points',
        body: '250',
        localizedHeader: expect.anything() as unknown,
      }),
    ]);
    expect(holderModules?.[0]).not.toHaveProperty('localizedBody');
    // A generic object's title and header carry them too; the objects follow a new translation.
    expect(buildObjectContent(pass, 'generic', IMAGES)).toMatchObject({
      cardTitle: { translatedValues: [{ language: 'de', value: 'Marke GmbH' }] },
      header: { translatedValues: [{ language: 'de', value: 'Sommerkarte' }] },
    });
    expect(objectContentHash(pass, 'loyalty')).not.toBe(
      objectContentHash(kindPass('storeCard'), 'loyalty'),
    );
  });

  it('cleans display text in every payload', () => {
    const metadata = KIND_FIXTURES.coupon.metadata;
    const pass = passOf({ ...metadata, offer: { ...metadata.offer, title: 'Half\u202eoff' } });
    const resource: WalletClass = buildPassClass(pass, 'offer', ISSUER, IMAGES);
    const object: WalletObjectContent = buildObjectContent(pass, 'offer', IMAGES);
    expect(JSON.stringify(resource)).not.toContain('\u202e');
    expect(object.state).toBe('ACTIVE');
  });
});
