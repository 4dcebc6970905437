import {
  EXAMPLE_EVENT,
  EXAMPLE_FESTIVAL,
  EXAMPLE_FLIGHT,
  EXAMPLE_OFFER,
  EXAMPLE_SEMANTIC_FLIGHT,
  type PassMetadataDto,
} from '@app/passes';

/** The WalletB class types, as the wallet-b library names them. */
export type KindClassType = 'generic' | 'loyalty' | 'offer' | 'eventTicket' | 'flight' | 'transit';

export interface KindFixture {
  /** The WalletB class type a new pass of this metadata gets. */
  classType: KindClassType;
  metadata: PassMetadataDto;
}

/** What every pass of the fixtures shares: its brand. */
export const BRAND = {
  description: 'Brand pass',
  organizationName: 'Brand Ltd',
  backgroundColor: '#102030',
  displayTextColor: '#FFFFFF',
};

/** An example without some of its keys, the others in their order. */
export function without<T extends object, K extends keyof T>(value: T, ...keys: K[]): Omit<T, K> {
  return Object.fromEntries(
    Object.entries(value).filter(([key]) => !(keys as PropertyKey[]).includes(key)),
  ) as Omit<T, K>;
}

/**
 * The kinds' blocks the fixtures of both wallets use: the API's examples (`EXAMPLE_OFFER`, ...),
 * some without what a plain pass of the kind does without.
 */
export const OFFER = { ...EXAMPLE_OFFER, finePrint: 'One per customer.' };
/** A ticket's event without the poster's venue (region and room) or its place on the map. */
export const EVENT = without(EXAMPLE_EVENT, 'venueRegion', 'venueRoom', 'latitude', 'longitude');
/** The festival without its address or its place on the map. */
export const FESTIVAL = without(EXAMPLE_FESTIVAL, 'venueAddress', 'latitude', 'longitude');
export const FLIGHT = EXAMPLE_FLIGHT;

/**
 * The semantic flight with its departure written in UTC: WalletB's local times come from the
 * zones (13:05 in Zurich, 15:55 in New York).
 */
export const SEMANTIC_FLIGHT = {
  ...EXAMPLE_SEMANTIC_FLIGHT,
  departureTime: '2026-05-01T11:05:00Z',
};

/**
 * One pass of every kind, as `passMetadata` of a create request: valid for the
 * API's rules, with the face fields whose keys WalletB reads for a seat or a passenger.
 */
/**
 * NFC as a brand sends it: a terminal's EC P-256 public key (made once with node:crypto; its
 * private key was never kept) and a member number.
 */
export const NFC = {
  message: 'MEMBER-0001',
  encryptionPublicKey:
    'MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE1eYQp26z55kXWhuZeMVc5PBlMQr7mBJY5tzysh8Gh6PONVziTZpO2izn2HpQb9Ru8Mrr4/p/tR3guaX+qWpH+w==',
};

export const KIND_FIXTURES = {
  storeCard: {
    classType: 'loyalty',
    metadata: {
      ...BRAND,
      topField: { key: 'points', label: 'Points', value: '100' },
      secondaryFields: [
        { key: 'tier', label: 'Tier', value: 'Gold' },
        { key: 'name', label: 'Member', value: 'Member' },
      ],
      backFields: [
        {
          key: 'links',
          label: 'Links',
          value: [{ text: 'Stores', link: 'https://brand.example/stores' }, { text: 'Open daily' }],
        },
      ],
      qrUrl: 'https://brand.example/member/1',
      qrText: 'Member 1',
      expirationDate: '2027-12-31T23:59:59+01:00',
      // Terminals read the card over NFC: WalletA `nfc`, WalletB Smart Tap.
      nfc: NFC,
    },
  },
  coupon: {
    classType: 'offer',
    metadata: {
      ...BRAND,
      passType: 'coupon',
      offer: OFFER,
      primaryFields: [{ key: 'discount', label: 'Off', value: '20 %' }],
      secondaryFields: [{ key: 'code', label: 'Code', value: 'SAVE20' }],
      barcodeFormat: 'Code128',
      qrUrl: 'SAVE20-0001',
      expirationDate: '2026-09-30T23:59:59+02:00',
    },
  },
  eventTicket: {
    classType: 'eventTicket',
    metadata: {
      ...BRAND,
      passType: 'eventTicket',
      event: EVENT,
      primaryFields: [{ key: 'event', label: 'Event', value: 'Summer Gala' }],
      secondaryFields: [
        { key: 'section', label: 'Section', value: 'Floor' },
        { key: 'row', label: 'Row', value: '-' },
        { key: 'seat', label: 'Seat', value: '-' },
      ],
      auxiliaryFields: [{ key: 'gate', label: 'Gate', value: 'A' }],
      barcodeFormat: 'QR',
      qrUrl: 'TICKET-0001',
      relevantDate: '2026-07-01T18:00:00+02:00',
      expirationDate: '2026-07-02T04:00:00+02:00',
    },
  },
  festival: {
    classType: 'eventTicket',
    metadata: {
      ...BRAND,
      passType: 'eventTicket',
      event: without(EXAMPLE_FESTIVAL, 'latitude', 'longitude'),
      secondaryFields: [{ key: 'pass', label: 'Pass', value: 'Weekend' }],
      qrUrl: 'FESTIVAL-0001',
      expirationDate: '2026-07-13T04:00:00+02:00',
    },
  },
  flight: {
    classType: 'flight',
    metadata: {
      ...BRAND,
      passType: 'boardingPass',
      transit: FLIGHT,
      primaryFields: [
        { key: 'from', label: 'London', value: 'LHR' },
        { key: 'to', label: 'San Francisco', value: 'SFO' },
      ],
      auxiliaryFields: [
        { key: 'passenger', label: 'Passenger', value: 'Guest' },
        { key: 'seat', label: 'Seat', value: '-' },
        { key: 'boardingGroup', label: 'Group', value: '1' },
        { key: 'confirmationCode', label: 'Booking', value: 'ABC123' },
      ],
      barcodeFormat: 'PDF417',
      qrUrl: 'M1GUEST/BRAND ABC123 LHRSFOBA 0123',
    },
  },
  semanticFlight: {
    classType: 'flight',
    metadata: {
      ...BRAND,
      passType: 'boardingPass',
      transit: SEMANTIC_FLIGHT,
      auxiliaryFields: [
        { key: 'seat', label: 'Seat', value: '-' },
        { key: 'boardingGroup', label: 'Group', value: '2' },
      ],
      barcodeFormat: 'PDF417',
      qrUrl: 'M1RIVERA/MAYA EABC123 ZRHJFKLX 0318',
    },
  },
  transit: {
    classType: 'transit',
    metadata: {
      ...BRAND,
      passType: 'boardingPass',
      transit: {
        transitType: 'bus',
        carrier: 'Brand Shuttle',
        number: '7',
        origin: { code: 'AIR', name: 'Airport' },
        destination: { code: 'CTY', name: 'City centre' },
        departureTime: '2026-05-01T09:00:00+01:00',
        arrivalTime: '2026-05-01T09:45:00+01:00',
      },
      primaryFields: [
        { key: 'from', label: 'Airport', value: 'AIR' },
        { key: 'to', label: 'City centre', value: 'CTY' },
      ],
      auxiliaryFields: [
        { key: 'passenger', label: 'Passenger', value: 'Guest' },
        { key: 'seat', label: 'Seat', value: 'Any' },
      ],
      barcodeFormat: 'Aztec',
      qrUrl: 'SHUTTLE-0001',
    },
  },
  generic: {
    classType: 'generic',
    metadata: {
      ...BRAND,
      passType: 'generic',
      topField: { key: 'member', label: 'Member since', value: '2020' },
      secondaryFields: [{ key: 'level', label: 'Level', value: 'Staff' }],
      qrUrl: 'https://brand.example/staff/1',
    },
  },
} satisfies Record<string, KindFixture>;

export type KindName = keyof typeof KIND_FIXTURES;
export const KIND_NAMES = Object.keys(KIND_FIXTURES) as KindName[];
