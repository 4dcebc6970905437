import { FEATURED_ACTION_TYPES, type Pass, type PassMetadataDto } from '@app/passes';
import {
  WALLET_A_KIND_NAMES,
  WALLET_A_KINDS,
  type WalletAKindName,
} from '../../../../test/support/wallet-a-kinds';
import { buildPassJson, type PassJsonContext, type PassJsonHolder } from './pass-json';

const pass = {
  id: 'pass-1',
  deletedTime: null,
  passMetadata: {
    organizationName: 'Brand',
    description: 'Card',
    topField: { key: 'points', label: 'Points', value: '0', changeMessage: 'Now %@' },
    secondaryFields: [
      { key: 'tier', label: 'Tier', value: 'Basic' },
      { key: 'city', label: 'City', value: 'Paris' },
    ],
    qrUrl: 'https://brand.example/q',
    qrText: 'Q',
  },
} as unknown as Pass;

const context: PassJsonContext = {
  passTypeIdentifier: 'pass.example',
  teamIdentifier: 'TEAM',
  webServiceURL: 'https://wallet.test/passkit',
  authenticationToken: 'token-token-token',
  locations: [],
};

type Card = Record<string, { key: string; value: string; changeMessage?: string }[]>;

describe("a holder's pass.json", () => {
  it("puts the holder's values into the fields' values, keeping their changeMessage", () => {
    const json = buildPassJson(pass, {
      ...context,
      holder: {
        serialNumber: 'abc123',
        fieldValues: { points: '42', city: 'Lyon' },
        barcodeValue: 'member-7',
        barcodeText: null,
        voided: false,
      },
    });
    expect(json.serialNumber).toBe('abc123');
    const card = json.storeCard as Card;
    expect(card.headerFields).toEqual([
      { key: 'points', label: 'Points', value: '42', changeMessage: 'Now %@' },
    ]);
    expect(card.secondaryFields.map((field) => field.value)).toEqual(['Basic', 'Lyon']);
    // Barcode text not set: the pass's.
    expect(json.barcodes).toEqual([expect.objectContaining({ message: 'member-7', altText: 'Q' })]);
    expect(json.voided).toBeUndefined();
  });

  it('declares ISO-8859-1 for a barcode message it holds, UTF-8 for any other', () => {
    const barcodeOf = (barcodeValue: string) =>
      (
        buildPassJson(pass, {
          ...context,
          holder: {
            serialNumber: 'abc',
            fieldValues: {},
            barcodeValue,
            barcodeText: null,
            voided: false,
          },
        }).barcodes as { message: string; messageEncoding: string }[]
      )[0];
    expect(barcodeOf('member-7')).toMatchObject({ messageEncoding: 'iso-8859-1' });
    expect(barcodeOf('Café 10442')).toMatchObject({ messageEncoding: 'iso-8859-1' });
    // Wallet cannot convert these to ISO-8859-1 and would show no barcode at all.
    expect(barcodeOf('Жанна 10442')).toEqual(
      expect.objectContaining({ message: 'Жанна 10442', messageEncoding: 'utf-8' }),
    );
    expect(barcodeOf('Member 😀')).toMatchObject({ messageEncoding: 'utf-8' });
    // The shared pass's own barcode (a URL may hold any character) follows the same rule.
    const shared = buildPassJson(
      { ...pass, passMetadata: { ...pass.passMetadata, qrUrl: 'https://пример.рф/q' } },
      context,
    );
    expect(shared.barcodes).toEqual([
      expect.objectContaining({ message: 'https://пример.рф/q', messageEncoding: 'utf-8' }),
    ]);
  });

  it("is voided for a voided holder, and the shared pass's is unchanged", () => {
    const voided = buildPassJson(pass, {
      ...context,
      holder: {
        serialNumber: 'abc123',
        fieldValues: {},
        barcodeValue: null,
        barcodeText: null,
        voided: true,
      },
    });
    expect(voided.voided).toBe(true);
    expect(voided.barcodes).toEqual([
      expect.objectContaining({ message: 'https://brand.example/q', altText: 'Q' }),
    ]);
    const shared = buildPassJson(pass, context);
    expect(shared.serialNumber).toBe('pass-1');
    expect((shared.storeCard as Card).headerFields[0].value).toBe('0');
  });
});

/** A pass of `kind`, with the images named (an artwork makes a ticket a poster). */
const passOf = (metadata: PassMetadataDto, images: string[] = ['logo.png']): Pass =>
  ({
    id: 'pass-1',
    deletedTime: null,
    passMetadata: metadata,
    uploadInfoList: images.map((fileName) => ({ fileName, uploadKey: `key-${fileName}` })),
  }) as unknown as Pass;

const holderOf = (values: Record<string, string>, dates: Partial<PassJsonHolder> = {}) => ({
  serialNumber: 'holder-1',
  fieldValues: values,
  barcodeValue: null,
  barcodeText: null,
  voided: false,
  ...dates,
});

interface Field {
  key: string;
  label?: string;
  value: string;
  changeMessage?: string;
  dateStyle?: string;
  timeStyle?: string;
}
type Structure = Record<string, Field[]> & { transitType?: string };
const keys = (fields: Field[] | undefined) => (fields ?? []).map((field) => field.key);

describe('barcodes of iOS 27', () => {
  const ean13 = { ...pass.passMetadata, barcodeFormat: 'EAN13', qrUrl: '4006381333931' };
  const formatsOf = (json: Record<string, unknown>) =>
    (json.barcodes as { format: string; message: string }[]).map((b) => [b.format, b.message]);

  it('lists the iOS 27 format first, then the fallback older iPhones render (QR by default)', () => {
    const json = buildPassJson(passOf(ean13 as PassMetadataDto), context);
    expect(formatsOf(json)).toEqual([
      ['PKBarcodeFormatEAN13', '4006381333931'],
      ['PKBarcodeFormatQR', '4006381333931'],
    ]);
    // The alternative text and encoding go with both; no legacy `barcode` key.
    expect(json.barcodes).toEqual([
      expect.objectContaining({ altText: 'Q', messageEncoding: 'iso-8859-1' }),
      expect.objectContaining({ altText: 'Q', messageEncoding: 'iso-8859-1' }),
    ]);
    expect(json.barcode).toBeUndefined();
    const code128 = buildPassJson(
      passOf({ ...ean13, barcodeFallbackFormat: 'Code128' } as PassMetadataDto),
      context,
    );
    expect(formatsOf(code128)[1]).toEqual(['PKBarcodeFormatCode128', '4006381333931']);
  });

  it("shows a holder's value the iOS 27 format cannot carry in the fallback alone", () => {
    const json = buildPassJson(passOf(ean13 as PassMetadataDto), {
      ...context,
      holder: { ...holderOf({}), barcodeValue: 'member-7' },
    });
    expect(formatsOf(json)).toEqual([['PKBarcodeFormatQR', 'member-7']]);
  });

  it('writes the older formats alone', () => {
    const json = buildPassJson(
      passOf({ ...ean13, barcodeFormat: 'PDF417', barcodeFallbackFormat: 'Code128' } as never),
      context,
    );
    expect(formatsOf(json)).toEqual([['PKBarcodeFormatPDF417', '4006381333931']]);
  });
});

describe('pass.json of every kind', () => {
  it.each(WALLET_A_KIND_NAMES)('writes the %s kind under its style key, and no other', (name) => {
    const kind = WALLET_A_KINDS[name];
    const json = buildPassJson(passOf(kind.metadata), context);
    const styles = ['storeCard', 'coupon', 'eventTicket', 'boardingPass', 'generic'];
    expect(styles.filter((style) => style in json)).toEqual([kind.style]);
    const structure = json[kind.style] as Structure;
    for (const slot of ['headerFields', 'primaryFields', 'secondaryFields', 'auxiliaryFields']) {
      expect(Array.isArray(structure[slot])).toBe(true);
    }
    // Keys stay unique across the whole pass, front and back.
    const all = Object.values(structure).flatMap((fields) =>
      Array.isArray(fields) ? keys(fields) : [],
    );
    expect(new Set(all).size).toBe(all.length);
  });

  it('keeps a pass without passType a store card, as before', () => {
    const json = buildPassJson(pass, context);
    expect(json.storeCard).toBeDefined();
    expect(json.semantics).toBeUndefined();
    expect(json.relevantDates).toBeUndefined();
    expect(json.preferredStyleSchemes).toBeUndefined();
  });

  it.each([
    ['air', 'PKTransitTypeAir'],
    ['train', 'PKTransitTypeTrain'],
    ['bus', 'PKTransitTypeBus'],
    ['boat', 'PKTransitTypeBoat'],
    ['generic', 'PKTransitTypeGeneric'],
  ] as const)('names the transitType of a trip by %s %s', (transitType, pkTransitType) => {
    const metadata = WALLET_A_KINDS.train.metadata;
    const json = buildPassJson(
      passOf({ ...metadata, transit: { ...metadata.transit, transitType } }),
      context,
    );
    expect((json.boardingPass as Structure).transitType).toBe(pkTransitType);
  });

  it('puts an event where the brand left room, and the rest of it on the back', () => {
    const json = buildPassJson(passOf(WALLET_A_KINDS.eventTicket.metadata), context);
    const ticket = json.eventTicket as Structure;
    expect(ticket.headerFields).toEqual([{ key: 'gate', label: 'Gate', value: 'A' }]);
    expect(ticket.primaryFields).toEqual([
      { key: 'event.name', label: 'Event', value: 'Summer Gala' },
    ]);
    // The brand's seat fields keep the secondary row; the date and venue go to the back.
    expect(keys(ticket.secondaryFields)).toEqual(['section', 'row', 'seat']);
    expect(ticket.auxiliaryFields).toEqual([
      {
        key: 'event.doors',
        label: 'Doors',
        value: '2026-07-01T18:30:00+02:00',
        dateStyle: 'PKDateStyleNone',
        timeStyle: 'PKDateStyleShort',
      },
    ]);
    expect(ticket.backFields).toEqual([
      {
        key: 'event.start',
        label: 'Date',
        value: '2026-07-01T19:30:00+02:00',
        dateStyle: 'PKDateStyleMedium',
        timeStyle: 'PKDateStyleShort',
      },
      { key: 'event.venue', label: 'Venue', value: 'Riverside Hall' },
      {
        key: 'event.end',
        label: 'Ends',
        value: '2026-07-01T23:00:00+02:00',
        dateStyle: 'PKDateStyleMedium',
        timeStyle: 'PKDateStyleShort',
      },
      { key: 'event.address', label: 'Address', value: '1 River Street, Springfield' },
    ]);
  });

  it('shows the date and venue of an event whose brand left the secondary row empty', () => {
    const metadata = { ...WALLET_A_KINDS.eventTicket.metadata, secondaryFields: [] };
    const ticket = buildPassJson(passOf(metadata), context).eventTicket as Structure;
    expect(keys(ticket.secondaryFields)).toEqual(['event.start', 'event.venue']);
    expect(keys(ticket.backFields)).toEqual(['event.end', 'event.address']);
  });

  it("shows a holder's own day as the event's date, with no field of the pass's day", () => {
    const json = buildPassJson(passOf(WALLET_A_KINDS.eventTicket.metadata), {
      ...context,
      holder: holderOf(WALLET_A_KINDS.eventTicket.holderValues, {
        relevantDate: '2026-07-02T19:30:00+02:00',
      }),
    });
    const ticket = json.eventTicket as Structure;
    expect(ticket.backFields.find((field) => field.key === 'event.start')?.value).toBe(
      '2026-07-02T19:30:00+02:00',
    );
    expect(keys(ticket.backFields)).not.toContain('event.end');
    // The doors open on the pass's day (1 July), not the holder's.
    expect(keys(ticket.auxiliaryFields)).toEqual([]);
    expect(JSON.stringify(ticket)).not.toContain('2026-07-01');
    expect(ticket.secondaryFields.map((field) => field.value)).toEqual(['B', '12', '7']);
    expect(ticket.headerFields[0].value).toBe('C');
  });

  it("gives a coupon its offer's title as the primary field, headed by the provider", () => {
    const coupon = buildPassJson(passOf(WALLET_A_KINDS.coupon.metadata), context)
      .coupon as Structure;
    expect(coupon.primaryFields).toEqual([
      { key: 'offer.title', label: 'Brand Ltd', value: '20 % off your next visit' },
    ]);
    expect(coupon.secondaryFields).toEqual([{ key: 'code', label: 'Code', value: 'SAVE20' }]);
    expect(coupon.auxiliaryFields).toEqual([]);
    expect(coupon.backFields).toEqual([
      { key: 'offer.redemption', label: 'Redeem', value: 'In store or online' },
      { key: 'offer.finePrint', label: 'Terms', value: 'One per customer.' },
    ]);
  });

  it("keeps a coupon's own primary field and moves the offer's title to the back", () => {
    const metadata = {
      ...WALLET_A_KINDS.coupon.metadata,
      primaryFields: [{ key: 'discount', label: 'Off', value: '20 %' }],
    };
    const coupon = buildPassJson(passOf(metadata), context).coupon as Structure;
    expect(keys(coupon.primaryFields)).toEqual(['discount']);
    expect(keys(coupon.backFields)).toEqual(['offer.title', 'offer.redemption', 'offer.finePrint']);
  });

  it('gives a boarding pass its origin and destination, departure, arrival and flight', () => {
    const flight = buildPassJson(passOf(WALLET_A_KINDS.flight.metadata), context)
      .boardingPass as Structure;
    expect(flight.transitType).toBe('PKTransitTypeAir');
    expect(flight.primaryFields).toEqual([
      { key: 'transit.origin', label: 'London Heathrow', value: 'LHR' },
      { key: 'transit.destination', label: 'San Francisco', value: 'SFO' },
    ]);
    expect(flight.secondaryFields).toEqual([
      {
        key: 'transit.departure',
        label: 'Departs',
        value: '2026-05-01T08:00:00+01:00',
        dateStyle: 'PKDateStyleMedium',
        timeStyle: 'PKDateStyleShort',
      },
      {
        key: 'transit.arrival',
        label: 'Arrives',
        value: '2026-05-01T11:10:00-07:00',
        dateStyle: 'PKDateStyleMedium',
        timeStyle: 'PKDateStyleShort',
      },
    ]);
    // The passenger, seat and group are the brand's; the flight number goes to the back.
    expect(keys(flight.auxiliaryFields)).toEqual(['passenger', 'seat', 'boardingGroup']);
    expect(flight.backFields).toEqual([
      { key: 'transit.number', label: 'Brand Air', value: 'BA123' },
    ]);
  });

  it("keeps a boarding pass's own origin and destination, and a key the brand already uses", () => {
    const metadata = {
      ...WALLET_A_KINDS.flight.metadata,
      primaryFields: [
        { key: 'from', label: 'London', value: 'LHR' },
        { key: 'to', label: 'San Francisco', value: 'SFO' },
      ],
      auxiliaryFields: [],
      backFields: [{ key: 'transit.number', label: 'Flight', value: [{ text: 'BA 123' }] }],
    };
    const flight = buildPassJson(passOf(metadata), context).boardingPass as Structure;
    expect(keys(flight.primaryFields)).toEqual(['from', 'to']);
    // The brand's field of the key wins; the kind's of the same key is left out.
    expect(keys(flight.auxiliaryFields)).toEqual([]);
    expect(keys(flight.backFields)).toEqual([
      'transit.number',
      'transit.origin',
      'transit.destination',
    ]);
    expect(flight.backFields[0].value).toBe('BA 123');
  });

  it('adds nothing to store cards and generic passes', () => {
    for (const name of ['storeCard', 'generic'] as const) {
      const kind = WALLET_A_KINDS[name];
      const structure = buildPassJson(passOf(kind.metadata), context)[kind.style] as Structure;
      const all = Object.values(structure).flatMap((fields) =>
        Array.isArray(fields) ? keys(fields) : [],
      );
      expect(all.filter((key) => key.includes('.'))).toEqual([]);
    }
  });

  it.each(WALLET_A_KIND_NAMES)(
    "puts a notification's message first on the back of the %s kind, with its changeMessage",
    (name) => {
      const kind = WALLET_A_KINDS[name];
      const json = buildPassJson(passOf(kind.metadata), {
        ...context,
        messageField: { key: 'notification', value: 'Doors open at 18:30', changeMessage: '%@' },
      });
      const structure = json[kind.style] as Structure;
      expect(structure.backFields[0]).toEqual({
        key: 'notification',
        value: 'Doors open at 18:30',
        changeMessage: '%@',
      });
    },
  );

  it("writes a holder's own relevant and expiration dates over the pass's", () => {
    const metadata = {
      ...WALLET_A_KINDS.storeCard.metadata,
      relevantDate: '2026-05-01T10:00:00+02:00',
    };
    const own = buildPassJson(passOf(metadata), {
      ...context,
      holder: holderOf(
        {},
        {
          relevantDate: '2026-06-01T10:00:00+02:00',
          expirationDate: '2026-06-02T00:00:00+02:00',
        },
      ),
    });
    expect(own).toMatchObject({
      relevantDate: '2026-06-01T10:00:00+02:00',
      relevantDates: [
        { date: '2026-06-01T10:00:00+02:00', relevantDate: '2026-06-01T10:00:00+02:00' },
      ],
      expirationDate: '2026-06-02T00:00:00+02:00',
    });
    // A holder without dates of its own has the pass's.
    const shared = buildPassJson(passOf(metadata), {
      ...context,
      holder: holderOf({}, { relevantDate: null, expirationDate: null }),
    });
    expect(shared).toMatchObject({
      relevantDate: '2026-05-01T10:00:00+02:00',
      expirationDate: '2027-12-31T23:59:59+01:00',
    });
  });

  it('writes semantic tags for tickets and boarding passes only', () => {
    const semantics = (name: WalletAKindName) =>
      buildPassJson(passOf(WALLET_A_KINDS[name].metadata), context).semantics;
    expect(semantics('eventTicket')).toMatchObject({
      eventName: 'Summer Gala',
      venueName: 'Riverside Hall',
      venueLocation: { latitude: 48.8566, longitude: 2.3522 },
    });
    expect(semantics('flight')).toMatchObject({ flightCode: 'BA123', flightNumber: 123 });
    expect(semantics('storeCard')).toBeUndefined();
    expect(semantics('coupon')).toBeUndefined();
    expect(semantics('generic')).toBeUndefined();
  });
});

describe('the poster event ticket', () => {
  const ticket = WALLET_A_KINDS.eventTicket;

  it('opts a ticket with an artwork image into the poster, keeping the classic fields', () => {
    const json = buildPassJson(passOf(ticket.metadata, ['logo.png', 'artwork@2x.png']), {
      ...context,
      holder: holderOf(ticket.holderValues),
    });
    expect(json.preferredStyleSchemes).toEqual(['posterEventTicket', 'eventTicket']);
    // Every tag Apple requires of a poster (eventName, venueName, venueRegionName, venueRoom),
    // with the general event type, which requires no more, and the holder's seat.
    expect(json.semantics).toMatchObject({
      eventType: 'PKEventTypeGeneric',
      eventName: 'Summer Gala',
      venueName: 'Riverside Hall',
      venueRegionName: 'Springfield',
      venueRoom: 'Main Hall',
      eventStartDate: '2026-07-01T19:30:00+02:00',
      venueLocation: { latitude: 48.8566, longitude: 2.3522 },
      seats: [{ seatSection: 'B', seatRow: '12', seatNumber: '7' }],
    });
    const classic = json.eventTicket as Structure;
    expect(keys(classic.primaryFields)).toEqual(['event.name']);
    expect(keys(classic.secondaryFields)).toEqual(['section', 'row', 'seat']);
  });

  it("carries NFC with the holder's own message, and requiresAuthentication always written", () => {
    const json = buildPassJson(passOf(ticket.metadata, ['logo.png', 'artwork.png']), {
      ...context,
      holder: holderOf(ticket.holderValues, { nfcMessage: 'SEAT-B-12-7' }),
    });
    expect(json.nfc).toEqual({
      message: 'SEAT-B-12-7',
      encryptionPublicKey: ticket.metadata.nfc.encryptionPublicKey,
      requiresAuthentication: true,
    });
    const { requiresAuthentication, ...withoutAuth } = ticket.metadata.nfc;
    expect(requiresAuthentication).toBe(true);
    const shared = buildPassJson(
      passOf({ ...ticket.metadata, nfc: withoutAuth }, ['logo.png', 'artwork.png']),
      context,
    );
    expect(shared.nfc).toEqual({ ...withoutAuth, requiresAuthentication: false });
  });

  it('shows a ticket stored with artwork but without NFC as the classic ticket, never a poster', () => {
    const { nfc, ...withoutNfc } = ticket.metadata;
    expect(nfc).toBeDefined();
    const json = buildPassJson(passOf(withoutNfc, ['logo.png', 'artwork.png']), context);
    expect(json.preferredStyleSchemes).toBeUndefined();
    expect(json.nfc).toBeUndefined();
    expect((json.semantics as Record<string, unknown>).eventType).toBeUndefined();
  });

  it('leaves a ticket without artwork, and every other style, classic', () => {
    const classic = buildPassJson(passOf(ticket.metadata), context);
    expect(classic.preferredStyleSchemes).toBeUndefined();
    expect((classic.semantics as Record<string, unknown>).eventType).toBeUndefined();
    const coupon = buildPassJson(
      passOf(WALLET_A_KINDS.coupon.metadata, ['logo.png', 'artwork.png']),
      context,
    );
    expect(coupon.preferredStyleSchemes).toBeUndefined();
  });
});

describe('the poster generic pass (iOS 27)', () => {
  const card = WALLET_A_KINDS.generic;
  /** A generic pass with more fields than the poster's front holds. */
  const full: PassMetadataDto = {
    ...card.metadata,
    headerFields: [
      { key: 'tier', label: 'Tier', value: 'Gold' },
      { key: 'city', label: 'City', value: 'Paris' },
    ],
    secondaryFields: [
      { key: 'level', label: 'Level', value: 'Staff' },
      { key: 'since', label: 'Since', value: '2020' },
    ],
    auxiliaryFields: [
      { key: 'desk', label: 'Desk', value: '4' },
      { key: 'floor', label: 'Floor', value: '2' },
    ],
  };
  // Apple, "Creating a poster generic pass": the top-level key `posterGeneric`, whose layout
  // has headerFields, primaryFields, footerFields, backFields and additionalInfoFields.
  const POSTER_SLOTS = [
    'headerFields',
    'primaryFields',
    'footerFields',
    'backFields',
    'additionalInfoFields',
  ];

  it('writes posterGeneric beside the generic style older devices show, given artwork', () => {
    const json = buildPassJson(passOf(full, ['logo.png', 'artwork@3x.png']), {
      ...context,
      messageField: { key: 'notification', value: 'Hello', changeMessage: '%@' },
      holder: holderOf(card.holderValues),
    });
    const poster = json.posterGeneric as Structure;
    expect(Object.keys(poster).every((slot) => POSTER_SLOTS.includes(slot))).toBe(true);
    // A header field, up to four primary fields, and the footer field the face shows.
    expect(keys(poster.headerFields)).toEqual(['member']);
    expect(keys(poster.primaryFields)).toEqual(['name', 'level', 'since']);
    expect(keys(poster.footerFields)).toEqual(['desk']);
    // What has no room on its front is on its back, after the message.
    expect(keys(poster.backFields)).toEqual(['notification', 'tier', 'city', 'floor']);
    expect(poster.primaryFields[0].value).toBe('Maya Rivera');
    // The generic style is as without artwork, and no preferred style scheme is needed: Wallet
    // prefers posterGeneric when present.
    const classic = buildPassJson(passOf(full), {
      ...context,
      messageField: { key: 'notification', value: 'Hello', changeMessage: '%@' },
      holder: holderOf(card.holderValues),
    });
    expect(json.generic).toEqual(classic.generic);
    expect(classic.posterGeneric).toBeUndefined();
    expect(json.preferredStyleSchemes).toBeUndefined();
    expect(json.semantics).toBeUndefined();
  });

  it('writes no poster for a kind without one, whatever its images', () => {
    for (const name of ['storeCard', 'coupon', 'flight'] as const) {
      const json = buildPassJson(
        passOf(WALLET_A_KINDS[name].metadata, ['logo.png', 'artwork.png', 'primaryLogo.png']),
        context,
      );
      expect([name, json.posterGeneric, json.preferredStyleSchemes]).toEqual([
        name,
        undefined,
        undefined,
      ]);
    }
  });
});

describe('featured actions (iOS 27)', () => {
  /**
   * Apple, "Defining the metadata of your Wallet Pass", "Add Featured Actions": every action
   * type of its table. The API takes those that open a link.
   */
  const APPLE_ACTION_TYPES = [
    'viewSchedule',
    'watchTrailer',
    'listenToMusic',
    'call',
    'place',
    'addToBalance',
    'order',
    'shop',
    'membershipBenefits',
    'bookAppointment',
    'bookCar',
    'bookFlight',
    'bookStay',
    'viewOffersRewards',
  ];

  it('writes each action as Apple describes it: a unique identifier, its type and its URL', () => {
    const metadata: PassMetadataDto = {
      ...WALLET_A_KINDS.storeCard.metadata,
      featuredActions: [
        { type: 'membershipBenefits', url: 'https://brand.example/benefits' },
        { type: 'shop', url: 'https://brand.example/shop' },
      ],
    };
    const json = buildPassJson(passOf(metadata), context);
    // WWDC26 "What's new in Wallet": `featuredActions` at the top level of pass.json, an array
    // of actions `{ identifier, type, url }`, at most two, in priority order.
    expect(json.featuredActions).toEqual([
      {
        identifier: 'membershipBenefits',
        type: 'membershipBenefits',
        url: 'https://brand.example/benefits',
      },
      { identifier: 'shop', type: 'shop', url: 'https://brand.example/shop' },
    ]);
    for (const action of json.featuredActions as { type: string }[]) {
      expect(APPLE_ACTION_TYPES).toContain(action.type);
    }
    expect(buildPassJson(passOf(WALLET_A_KINDS.storeCard.metadata), context)).not.toHaveProperty(
      'featuredActions',
    );
  });

  it("takes every action type of Apple's table that opens a link, and only those", () => {
    expect([...FEATURED_ACTION_TYPES].sort()).toEqual(
      APPLE_ACTION_TYPES.filter((type) => type !== 'call' && type !== 'place').sort(),
    );
  });

  it('writes them on every kind: Apple offers them for all pass styles', () => {
    for (const name of WALLET_A_KIND_NAMES) {
      const featuredActions = [{ type: 'viewSchedule' as const, url: 'https://brand.example/s' }];
      const json = buildPassJson(
        passOf({ ...WALLET_A_KINDS[name].metadata, featuredActions }),
        context,
      );
      expect([name, json.featuredActions]).toEqual([
        name,
        [{ identifier: 'viewSchedule', type: 'viewSchedule', url: 'https://brand.example/s' }],
      ]);
    }
  });
});
