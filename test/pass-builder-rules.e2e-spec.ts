import { makePng } from './support/png';
import { passBuilderIssues, type PassBuilderIssue } from './support/pass-builder-rules';

/** What a pass.json needs for Pass Builder to decode it at all. */
const IDENTITY = {
  formatVersion: 1,
  passTypeIdentifier: 'pass.example.rules',
  serialNumber: 'serial-1',
  teamIdentifier: 'TEAMRULES1',
  organizationName: 'Brand Ltd',
  description: 'Brand pass',
};

const ICONS = ['icon.png', 'icon@2x.png', 'icon@3x.png'];

/** A package of `pass` and PNGs of the given names (one pixel each: only names count). */
function packageOf(
  pass: Record<string, unknown>,
  images: string[] = ICONS,
): Record<string, Buffer> {
  const files: Record<string, Buffer> = { 'pass.json': Buffer.from(JSON.stringify(pass)) };
  for (const name of images) files[name] = makePng({ width: 2, height: 2 });
  return files;
}

/** Issues as "severity RULE path", easy to compare. */
function found(issues: PassBuilderIssue[]): string[] {
  return issues.map((issue) => `${issue.severity} ${issue.rule} ${issue.path}`);
}

function issuesOf(pass: Record<string, unknown>, images?: string[]): string[] {
  return found(passBuilderIssues(packageOf({ ...IDENTITY, ...pass }, images)));
}

const POSTER = ['posterEventTicket', 'eventTicket'];
const SEMANTIC_BOARDING = ['semanticBoardingPass', 'boardingPass'];

/** A poster event ticket that meets every rule. */
const POSTER_TICKET = {
  eventTicket: {},
  preferredStyleSchemes: POSTER,
  nfc: { message: 'm', encryptionPublicKey: 'k', requiresAuthentication: true },
  semantics: {
    eventName: 'Summer Gala',
    venueName: 'Riverside Hall',
    eventStartDate: '2026-07-01T19:30:00+02:00',
    eventEndDate: '2026-07-01T23:00:00+02:00',
    seats: [{ seatNumber: '7' }],
  },
};
const POSTER_IMAGES = [...ICONS, 'artwork.png'];

/** A semantic boarding pass that meets every rule. */
const SEMANTIC_FLIGHT = {
  boardingPass: { transitType: 'PKTransitTypeAir' },
  preferredStyleSchemes: SEMANTIC_BOARDING,
  semantics: {
    airlineCode: 'LX',
    flightNumber: 318,
    originalDepartureDate: '2026-05-01T11:05:00Z',
    originalBoardingDate: '2026-05-01T12:25:00+02:00',
    originalArrivalDate: '2026-05-01T15:55:00-04:00',
    departureAirportTimeZone: 'Europe/Zurich',
    departureAirportCode: 'ZRH',
    departureCityName: 'Zurich',
    destinationAirportTimeZone: 'America/New_York',
    destinationAirportCode: 'JFK',
    destinationCityName: 'New York',
    passengerName: { givenName: 'Maya', familyName: 'Rivera' },
    seats: [{ seatNumber: '3A' }],
  },
};

describe('the port of Pass Builder’s validator', () => {
  describe('event tickets (EventTicketValidator)', () => {
    it('finds nothing in a complete poster event ticket', () => {
      expect(issuesOf(POSTER_TICKET, POSTER_IMAGES)).toEqual([]);
    });

    it('refuses a poster event ticket without nfc, then one whose nfc leaves out requiresAuthentication', () => {
      expect(issuesOf({ ...POSTER_TICKET, nfc: undefined }, POSTER_IMAGES)).toEqual([
        'error PASS_VALIDATION_EVENT_MISSING_NFC nfc',
      ]);
      expect(
        issuesOf(
          { ...POSTER_TICKET, nfc: { message: 'm', encryptionPublicKey: 'k' } },
          POSTER_IMAGES,
        ),
      ).toEqual(['error PASS_VALIDATION_EVENT_MISSING_NFC_AUTH nfc.requiresAuthentication']);
    });

    it('takes requiresAuthentication: false (the rule asks for a value, not for true)', () => {
      const nfc = { message: 'm', encryptionPublicKey: 'k', requiresAuthentication: false };
      expect(issuesOf({ ...POSTER_TICKET, nfc }, POSTER_IMAGES)).toEqual([]);
    });

    it('checks only an event ticket whose schemes name the poster', () => {
      const bare = { eventTicket: {} };
      expect(issuesOf(bare)).toEqual([]);
      expect(issuesOf({ ...bare, preferredStyleSchemes: ['eventTicket'] })).toEqual([]);
      expect(issuesOf({ ...bare, preferredStyleSchemes: ['posterEventTicket'] })).toEqual([
        'error PASS_VALIDATION_EVENT_MISSING_NFC nfc',
        'error PASS_VALIDATION_EVENT_MISSING_EVENT_NAME semantics.eventName',
        'error PASS_VALIDATION_EVENT_MISSING_VENUE_NAME semantics.venueName',
        'warning PASS_VALIDATION_EVENT_MISSING_START_DATE semantics.eventStartDate',
        'error PASS_VALIDATION_EVENT_MISSING_ARTWORK_IMAGE artwork.png',
        'warning PASS_VALIDATION_EVENT_MISSING_SEAT semantics.seats',
      ]);
      // A coupon, say, never opts into the poster whatever its schemes say.
      expect(issuesOf({ coupon: {}, preferredStyleSchemes: POSTER })).toEqual([]);
    });

    it('judges a pass with both style keys as a boarding pass, by its boarding scheme', () => {
      const both = { ...POSTER_TICKET, boardingPass: {} };
      expect(issuesOf(both, POSTER_IMAGES)).toEqual([]);
    });

    it('wants the event and venue names, empty strings counting as none', () => {
      const semantics = { ...POSTER_TICKET.semantics, eventName: '', venueName: undefined };
      expect(issuesOf({ ...POSTER_TICKET, semantics }, POSTER_IMAGES)).toEqual([
        'error PASS_VALIDATION_EVENT_MISSING_EVENT_NAME semantics.eventName',
        'error PASS_VALIDATION_EVENT_MISSING_VENUE_NAME semantics.venueName',
      ]);
    });

    it('recommends a start date, and warns of an end before it (by instant, across zones)', () => {
      const semantics = POSTER_TICKET.semantics;
      expect(
        issuesOf(
          { ...POSTER_TICKET, semantics: { ...semantics, eventStartDate: undefined } },
          POSTER_IMAGES,
        ),
      ).toEqual(['warning PASS_VALIDATION_EVENT_MISSING_START_DATE semantics.eventStartDate']);
      const ends = (eventEndDate: string) =>
        issuesOf({ ...POSTER_TICKET, semantics: { ...semantics, eventEndDate } }, POSTER_IMAGES);
      expect(ends('2026-07-01T19:00:00+02:00')).toEqual([
        'warning PASS_VALIDATION_EVENT_START_AFTER_END semantics.eventEndDate',
      ]);
      // 17:30Z is 19:30 in Paris: the same instant is no error, nor is a later one.
      expect(ends('2026-07-01T17:30:00Z')).toEqual([]);
      expect(ends('2026-07-01T17:29:59.999Z')).toEqual([
        'warning PASS_VALIDATION_EVENT_START_AFTER_END semantics.eventEndDate',
      ]);
      expect(ends('2026-07-01T17:31Z')).toEqual([]);
    });

    it('wants both teams’ abbreviations of a sports event', () => {
      const semantics = { ...POSTER_TICKET.semantics, eventType: 'PKEventTypeSports' };
      expect(issuesOf({ ...POSTER_TICKET, semantics }, POSTER_IMAGES)).toEqual([
        'error PASS_VALIDATION_EVENT_MISSING_AWAY_TEAM_ABBREVIATION semantics.awayTeamAbbreviation',
        'error PASS_VALIDATION_EVENT_MISSING_HOME_TEAM_ABBREVIATION semantics.homeTeamAbbreviation',
      ]);
      const teams = { ...semantics, awayTeamAbbreviation: 'AWY', homeTeamAbbreviation: 'HOM' };
      expect(issuesOf({ ...POSTER_TICKET, semantics: teams }, POSTER_IMAGES)).toEqual([]);
    });

    it('wants a live performance’s performers and recommends its artist IDs', () => {
      const semantics = {
        ...POSTER_TICKET.semantics,
        eventType: 'PKEventTypeLivePerformance',
        performerNames: [],
      };
      expect(issuesOf({ ...POSTER_TICKET, semantics }, POSTER_IMAGES)).toEqual([
        'error PASS_VALIDATION_EVENT_MISSING_LIVE_PERFORMERS semantics.performerNames',
        'warning PASS_VALIDATION_EVENT_MISSING_ARTIST_IDS semantics.artistIDs',
      ]);
      const named = { ...semantics, performerNames: ['Band'], artistIDs: ['123'] };
      expect(issuesOf({ ...POSTER_TICKET, semantics: named }, POSTER_IMAGES)).toEqual([]);
      // Another event type asks for neither.
      const movie = { ...semantics, eventType: 'PKEventTypeMovie' };
      expect(issuesOf({ ...POSTER_TICKET, semantics: movie }, POSTER_IMAGES)).toEqual([]);
    });

    it('wants the artwork or a background, at any scale, as PNG or PDF', () => {
      expect(issuesOf(POSTER_TICKET, ICONS)).toEqual([
        'error PASS_VALIDATION_EVENT_MISSING_ARTWORK_IMAGE artwork.png',
      ]);
      for (const image of ['background.png', 'artwork@2x.png', 'artwork@3x.pdf', 'artwork.pdf']) {
        expect(issuesOf(POSTER_TICKET, [...ICONS, image])).toEqual([]);
      }
      // A localized artwork or another extension is no artwork to Pass Builder.
      for (const image of ['en.lproj/artwork.png', 'artwork.jpg', 'Artwork.png']) {
        expect(issuesOf(POSTER_TICKET, [...ICONS, image])).toEqual([
          'error PASS_VALIDATION_EVENT_MISSING_ARTWORK_IMAGE artwork.png',
        ]);
      }
    });
  });

  describe('seats (SeatValidator)', () => {
    it('recommends seats on a poster event ticket and on a semantic boarding pass', () => {
      const seatless = { ...POSTER_TICKET.semantics, seats: [] };
      expect(issuesOf({ ...POSTER_TICKET, semantics: seatless }, POSTER_IMAGES)).toEqual([
        'warning PASS_VALIDATION_EVENT_MISSING_SEAT semantics.seats',
      ]);
      const flight = { ...SEMANTIC_FLIGHT.semantics, seats: undefined };
      expect(issuesOf({ ...SEMANTIC_FLIGHT, semantics: flight })).toEqual([
        'warning PASS_VALIDATION_EVENT_MISSING_SEAT semantics.seats',
      ]);
    });

    it('leaves classic tickets and boarding passes alone', () => {
      expect(issuesOf({ boardingPass: {}, semantics: {} })).toEqual([]);
      expect(
        issuesOf({ eventTicket: {}, preferredStyleSchemes: ['semanticBoardingPass'] }),
      ).toEqual([]);
    });
  });

  describe('boarding passes (BoardingPassValidator)', () => {
    it('finds nothing in a complete semantic boarding pass', () => {
      expect(issuesOf(SEMANTIC_FLIGHT)).toEqual([]);
    });

    it('wants departureAirportTimeZone, whatever departureLocationTimeZone says', () => {
      const semantics = {
        ...SEMANTIC_FLIGHT.semantics,
        departureAirportTimeZone: undefined,
        departureLocationTimeZone: 'Europe/Zurich',
      };
      expect(issuesOf({ ...SEMANTIC_FLIGHT, semantics })).toEqual([
        'error PASS_VALIDATION_EVENT_MISSING_DEPARTURE_AIRPORT_TIMEZONE semantics.departureAirportTimeZone',
      ]);
    });

    it('names each missing key with its severity, in Pass Builder’s order', () => {
      expect(issuesOf({ boardingPass: {}, preferredStyleSchemes: SEMANTIC_BOARDING })).toEqual([
        'warning PASS_VALIDATION_EVENT_MISSING_SEAT semantics.seats',
        'error PASS_VALIDATION_EVENT_MISSING_AIRLINE_CODE semantics.airlineCode',
        'error PASS_VALIDATION_EVENT_MISSING_FLIGHT_NUMBER semantics.flightNumber',
        'error PASS_VALIDATION_EVENT_MISSING_DEPARTURE_DATE semantics.originalDepartureDate',
        'error PASS_VALIDATION_EVENT_MISSING_BOARDING_DATE semantics.originalBoardingDate',
        'error PASS_VALIDATION_EVENT_MISSING_ARRIVAL_DATE semantics.originalArrivalDate',
        'error PASS_VALIDATION_EVENT_MISSING_DEPARTURE_AIRPORT_TIMEZONE semantics.departureAirportTimeZone',
        'error PASS_VALIDATION_EVENT_MISSING_DEPARTURE_AIRPORT_CODE semantics.departureAirportCode',
        'warning PASS_VALIDATION_EVENT_MISSING_DEPARTURE_CITY_NAME semantics.departureCityName',
        'warning PASS_VALIDATION_EVENT_MISSING_DESTINATION_AIRPORT_TIMEZONE semantics.destinationAirportTimeZone',
        'error PASS_VALIDATION_EVENT_MISSING_DESTINATION_AIRPORT_CODE semantics.destinationAirportCode',
        'warning PASS_VALIDATION_EVENT_MISSING_DESTINATION_CITY_NAME semantics.destinationCityName',
        'error PASS_VALIDATION_EVENT_MISSING_PASSENGER_NAME semantics.passengerName',
      ]);
    });

    it('counts "" as missing for strings, but a flight number of 0 as one', () => {
      const semantics = { ...SEMANTIC_FLIGHT.semantics, airlineCode: '', flightNumber: 0 };
      expect(issuesOf({ ...SEMANTIC_FLIGHT, semantics })).toEqual([
        'error PASS_VALIDATION_EVENT_MISSING_AIRLINE_CODE semantics.airlineCode',
      ]);
    });

    it('wants a passenger name with any part but its phonetic representation', () => {
      const named = (passengerName: unknown) =>
        issuesOf({
          ...SEMANTIC_FLIGHT,
          semantics: { ...SEMANTIC_FLIGHT.semantics, passengerName },
        });
      const missing = [
        'error PASS_VALIDATION_EVENT_MISSING_PASSENGER_NAME semantics.passengerName',
      ];
      expect(named({})).toEqual(missing);
      expect(named({ phoneticRepresentation: 'MAI-uh' })).toEqual(missing);
      expect(named({ nickname: 'May' })).toEqual([]);
      // Pass Builder asks whether the parts are nil: an empty given name is a name.
      expect(named({ givenName: '' })).toEqual([]);
    });

    it('checks only a boarding pass whose schemes name the semantic boarding pass', () => {
      expect(issuesOf({ boardingPass: {}, preferredStyleSchemes: ['boardingPass'] })).toEqual([]);
      expect(issuesOf({ boardingPass: {}, preferredStyleSchemes: POSTER })).toEqual([]);
    });
  });

  describe('field formatting (FieldFormattingValidator)', () => {
    const both = {
      key: 'price',
      value: 5,
      currencyCode: 'EUR',
      numberStyle: 'PKNumberStyleDecimal',
    };

    it('warns of a field with both a currency code and a number style, in every style and group', () => {
      for (const style of [
        'storeCard',
        'coupon',
        'eventTicket',
        'generic',
        'boardingPass',
        'posterGeneric',
      ]) {
        for (const group of [
          'headerFields',
          'primaryFields',
          'secondaryFields',
          'auxiliaryFields',
          'footerFields',
          'backFields',
        ]) {
          expect(issuesOf({ [style]: { [group]: [{ key: 'a', value: 1 }, both] } })).toEqual([
            `warning VALIDATION_ISSUE_CURRENCY_CODE_AND_NUMBER_FORMATTER ${style}.${group}[1].currencyCode`,
          ]);
        }
      }
    });

    it('counts an empty currency code, and skips additionalInfoFields as Pass Builder does', () => {
      expect(issuesOf({ generic: { backFields: [{ ...both, currencyCode: '' }] } })).toEqual([
        'warning VALIDATION_ISSUE_CURRENCY_CODE_AND_NUMBER_FORMATTER generic.backFields[0].currencyCode',
      ]);
      expect(issuesOf({ generic: { additionalInfoFields: [both] } })).toEqual([]);
    });

    it('takes either alone', () => {
      const currency = { key: 'price', value: 5, currencyCode: 'EUR' };
      const number = { key: 'share', value: 0.5, numberStyle: 'PKNumberStylePercent' };
      expect(issuesOf({ storeCard: { primaryFields: [currency, number] } })).toEqual([]);
    });
  });

  describe('the icon (RequiredImagesValidator)', () => {
    it('recommends icon@2x and icon@3x beside an icon.png', () => {
      expect(issuesOf({ generic: {} }, ['icon.png'])).toEqual([
        'warning VALIDATION_ISSUE_RECOMMENDED_IMAGE_NOT_PROVIDED icon@2x.png',
        'warning VALIDATION_ISSUE_RECOMMENDED_IMAGE_NOT_PROVIDED icon@3x.png',
      ]);
      expect(issuesOf({ generic: {} }, ['icon.png', 'icon@2x.png'])).toEqual([
        'warning VALIDATION_ISSUE_RECOMMENDED_IMAGE_NOT_PROVIDED icon@3x.png',
      ]);
      expect(issuesOf({ generic: {} }, ['icon.pdf', 'icon@2x.pdf', 'icon@3x.png'])).toEqual([]);
    });

    it('takes any scale as the icon, without an icon.png', () => {
      expect(issuesOf({ generic: {} }, ['icon@3x.png'])).toEqual([
        'warning VALIDATION_ISSUE_RECOMMENDED_IMAGE_NOT_PROVIDED icon@2x.png',
      ]);
    });

    it('requires icon@2x and icon@3x when there is no icon (a localized one does not count)', () => {
      const required = [
        'error VALIDATION_ISSUE_REQUIRED_IMAGE_NOT_PROVIDED icon@2x.png',
        'error VALIDATION_ISSUE_REQUIRED_IMAGE_NOT_PROVIDED icon@3x.png',
      ];
      expect(issuesOf({ generic: {} }, [])).toEqual(required);
      expect(issuesOf({ generic: {} }, ['de.lproj/icon.png', 'icon.jpg'])).toEqual(required);
    });

    it('reads no image of a package without pass.json', () => {
      const files = { 'icon.png': makePng(), 'icon@2x.png': makePng(), 'icon@3x.png': makePng() };
      expect(found(passBuilderIssues(files))).toEqual([
        'error PACKAGE_NO_PASS_JSON pass.json',
        'error VALIDATION_ISSUE_REQUIRED_IMAGE_NOT_PROVIDED icon@2x.png',
        'error VALIDATION_ISSUE_REQUIRED_IMAGE_NOT_PROVIDED icon@3x.png',
      ]);
    });
  });

  describe('decoding pass.json into Pass Builder’s model', () => {
    it('refuses a pass.json that is not JSON, or not an object', () => {
      const notJson = {
        'pass.json': Buffer.from('{"formatVersion": 1,'),
        'icon@2x.png': makePng(),
      };
      expect(found(passBuilderIssues(notJson))).toEqual([
        'error DECODE_JSON pass.json',
        'warning VALIDATION_ISSUE_RECOMMENDED_IMAGE_NOT_PROVIDED icon@3x.png',
      ]);
      const array = { ...packageOf({}), 'pass.json': Buffer.from('[]') };
      expect(found(passBuilderIssues(array))).toEqual(['error DECODE_TYPE pass.json']);
    });

    it('requires the identity keys, which the model declares without optionals', () => {
      const pass: Record<string, unknown> = { ...IDENTITY, serialNumber: null };
      delete pass.teamIdentifier;
      expect(found(passBuilderIssues(packageOf(pass)))).toEqual([
        'error DECODE_NULL serialNumber',
        'error DECODE_MISSING_KEY teamIdentifier',
      ]);
    });

    it('refuses top-level values of the wrong type', () => {
      expect(
        issuesOf({
          serialNumber: 42,
          formatVersion: '1',
          sharingProhibited: 'true',
          voided: 1,
          associatedStoreIdentifiers: ['123'],
          maxDistance: '100',
          preferredStyleSchemes: 'posterEventTicket',
          semantics: [],
          locations: {},
        }),
      ).toEqual([
        'error DECODE_TYPE formatVersion',
        'error DECODE_TYPE serialNumber',
        'error DECODE_TYPE sharingProhibited',
        'error DECODE_TYPE associatedStoreIdentifiers[0]',
        'error DECODE_TYPE voided',
        'error DECODE_TYPE maxDistance',
        'error DECODE_TYPE locations',
        'error DECODE_TYPE preferredStyleSchemes',
        'error DECODE_TYPE semantics',
      ]);
    });

    it('takes null as absent for an optional key', () => {
      expect(issuesOf({ generic: {}, webServiceURL: null, semantics: null, nfc: null })).toEqual(
        [],
      );
    });

    it('ignores keys the model does not declare, at any depth', () => {
      expect(
        issuesOf({
          generic: { unknownGroup: 5 },
          userInfo: 5,
          semantics: { departureLocationTimeZone: 5, eventLiveMessage: [] },
          nfc: { message: 'm', encryptionPublicKey: 'k', extra: {} },
        }),
      ).toEqual([]);
    });

    it('requires integers where the model declares Int or UInt16', () => {
      expect(
        issuesOf({
          formatVersion: 1.5,
          associatedStoreIdentifiers: [123.0, 1e300],
          beacons: [
            { proximityUUID: 'u', major: 70000, minor: -1 },
            { major: 65535, minor: 0 },
          ],
        }),
      ).toEqual([
        'error DECODE_INTEGER formatVersion',
        'error DECODE_INTEGER associatedStoreIdentifiers[1]',
        'error DECODE_INTEGER beacons[0].major',
        'error DECODE_INTEGER beacons[0].minor',
      ]);
    });

    it('checks nfc: both its strings are required, requiresAuthentication is a boolean', () => {
      expect(
        issuesOf({ generic: {}, nfc: { message: 'm', requiresAuthentication: 'yes' } }),
      ).toEqual([
        'error DECODE_MISSING_KEY nfc.encryptionPublicKey',
        'error DECODE_TYPE nfc.requiresAuthentication',
      ]);
      // On a poster ticket the refused value then counts as missing.
      const nfc = { message: 'm', encryptionPublicKey: 'k', requiresAuthentication: 'yes' };
      expect(issuesOf({ ...POSTER_TICKET, nfc }, POSTER_IMAGES)).toEqual([
        'error DECODE_TYPE nfc.requiresAuthentication',
        'error PASS_VALIDATION_EVENT_MISSING_NFC_AUTH nfc.requiresAuthentication',
      ]);
    });

    it('checks barcodes: a known format is required, nulls are refused', () => {
      expect(
        issuesOf({
          barcode: { message: 'x' },
          barcodes: [
            { format: 'PKBarcodeFormatQR', message: 'x', messageEncoding: 'iso-8859-1' },
            { format: 'PKBarcodeFormatEAN13', message: '4006381333931' },
            { format: 'PKBarcodeFormatDataMatrix', message: 'x' },
            null,
            { format: 'PKBarcodeFormatQR', message: 5 },
          ],
        }),
      ).toEqual([
        'error DECODE_MISSING_KEY barcode.format',
        'error DECODE_ENUM barcodes[2].format',
        'error DECODE_NULL barcodes[3]',
        'error DECODE_TYPE barcodes[4].message',
      ]);
    });

    it('checks fields: key required, enumerations known, a value of any type', () => {
      expect(
        issuesOf({
          eventTicket: {
            transitType: 'PKTransitTypeAir',
            primaryFields: [
              { label: 'No key', value: 'x' },
              { key: 'a', value: true, textAlignment: 'PKTextAlignmentJustified' },
              {
                key: 'b',
                value: { nested: 1 },
                dataDetectorTypes: ['PKDataDetectorTypeLink', 'x'],
              },
              { key: 'c', value: null, dateStyle: 'PKDateStyleShort', timeStyle: 'short' },
              { key: 'd', value: 5, numberStyle: 'PKNumberStyleCurrency', isRelative: 'no' },
            ],
            backFields: [{ key: 7, value: 'x' }],
          },
        }),
      ).toEqual([
        'error DECODE_MISSING_KEY eventTicket.primaryFields[0].key',
        'error DECODE_ENUM eventTicket.primaryFields[1].textAlignment',
        'error DECODE_ENUM eventTicket.primaryFields[2].dataDetectorTypes[1]',
        'error DECODE_ENUM eventTicket.primaryFields[3].timeStyle',
        'error DECODE_TYPE eventTicket.primaryFields[4].isRelative',
        'error DECODE_ENUM eventTicket.primaryFields[4].numberStyle',
        'error DECODE_TYPE eventTicket.backFields[0].key',
      ]);
    });

    it('checks semantics at depth: seats, names, locations, amounts, wifi', () => {
      expect(
        issuesOf({
          generic: {},
          semantics: {
            eventType: 'PKEventTypeOpera',
            flightNumber: '318',
            duration: 90.5,
            seats: [{ seatNumber: 7, seatSectionColor: 'red' }, 'A1'],
            passengerName: 'Maya Rivera',
            venueLocation: { latitude: '48.85', longitude: 2.35 },
            totalPrice: { amount: 20, currencyCode: 'EUR' },
            wifiAccess: [{ ssid: 'net', password: 1234 }],
            performerNames: ['Band', 3],
            eventStartDateInfo: { date: 'not a date', unannounced: 'yes' },
            tailgatingAllowed: 0,
          },
        }),
      ).toEqual([
        'error DECODE_TYPE semantics.performerNames[1]',
        'error DECODE_ENUM semantics.eventType',
        'error DECODE_TYPE semantics.eventStartDateInfo.unannounced',
        'error DECODE_TYPE semantics.seats[0].seatNumber',
        'error DECODE_COLOR semantics.seats[0].seatSectionColor',
        'error DECODE_TYPE semantics.seats[1]',
        'error DECODE_TYPE semantics.tailgatingAllowed',
        'error DECODE_TYPE semantics.venueLocation.latitude',
        'error DECODE_INTEGER semantics.duration',
        'error DECODE_TYPE semantics.flightNumber',
        'error DECODE_TYPE semantics.passengerName',
        'error DECODE_TYPE semantics.totalPrice.amount',
        'error DECODE_TYPE semantics.wifiAccess[0].password',
      ]);
    });

    it('counts a refused semantic value as missing for the rules', () => {
      const semantics = { ...SEMANTIC_FLIGHT.semantics, flightNumber: '318' };
      expect(issuesOf({ ...SEMANTIC_FLIGHT, semantics })).toEqual([
        'error DECODE_TYPE semantics.flightNumber',
        'error PASS_VALIDATION_EVENT_MISSING_FLIGHT_NUMBER semantics.flightNumber',
      ]);
    });

    it('checks upcoming pass information, with its own semantics and fields', () => {
      expect(
        issuesOf({
          eventTicket: {},
          upcomingPassInformation: [
            {
              identifier: 'day-1',
              name: 'Opening night',
              type: 'event',
              isActive: true,
              dateInformation: { date: '2026-07-10T18:00:00+02:00', timeZone: 'Europe/Paris' },
              semantics: { eventName: 'Opening', venueName: 'Main Stage' },
              images: { headerImage: { urls: [{ url: 'https://x', scale: 2, size: 1024 }] } },
            },
            {
              identifier: 'day-2',
              isActive: 'yes',
              dateInformation: { date: '2026-07-11' },
              semantics: { eventStartDate: 1720000000 },
              backFields: [{ value: 'no key' }],
              images: { venueMap: { urls: [{ url: 'https://x', size: 1.5 }] } },
              urls: { sellURL: ['https://x'] },
            },
          ],
        }),
      ).toEqual([
        'error DECODE_TYPE upcomingPassInformation[1].urls.sellURL',
        'error DECODE_MISSING_KEY upcomingPassInformation[1].backFields[0].key',
        'error DECODE_DATE upcomingPassInformation[1].dateInformation.date',
        'error DECODE_INTEGER upcomingPassInformation[1].images.venueMap.urls[0].size',
        'error DECODE_TYPE upcomingPassInformation[1].isActive',
        'error DECODE_TYPE upcomingPassInformation[1].semantics.eventStartDate',
      ]);
    });

    it('reads colours as #RRGGBB, #RGB or rgb(r,g,b), and nothing else', () => {
      const colour = (backgroundColor: unknown) => issuesOf({ generic: {}, backgroundColor });
      for (const readable of [
        'rgb(16, 32, 48)',
        'RGB(1,2,3)',
        ' rgb( 300 , -5 , +7 ) ',
        '#102030',
        '#abc',
        '#+12345',
      ]) {
        expect(colour(readable)).toEqual([]);
      }
      for (const unreadable of [
        'red',
        'rgba(1,2,3,0.5)',
        'rgb(1,2)',
        'rgb(1.5,2,3)',
        '#abcd',
        '#12345g',
        '',
      ]) {
        expect(colour(unreadable)).toEqual(['error DECODE_COLOR backgroundColor']);
      }
      expect(colour(0x102030)).toEqual(['error DECODE_TYPE backgroundColor']);
    });

    it('reads dates as Pass Builder’s decoder does', () => {
      const date = (relevantDate: unknown) => issuesOf({ generic: {}, relevantDate });
      for (const readable of [
        '2026-07-01T19:30:00+02:00',
        '2026-07-01T19:30:00Z',
        '2026-07-01T19:30:00.123456789-04:00',
        // Seconds may be left out, and Foundation's parser is lenient about digit counts.
        '2026-07-01T19:30+02:00',
        '2026-7-1T9:30:00Z',
        '2026-07-01T24:00:00Z',
        '2026-07-01T19:30:60Z',
        // A day past the month's end rolls over, as Foundation's calendar does.
        '2026-02-30T10:00:00Z',
        // "GMT" or "UTC" may precede the offset.
        '2026-07-01T19:30:00GMT+02:00',
        '2026-07-01T19:30:00+18:00',
      ]) {
        expect([readable, date(readable)]).toEqual([readable, []]);
      }
      for (const unreadable of [
        '2026-07-01',
        '2026-07-01T19:30:00',
        '2026-07-01 19:30:00+02:00',
        '2026-07-01T19:30:00+0200',
        '2026-07-01T19:30:00+02',
        '2026-07-01T19:30:00 +02:00',
        '2026-07-01T19:30:00z',
        '2026-07-01T19:30:00Zjunk',
        '2026-07-01T19:30:00.1234567890Z',
        '2026-07-01T19Z',
        '2026-07-01T25:00:00Z',
        '2026-07-01T24:00:01Z',
        '2026-13-01T10:00:00Z',
        '2026-07-32T10:00:00Z',
        '2026-07-01T19:30:00+19:00',
        '2026-07-01T19:30.5Z',
        '',
      ]) {
        expect([unreadable, date(unreadable)]).toEqual([
          unreadable,
          ['error DECODE_DATE relevantDate'],
        ]);
      }
      expect(date(1719856200)).toEqual(['error DECODE_TYPE relevantDate']);
    });

    it('checks every date the model declares', () => {
      const bad = '2026-07-01';
      expect(
        issuesOf({
          generic: {},
          expirationDate: bad,
          relevantDates: [{ startDate: bad, endDate: '2026-07-01T20:00:00Z', date: bad }],
          semantics: { venueDoorsOpenDate: bad, currentBoardingDate: bad },
        }),
      ).toEqual([
        'error DECODE_DATE expirationDate',
        'error DECODE_DATE relevantDates[0].date',
        'error DECODE_DATE relevantDates[0].startDate',
        'error DECODE_DATE semantics.venueDoorsOpenDate',
        'error DECODE_DATE semantics.currentBoardingDate',
      ]);
    });

    it('gives each issue a plain-English message', () => {
      const issues = passBuilderIssues(
        packageOf({ ...IDENTITY, ...POSTER_TICKET, nfc: undefined, relevantDate: 'soon' }, [
          'icon.png',
        ]),
      );
      for (const issue of issues) expect(issue.message).toMatch(/^[^\n]{10,}$/);
      expect(issues.map((issue) => issue.message)).toContain(
        'A poster event ticket needs NFC data (nfc).',
      );
    });
  });
});
