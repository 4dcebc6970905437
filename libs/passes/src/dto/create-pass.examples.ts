import type { CreatePassDto } from './create-pass.dto';

const brand = {
  organizationName: 'Brand Ltd',
  backgroundColor: '#1A2B3C',
  displayTextColor: '#FFFFFF',
};

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
        offer: {
          title: '20 % off your next visit',
          provider: 'Brand Ltd',
          redemptionChannel: 'both',
          finePrint: 'One per customer. Not valid with other offers.',
        },
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
        event: {
          name: 'Summer Gala',
          venueName: 'Riverside Hall',
          venueAddress: '1 River Street, Springfield',
          venueRegion: 'Springfield',
          venueRoom: 'Main Hall',
          latitude: 48.8566,
          longitude: 2.3522,
          startTime: '2026-07-01T19:30:00+02:00',
          endTime: '2026-07-01T23:00:00+02:00',
          doorsOpen: '2026-07-01T18:30:00+02:00',
        },
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
        event: {
          name: 'Riverside Festival',
          venueName: 'Riverside Park',
          venueAddress: '1 Park Road, Springfield',
          latitude: 48.8566,
          longitude: 2.3522,
          startTime: '2026-07-10T16:00:00+02:00',
          endTime: '2026-07-12T23:30:00+02:00',
          upcoming: [
            {
              identifier: 'day-1',
              name: 'Opening night',
              startTime: '2026-07-10T18:00:00+02:00',
              endTime: '2026-07-10T23:30:00+02:00',
              venueName: 'Main Stage',
            },
            {
              identifier: 'day-2',
              name: 'Jazz afternoon',
              startTime: '2026-07-11T14:00:00+02:00',
              endTime: '2026-07-11T18:00:00+02:00',
            },
            {
              identifier: 'day-3',
              name: 'Closing concert',
              startTime: '2026-07-12T20:00:00+02:00',
            },
          ],
        },
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
        transit: {
          transitType: 'air',
          carrier: 'Brand Air',
          number: 'BA123',
          origin: { code: 'LHR', name: 'London Heathrow' },
          destination: { code: 'SFO', name: 'San Francisco' },
          departureTime: '2026-05-01T08:00:00+01:00',
          arrivalTime: '2026-05-01T11:10:00-07:00',
        },
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
        transit: {
          transitType: 'air',
          carrier: 'LX',
          number: '318',
          origin: { code: 'ZRH', name: 'Zurich' },
          destination: { code: 'JFK', name: 'New York' },
          departureTime: '2026-05-01T13:05:00+02:00',
          arrivalTime: '2026-05-01T15:55:00-04:00',
        },
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
        transit: {
          transitType: 'air',
          carrier: 'LX',
          number: '318',
          origin: { code: 'ZRH', name: 'Zurich', timeZone: 'Europe/Zurich' },
          destination: { code: 'JFK', name: 'New York', timeZone: 'America/New_York' },
          boardingTime: '2026-05-01T12:25:00+02:00',
          departureTime: '2026-05-01T13:05:00+02:00',
          arrivalTime: '2026-05-01T15:55:00-04:00',
        },
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
