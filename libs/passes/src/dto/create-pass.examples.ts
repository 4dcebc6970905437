import type { CreatePassDto } from './create-pass.dto';
import {
  EXAMPLE_EVENT,
  EXAMPLE_FESTIVAL,
  EXAMPLE_FLIGHT,
  EXAMPLE_OFFER,
  EXAMPLE_SEMANTIC_FLIGHT,
} from '../metadata/kind-examples';
import type { TransitDto } from '../metadata/pass-kind.dto';

const brand = {
  organizationName: 'Brand Ltd',
  backgroundColor: '#1A2B3C',
  displayTextColor: '#FFFFFF',
};

/** A semantic flight as a classic one: without its boarding time and its ends' time zones. */
function classicFlight({
  boardingTime: _boarding,
  origin,
  destination,
  departureTime,
  arrivalTime,
  ...flight
}: TransitDto): TransitDto {
  return {
    ...flight,
    origin: { code: origin.code, name: origin.name },
    destination: { code: destination.code, name: destination.name },
    departureTime,
    arrivalTime,
  };
}

/**
 * One request of each kind of pass for POST /v1/wallet-pass, a festival's ticket
 * with its upcoming events and one of each iOS 27 barcode format, as drafts: a
 * client uploads the images (logo and icon, and a strip for a store card, coupon or event ticket)
 * and publishes with PATCH. Each is accepted as it is (test/pass-kinds-wallet-a.e2e-spec.ts sends
 * every one).
 */
export const CREATE_PASS_EXAMPLES: Record<string, { summary: string; value: CreatePassDto }> = {
  storeCard: {
    summary: 'Store card (the default kind)',
    value: {
      passName: 'Loyalty card',
      passMetadata: {
        ...brand,
        description: 'Loyalty card of Brand',
        topField: {
          key: 'points',
          label: 'Points',
          value: '0',
          changeMessage: 'You now have %@ points',
        },
        secondaryFields: [{ key: 'tier', label: 'Tier', value: 'Basic' }],
        qrUrl: 'https://brand.example/member',
      },
      notificationHeader: 'Brand news',
    },
  },
  coupon: {
    summary: 'Coupon with a Code128 barcode',
    value: {
      passName: 'Spring coupon',
      passMetadata: {
        ...brand,
        passType: 'coupon',
        description: 'Spring coupon of Brand',
        offer: EXAMPLE_OFFER,
        secondaryFields: [{ key: 'code', label: 'Code', value: 'SPRING20' }],
        barcodeFormat: 'Code128',
        qrUrl: 'SPRING20-0001',
        qrText: 'SPRING20-0001',
        expirationDate: '2026-05-31T23:59:00+02:00',
      },
    },
  },
  eventTicket: {
    summary: 'Event ticket with its seat (each holder gets their own)',
    value: {
      passName: 'Summer Gala tickets',
      passMetadata: {
        ...brand,
        passType: 'eventTicket',
        description: 'Ticket for the Summer Gala',
        event: EXAMPLE_EVENT,
        secondaryFields: [
          { key: 'section', label: 'Section', value: '-' },
          { key: 'row', label: 'Row', value: '-' },
          { key: 'seat', label: 'Seat', value: '-' },
        ],
        qrUrl: 'TICKET',
        expirationDate: '2026-07-02T04:00:00+02:00',
      },
    },
  },
  festival: {
    summary: 'Festival pass with its upcoming events (iOS 26; WalletB dates it by the next one)',
    value: {
      passName: 'Riverside Festival weekend pass',
      passMetadata: {
        ...brand,
        passType: 'eventTicket',
        description: 'Weekend pass for the Riverside Festival',
        event: EXAMPLE_FESTIVAL,
        secondaryFields: [{ key: 'pass', label: 'Pass', value: 'Weekend' }],
        qrUrl: 'FESTIVAL',
        expirationDate: '2026-07-13T04:00:00+02:00',
      },
    },
  },
  boardingPass: {
    summary: 'Boarding pass of a flight',
    value: {
      passName: 'Flight BA123',
      passMetadata: {
        ...brand,
        passType: 'boardingPass',
        description: 'Boarding pass BA123 London to San Francisco',
        transit: EXAMPLE_FLIGHT,
        headerFields: [{ key: 'gate', label: 'Gate', value: '-' }],
        auxiliaryFields: [
          { key: 'passenger', label: 'Passenger', value: '-' },
          { key: 'seat', label: 'Seat', value: '-' },
          { key: 'boardingGroup', label: 'Group', value: '-' },
        ],
        barcodeFormat: 'PDF417',
        qrUrl: 'M1PASSENGER/BRAND ABC123 LHRSFOBA 0123',
      },
    },
  },
  flightByCarrier: {
    summary: 'Flight by carrier and number (carrier LX, number 318: the flight LX318)',
    value: {
      passName: 'Flight LX318',
      passMetadata: {
        ...brand,
        passType: 'boardingPass',
        description: 'Boarding pass LX318 Zurich to New York',
        transit: classicFlight(EXAMPLE_SEMANTIC_FLIGHT),
        auxiliaryFields: [{ key: 'seat', label: 'Seat', value: '-' }],
        barcodeFormat: 'PDF417',
        qrUrl: 'M1PASSENGER/BRAND ABC123 ZRHJFKLX 0318',
      },
    },
  },
  semanticBoardingPass: {
    summary:
      'Semantic boarding pass (iOS 26): boarding time and both time zones; each holder with a passengerName gets it',
    value: {
      passName: 'Flight LX318, semantic',
      passMetadata: {
        ...brand,
        passType: 'boardingPass',
        description: 'Boarding pass LX318 Zurich to New York',
        transit: EXAMPLE_SEMANTIC_FLIGHT,
        headerFields: [{ key: 'gate', label: 'Gate', value: '-' }],
        auxiliaryFields: [
          { key: 'seat', label: 'Seat', value: '-' },
          { key: 'boardingGroup', label: 'Group', value: '-' },
        ],
        barcodeFormat: 'PDF417',
        qrUrl: 'M1PASSENGER/BRAND ABC123 ZRHJFKLX 0318',
      },
    },
  },
  generic: {
    summary:
      'Generic pass (a membership card) with a featured action; an artwork image makes it a ' +
      'poster on iOS 27',
    value: {
      passName: 'Staff card',
      passMetadata: {
        ...brand,
        passType: 'generic',
        description: 'Staff card of Brand',
        primaryFields: [{ key: 'name', label: 'Name', value: '-' }],
        secondaryFields: [{ key: 'role', label: 'Role', value: 'Staff' }],
        qrUrl: 'https://brand.example/staff',
        featuredActions: [{ type: 'membershipBenefits', url: 'https://brand.example/benefits' }],
      },
    },
  },
  ean13: {
    summary: 'Store card with an EAN13 barcode (iOS 27; Code128 on older iPhones)',
    value: {
      passName: 'Club card',
      passMetadata: {
        ...brand,
        description: 'Club card of Brand',
        topField: { key: 'points', label: 'Points', value: '0' },
        barcodeFormat: 'EAN13',
        barcodeFallbackFormat: 'Code128',
        qrUrl: '4006381333931',
        qrText: '4 006381 333931',
      },
    },
  },
  code39: {
    summary: 'Generic pass with a Code39 barcode (iOS 27; QR on older iPhones)',
    value: {
      passName: 'Staff badge',
      passMetadata: {
        ...brand,
        passType: 'generic',
        description: 'Staff badge of Brand',
        primaryFields: [{ key: 'name', label: 'Name', value: '-' }],
        barcodeFormat: 'Code39',
        qrUrl: 'STAFF-0042',
      },
    },
  },
  codabar: {
    summary: 'Library card with a Codabar barcode (iOS 27; Code128 on older iPhones)',
    value: {
      passName: 'Library card',
      passMetadata: {
        ...brand,
        passType: 'generic',
        description: 'Library card of Brand',
        primaryFields: [{ key: 'name', label: 'Name', value: '-' }],
        barcodeFormat: 'Codabar',
        barcodeFallbackFormat: 'Code128',
        qrUrl: 'A21098765432B',
      },
    },
  },
  itf: {
    summary: 'Coupon with an ITF barcode (iOS 27; WalletB ITF_14; QR on older iPhones)',
    value: {
      passName: 'Carton coupon',
      passMetadata: {
        ...brand,
        passType: 'coupon',
        description: 'Coupon of Brand',
        offer: { title: 'A free carton', provider: 'Brand Ltd', redemptionChannel: 'instore' },
        barcodeFormat: 'ITF',
        qrUrl: '15400141288763',
      },
    },
  },
};
