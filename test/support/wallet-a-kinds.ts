import type { PassengerName } from '@app/kinds';
import { EXAMPLE_EVENT, EXAMPLE_FESTIVAL, type PassMetadataDto } from '@app/passes';
import { BRAND, FLIGHT, NFC, OFFER, SEMANTIC_FLIGHT, without } from './pass-kind-fixtures';

/** One kind of pass as WalletA writes it, for the unit specs and the end-to-end suite. */
export interface WalletAKind {
  /** pass.json's style key. */
  style: 'storeCard' | 'coupon' | 'eventTicket' | 'boardingPass' | 'generic';
  metadata: PassMetadataDto;
  /** A personal holder's values of the pass's face fields (a seat, a gate, a passenger). */
  holderValues: Record<string, string>;
  /** A boarding pass holder's passenger. */
  passengerName?: PassengerName;
}

/**
 * Every kind of pass, as the `passMetadata` of a create request that the API's
 * rules accept. Each leaves some face slots to its kind's fields and fills others itself, so
 * both the derived fields and the brand's winning over them show.
 */
export const WALLET_A_KINDS = {
  storeCard: {
    style: 'storeCard',
    metadata: {
      ...BRAND,
      topField: { key: 'points', label: 'Points', value: '100', changeMessage: 'Now %@ points' },
      secondaryFields: [{ key: 'tier', label: 'Tier', value: 'Gold' }],
      backFields: [
        {
          key: 'links',
          label: 'Links',
          value: [{ text: 'Stores', link: 'https://brand.example' }],
        },
      ],
      qrUrl: 'https://brand.example/member/1',
      qrText: 'Member 1',
      expirationDate: '2027-12-31T23:59:59+01:00',
    },
    holderValues: { points: '250' },
  },
  coupon: {
    style: 'coupon',
    metadata: {
      ...BRAND,
      passType: 'coupon',
      offer: OFFER,
      // The primary field is left to the offer's title.
      secondaryFields: [{ key: 'code', label: 'Code', value: 'SAVE20' }],
      barcodeFormat: 'Code128',
      qrUrl: 'SAVE20-0001',
      expirationDate: '2026-09-30T23:59:59+02:00',
    },
    holderValues: { code: 'SAVE20-ALICE' },
  },
  eventTicket: {
    style: 'eventTicket',
    metadata: {
      ...BRAND,
      passType: 'eventTicket',
      event: EXAMPLE_EVENT,
      // Primary and auxiliary slots are left to the event; the seat is the brand's.
      topField: { key: 'gate', label: 'Gate', value: 'A' },
      secondaryFields: [
        { key: 'section', label: 'Section', value: 'Floor' },
        { key: 'row', label: 'Row', value: '-' },
        { key: 'seat', label: 'Seat', value: '-' },
      ],
      barcodeFormat: 'QR',
      qrUrl: 'TICKET-0001',
      expirationDate: '2026-07-02T04:00:00+02:00',
      // A poster event ticket needs NFC (an artwork image makes this ticket one).
      nfc: { ...NFC, message: 'TICKET-0001', requiresAuthentication: true },
    },
    holderValues: { section: 'B', row: '12', seat: '7', gate: 'C' },
  },
  festival: {
    style: 'eventTicket',
    metadata: {
      ...BRAND,
      passType: 'eventTicket',
      // A poster's venue (iOS 26 lists upcoming events on the poster event ticket).
      event: {
        ...without(EXAMPLE_FESTIVAL, 'venueAddress'),
        venueRegion: 'Springfield',
        venueRoom: 'Park',
      },
      // Primary and secondary slots are left to the event; the pass type and the area (a
      // seat section: Pass Builder warns of a poster event ticket without a seat) the brand's.
      topField: { key: 'section', label: 'Area', value: 'Meadow' },
      auxiliaryFields: [{ key: 'pass', label: 'Pass', value: 'Weekend' }],
      qrUrl: 'FESTIVAL-0001',
      expirationDate: '2026-07-13T04:00:00+02:00',
      nfc: { ...NFC, message: 'FESTIVAL-0001' },
    },
    holderValues: { pass: 'Day' },
  },
  flight: {
    style: 'boardingPass',
    metadata: {
      ...BRAND,
      passType: 'boardingPass',
      transit: FLIGHT,
      // Primary and secondary slots are left to the trip.
      headerFields: [{ key: 'gate', label: 'Gate', value: '-' }],
      auxiliaryFields: [
        { key: 'passenger', label: 'Passenger', value: 'Guest' },
        { key: 'seat', label: 'Seat', value: '-' },
        { key: 'boardingGroup', label: 'Group', value: '1' },
      ],
      barcodeFormat: 'PDF417',
      qrUrl: 'M1GUEST/BRAND ABC123 LHRSFOBA 0123',
    },
    holderValues: { gate: 'B32', passenger: 'Maya Rivera', seat: '14A' },
  },
  /**
   * A flight by carrier and number with its boarding time and both ends' time zones: a holder
   * with a passenger gets the semantic boarding pass (iOS 26), the shared pass the classic one.
   */
  semanticFlight: {
    style: 'boardingPass',
    metadata: {
      ...BRAND,
      passType: 'boardingPass',
      transit: SEMANTIC_FLIGHT,
      headerFields: [{ key: 'gate', label: 'Gate', value: '-' }],
      auxiliaryFields: [
        { key: 'seat', label: 'Seat', value: '-' },
        { key: 'boardingGroup', label: 'Group', value: '-' },
        { key: 'arrivalGate', label: 'Arrival gate', value: '-' },
      ],
      barcodeFormat: 'PDF417',
      qrUrl: 'M1RIVERA/MAYA EABC123 ZRHJFKLX 0318',
    },
    holderValues: { gate: 'E44', seat: '3A', boardingGroup: '2', arrivalGate: 'B22' },
    passengerName: { givenName: 'Maya', familyName: 'Rivera' },
  },
  train: {
    style: 'boardingPass',
    metadata: {
      ...BRAND,
      passType: 'boardingPass',
      transit: {
        transitType: 'train',
        carrier: 'Brand Rail',
        number: 'ICE 512',
        origin: { code: 'FRA', name: 'Frankfurt Hbf' },
        destination: { code: 'KOE', name: 'Köln Hbf' },
        departureTime: '2026-05-01T09:00:00+02:00',
        arrivalTime: '2026-05-01T10:05:00+02:00',
      },
      auxiliaryFields: [
        { key: 'coach', label: 'Coach', value: '-' },
        { key: 'seat', label: 'Seat', value: '-' },
        { key: 'platform', label: 'Platform', value: '7' },
      ],
      barcodeFormat: 'Aztec',
      qrUrl: 'RAIL-0001',
      relevantDate: '2026-05-01T08:30:00+02:00',
    },
    holderValues: { coach: '9', seat: '55' },
  },
  generic: {
    style: 'generic',
    metadata: {
      ...BRAND,
      passType: 'generic',
      topField: { key: 'member', label: 'Member since', value: '2020' },
      primaryFields: [{ key: 'name', label: 'Name', value: 'Staff' }],
      secondaryFields: [{ key: 'level', label: 'Level', value: 'Staff' }],
      qrUrl: 'https://brand.example/staff/1',
    },
    holderValues: { name: 'Maya Rivera' },
  },
} satisfies Record<string, WalletAKind>;

export type WalletAKindName = keyof typeof WALLET_A_KINDS;
export const WALLET_A_KIND_NAMES = Object.keys(WALLET_A_KINDS) as WalletAKindName[];
