/**
 * The checks of Apple's Pass Builder, in TypeScript, for the tests.
 *
 * Pass Builder (https://github.com/apple/pass-builder, Apache-2.0) is Apple's Swift package and
 * `buildpass` command-line tool that reads an unsigned pass package, validates it, personalizes
 * templates and signs packages. This file re-implements the checks of its `buildpass validate`
 * in our own code, as read at commit 63efd0f7a03c1e41d9146a2d0635ccae04b3e3ae. Swift does not
 * run in our CI, so the rules are ported rather than called; the rule names are Apple's message
 * keys (from Sources/PassBuilder/Resources/Localizable.xcstrings) so that a failure can be looked
 * up there, and the English messages are ours.
 *
 * Ported, with the same conditions, severities and order (PassValidator's plugin order):
 * - EventTicketValidator, for an `eventTicket` whose `preferredStyleSchemes` name
 *   `posterEventTicket`: NFC and its `requiresAuthentication`, event and venue names, start date,
 *   start after end, sports teams, live performers and artist IDs, artwork or background image.
 * - SeatValidator, for a poster event ticket or a semantic boarding pass: `semantics.seats`.
 * - BoardingPassValidator, for a `boardingPass` whose schemes name `semanticBoardingPass`:
 *   airline, flight number, original departure, boarding and arrival dates, both airports' codes,
 *   time zones and cities, the passenger's name.
 * - FieldFormattingValidator, every pass: a field with both `currencyCode` and `numberStyle`.
 * - RequiredImagesValidator, every pass: the icon and its @2x and @3x variants.
 * - What decoding pass.json into Pass Builder's Codable model refuses (our own rule names,
 *   DECODE_*): a value of another JSON type than the model declares, at any depth the model
 *   declares; a required key left out or null; an integer that is not one or does not fit; an
 *   enumeration's unknown value; a colour neither `#RRGGBB`/`#RGB` nor `rgb(r,g,b)`; a date its
 *   decoder cannot read. Keys the model does not declare are ignored, as Swift's Codable ignores
 *   them, so PassKit keys newer than the model pass unchecked.
 *
 * Where this port differs on purpose: Pass Builder stops at the first value it cannot decode and
 * validates nothing; this port reports every such value, then runs the rules as if each refused
 * value were absent, so one test run shows everything.
 *
 * Not ported:
 * - Signing (manifest, PKCS #7 signature, zip): it needs Apple certificates, and it checks
 *   nothing about the pass; our own specs check our signatures with openssl.
 * - Template personalization (its protobuf model) and the fix-its it runs when a pass is edited:
 *   reading a package assigns the decoded pass without them, so validation never sees them.
 * - Image sizes: the model records Apple's sizes, but no rule checks them, and checking would
 *   need image decoding. An image counts by its file name alone, as it does in Pass Builder.
 * - Localizations: Pass Builder reads neither `*.lproj/pass.strings` nor localized images, so
 *   an icon only in `de.lproj/` is no icon to it, nor to this port.
 * - `tooling.json` (Pass Designer's file, whose errors it swallows), plugins registered at run
 *   time, and the Julian calendar Foundation uses for dates before 1582, which no pass has.
 */

export type PassBuilderSeverity = 'error' | 'warning';

export interface PassBuilderIssue {
  severity: PassBuilderSeverity;
  /** Apple's message key (PASS_VALIDATION_EVENT_MISSING_NFC, ...), or DECODE_* for decoding. */
  rule: string;
  /** A key path in pass.json (`semantics.seats[0].seatNumber`), or a file name (`icon@2x.png`). */
  path: string;
  message: string;
}

/** The commit of github.com/apple/pass-builder whose rules these are. */
export const PASS_BUILDER_COMMIT = '63efd0f7a03c1e41d9146a2d0635ccae04b3e3ae';

/**
 * Every issue Pass Builder's validator (and its decoding of pass.json) finds in a package.
 * `files`: the package's files by path (`pass.json`, `icon@2x.png`, `de.lproj/pass.strings`).
 */
export function passBuilderIssues(files: Record<string, Buffer>): PassBuilderIssue[] {
  const issues: PassBuilderIssue[] = [];
  const passJson = Object.hasOwn(files, 'pass.json') ? files['pass.json'] : undefined;
  if (passJson === undefined) {
    // Pass Builder opens such a directory as an empty pass without reading its images, so the
    // icon rule fires whatever images there are; the error of our own says why.
    issues.push({
      severity: 'error',
      rule: 'PACKAGE_NO_PASS_JSON',
      path: 'pass.json',
      message: 'The package has no pass.json: Pass Builder opens it as an empty pass.',
    });
    issues.push(...requiredImageIssues(() => false));
    return issues;
  }
  const pass = decodePassJson(passJson, issues);
  const hasFile = (name: string) => Object.hasOwn(files, name);
  issues.push(...ruleIssues(pass, hasFile));
  return issues;
}

// ---------------------------------------------------------------------------------------------
// Decoding: the JSON types of Pass Builder's Codable model (Sources/PassBuilder/PassPackage).

type JsonObject = { [key: string]: unknown };

/** A JSON type of the model, as Swift's JSONDecoder reads it. */
type Schema =
  | { type: 'string' }
  | { type: 'bool' }
  /** Int (64-bit) and UInt16: any JSON number holding a whole value in range, `34.0` too. */
  | { type: 'integer'; swiftType: string; min: bigint; max: bigint }
  | { type: 'number' }
  | { type: 'date' }
  | { type: 'color' }
  | { type: 'enum'; values: readonly string[] }
  | { type: 'array'; of: Schema }
  /**
   * A struct: its keys, and those whose Swift property is not optional. Swift's synthesized
   * Codable ignores a property's default value when decoding, so such a key must be present.
   */
  | { type: 'object'; keys: { [key: string]: Schema }; required?: readonly string[] }
  /** A property behind `@CodableDefault`: any value is taken, or replaced by the default. */
  | { type: 'anything' };

const STRING: Schema = { type: 'string' };
const BOOL: Schema = { type: 'bool' };
const INT: Schema = {
  type: 'integer',
  swiftType: 'Int',
  min: -(2n ** 63n),
  max: 2n ** 63n - 1n,
};
const UINT16: Schema = { type: 'integer', swiftType: 'UInt16', min: 0n, max: 65535n };
const DOUBLE: Schema = { type: 'number' };
const DATE: Schema = { type: 'date' };
const COLOR: Schema = { type: 'color' };
const ANYTHING: Schema = { type: 'anything' };
const arrayOf = (of: Schema): Schema => ({ type: 'array', of });
const oneOf = (...values: string[]): Schema => ({ type: 'enum', values });
const object = (keys: { [key: string]: Schema }, required?: readonly string[]): Schema => ({
  type: 'object',
  keys,
  required,
});
const strings = (...keys: string[]): { [key: string]: Schema } =>
  Object.fromEntries(keys.map((key) => [key, STRING]));

const LOCATION = object({
  altitude: DOUBLE,
  latitude: DOUBLE,
  longitude: DOUBLE,
  relevantText: STRING,
});

// `value` and `_id` are behind @CodableDefault: a field's value of any type decodes.
const FIELD = object(
  {
    ...strings('key', 'label', 'attributedValue', 'changeMessage', 'currencyCode'),
    dataDetectorTypes: arrayOf(
      oneOf(
        'PKDataDetectorTypePhoneNumber',
        'PKDataDetectorTypeLink',
        'PKDataDetectorTypeAddress',
        'PKDataDetectorTypeCalendarEvent',
      ),
    ),
    textAlignment: oneOf(
      'PKTextAlignmentNatural',
      'PKTextAlignmentLeft',
      'PKTextAlignmentCenter',
      'PKTextAlignmentRight',
    ),
    value: ANYTHING,
    dateStyle: oneOf(
      'PKDateStyleNone',
      'PKDateStyleShort',
      'PKDateStyleMedium',
      'PKDateStyleLong',
      'PKDateStyleFull',
    ),
    timeStyle: oneOf(
      'PKDateStyleNone',
      'PKDateStyleShort',
      'PKDateStyleMedium',
      'PKDateStyleLong',
      'PKDateStyleFull',
    ),
    ignoresTimeZone: BOOL,
    isRelative: BOOL,
    numberStyle: oneOf(
      'PKNumberStyleDecimal',
      'PKNumberStylePercent',
      'PKNumberStyleScientific',
      'PKNumberStyleSpellOut',
    ),
    _id: ANYTHING,
  },
  ['key'],
);

const FIELD_GROUPS = [
  'headerFields',
  'primaryFields',
  'secondaryFields',
  'auxiliaryFields',
  'backFields',
  'additionalInfoFields',
  'footerFields',
] as const;

const FIELDS = object({
  ...Object.fromEntries(FIELD_GROUPS.map((group) => [group, arrayOf(FIELD)])),
  transitType: oneOf(
    'PKTransitTypeAir',
    'PKTransitTypeBoat',
    'PKTransitTypeBus',
    'PKTransitTypeGeneric',
    'PKTransitTypeTrain',
  ),
});

const BARCODE = object(
  {
    // Pass Builder knows four formats more than PassKit's QR, PDF417, Aztec and Code 128.
    format: oneOf(
      'PKBarcodeFormatQR',
      'PKBarcodeFormatPDF417',
      'PKBarcodeFormatAztec',
      'PKBarcodeFormatCode128',
      'PKBarcodeFormatCode39',
      'PKBarcodeFormatCodabar',
      'PKBarcodeFormatEAN13',
      'PKBarcodeFormatI2of5',
    ),
    ...strings('message', 'messageEncoding', 'altText'),
  },
  ['format'],
);

const CURRENCY_AMOUNT = object(strings('amount', 'currencyCode'));

const SEMANTICS = object({
  ...strings(
    'admissionLevel',
    'admissionLevelAbbreviation',
    'additionalTicketAttributes',
    'attendeeName',
    'entranceDescription',
    'eventName',
    'venueEntrance',
    'venueEntranceDoor',
    'venueEntranceGate',
    'venueEntrancePortal',
    'venueName',
    'venuePhoneNumber',
    'venueRegionName',
    'venueRoom',
    'awayTeamAbbreviation',
    'awayTeamLocation',
    'awayTeamName',
    'homeTeamAbbreviation',
    'homeTeamLocation',
    'homeTeamName',
    'leagueAbbreviation',
    'leagueName',
    'sportName',
    'genre',
    'airlineCode',
    'airlineLoungePlaceID',
    'boardingGroup',
    'boardingZone',
    'boardingSequenceNumber',
    'carNumber',
    'confirmationNumber',
    'departureAirportCode',
    'departureAirportName',
    'departureAirportTimeZone',
    'departureCityName',
    'departureGate',
    'departureLocationDescription',
    'departurePlatform',
    'departureStationName',
    'departureTerminal',
    'destinationAirportCode',
    'destinationAirportName',
    'destinationAirportTimeZone',
    'destinationCityName',
    'destinationGate',
    'destinationLocationDescription',
    'destinationPlatform',
    'destinationStationName',
    'destinationTerminal',
    'flightCode',
    'internationalDocumentsVerifiedDeclarationName',
    'membershipProgramName',
    'membershipProgramNumber',
    'priorityStatus',
    'securityScreening',
    'ticketFareClass',
    'transitProvider',
    'transitStatus',
    'transitStatusReason',
    'vehicleName',
    'vehicleNumber',
    'vehicleType',
  ),
  ...Object.fromEntries(
    [
      'eventStartDate',
      'eventEndDate',
      'venueBoxOfficeOpenDate',
      'venueCloseDate',
      'venueDoorsOpenDate',
      'venueFanZoneOpenDate',
      'venueGatesOpenDate',
      'venueOpenDate',
      'venueParkingLotsOpenDate',
      'currentArrivalDate',
      'currentBoardingDate',
      'currentDepartureDate',
      'originalBoardingDate',
      'originalDepartureDate',
      'originalArrivalDate',
    ].map((key) => [key, DATE]),
  ),
  ...Object.fromEntries(
    [
      'albumIDs',
      'artistIDs',
      'performerNames',
      'playlistIDs',
      'passengerCapabilities',
      'departureAirportSecurityPrograms',
      'destinationAirportSecurityPrograms',
      'passengerAirlineSSRs',
      'passengerInformationSSRs',
      'passengerServiceSSRs',
      'passengerEligibleSecurityPrograms',
    ].map((key) => [key, arrayOf(STRING)]),
  ),
  eventType: oneOf(
    'PKEventTypeGeneric',
    'PKEventTypeLivePerformance',
    'PKEventTypeMovie',
    'PKEventTypeSports',
    'PKEventTypeConference',
    'PKEventTypeConvention',
    'PKEventTypeWorkshop',
    'PKEventTypeSocialGathering',
  ),
  // Its `date` is a plain string to the model: only its type is checked.
  eventStartDateInfo: object({
    date: STRING,
    ignoreTimeComponents: BOOL,
    timeZone: STRING,
    unannounced: BOOL,
    undetermined: BOOL,
  }),
  seats: arrayOf(
    object({
      ...strings(
        'seatDescription',
        'seatIdentifier',
        'seatNumber',
        'seatRow',
        'seatSection',
        'seatAisle',
        'seatLevel',
        'seatType',
      ),
      seatSectionColor: COLOR,
      _id: ANYTHING,
    }),
  ),
  tailgatingAllowed: BOOL,
  venueLocation: LOCATION,
  departureLocation: LOCATION,
  destinationLocation: LOCATION,
  // Both are numbers to the model (a flight number of "318" is refused).
  duration: INT,
  flightNumber: INT,
  internationalDocumentsAreVerified: BOOL,
  passengerName: object(
    strings(
      'namePrefix',
      'givenName',
      'middleName',
      'familyName',
      'nameSuffix',
      'nickname',
      'phoneticRepresentation',
    ),
  ),
  balance: CURRENCY_AMOUNT,
  silenceRequested: BOOL,
  totalPrice: CURRENCY_AMOUNT,
  wifiAccess: arrayOf(object(strings('ssid', 'password'))),
});

const UPCOMING_IMAGE = object({
  urls: arrayOf(object({ sha256: STRING, url: STRING, scale: DOUBLE, size: INT })),
  reuseExisting: BOOL,
});

const UPCOMING_ENTRY = object({
  urls: object(
    strings(
      'accessibilityURL',
      'addOnURL',
      'bagPolicyURL',
      'contactVenueEmail',
      'contactVenuePhoneNumber',
      'contactVenueWebsite',
      'directionsInformationURL',
      'merchandiseURL',
      'orderFoodURL',
      'parkingInformationURL',
      'purchaseParkingURL',
      'sellURL',
      'transferURL',
      'transitInformationURL',
    ),
  ),
  additionalInfoFields: arrayOf(FIELD),
  auxiliaryStoreIdentifiers: arrayOf(INT),
  backFields: arrayOf(FIELD),
  dateInformation: object({
    date: DATE,
    ignoreTimeComponents: BOOL,
    isAllDay: BOOL,
    isUnannounced: BOOL,
    isUndetermined: BOOL,
    timeZone: STRING,
  }),
  identifier: STRING,
  images: object({ headerImage: UPCOMING_IMAGE, venueMap: UPCOMING_IMAGE }),
  isActive: BOOL,
  name: STRING,
  semantics: SEMANTICS,
  type: STRING,
});

const PASS_STYLES = [
  'boardingPass',
  'eventTicket',
  'coupon',
  'storeCard',
  'generic',
  'posterGeneric',
] as const;

const PASS = object(
  {
    ...Object.fromEntries(PASS_STYLES.map((style) => [style, FIELDS])),
    formatVersion: INT,
    ...strings(
      'serialNumber',
      'webServiceURL',
      'authenticationToken',
      'passTypeIdentifier',
      'teamIdentifier',
      'organizationName',
      'description',
      'eventLogoText',
      'logoText',
      'logoSymbolName',
      'groupingIdentifier',
      'accessibilityURL',
      'addOnURL',
      'appLaunchURL',
      'bagPolicyURL',
      'merchandiseURL',
      'orderFoodURL',
      'parkingInformationURL',
      'purchaseParkingURL',
      'sellURL',
      'transferURL',
      'transitInformationURL',
      'contactVenueEmail',
      'contactVenuePhoneNumber',
      'contactVenueWebsite',
      'directionsInformationURL',
      'changeSeatURL',
      'entertainmentURL',
      'purchaseAdditionalBaggageURL',
      'purchaseLoungeAccessURL',
      'purchaseWifiURL',
      'upgradeURL',
      'managementURL',
      'registerServiceAnimalURL',
      'reportLostBagURL',
      'requestWheelchairURL',
      'transitProviderEmail',
      'transitProviderPhoneNumber',
      'transitProviderWebsiteURL',
    ),
    sharingProhibited: BOOL,
    associatedStoreIdentifiers: arrayOf(INT),
    auxiliaryStoreIdentifiers: arrayOf(INT),
    expirationDate: DATE,
    voided: BOOL,
    barcode: BARCODE,
    barcodes: arrayOf(BARCODE),
    maxDistance: DOUBLE,
    relevantDate: DATE,
    relevantDates: arrayOf(object({ date: DATE, endDate: DATE, startDate: DATE })),
    locations: arrayOf(LOCATION),
    beacons: arrayOf(
      object({ major: UINT16, minor: UINT16, proximityUUID: STRING, relevantText: STRING }),
    ),
    backgroundColor: COLOR,
    foregroundColor: COLOR,
    labelColor: COLOR,
    stripColor: COLOR,
    footerBackgroundColor: COLOR,
    suppressHeaderDarkening: BOOL,
    useAutomaticColors: BOOL,
    featuredActions: arrayOf(object({ _id: ANYTHING, ...strings('identifier', 'type', 'url') })),
    // Both keys of NFC are non-optional properties, so an `nfc` without either is refused.
    nfc: object({ encryptionPublicKey: STRING, message: STRING, requiresAuthentication: BOOL }, [
      'encryptionPublicKey',
      'message',
    ]),
    preferredStyleSchemes: arrayOf(STRING),
    semantics: SEMANTICS,
    upcomingPassInformation: arrayOf(UPCOMING_ENTRY),
  },
  [
    'formatVersion',
    'serialNumber',
    'passTypeIdentifier',
    'teamIdentifier',
    'organizationName',
    'description',
  ],
);

// Decoding errors name their key path in the message too: the message alone should be enough.
function decodeIssue(rule: string, path: string, message: string): PassBuilderIssue {
  return { severity: 'error', rule, path, message: `${path}: ${message}` };
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function jsonTypeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}

const EXPECTED: { [type in Schema['type']]: string } = {
  string: 'a string',
  bool: 'a boolean',
  integer: 'a number',
  number: 'a number',
  date: 'a date string',
  color: 'a colour string',
  enum: 'a string',
  array: 'an array',
  object: 'an object',
  anything: 'anything',
};

/**
 * The value as the model holds it, with what it would refuse left out (and reported), or
 * `undefined` when the value itself is refused.
 */
function decode(value: unknown, schema: Schema, path: string, issues: PassBuilderIssue[]): unknown {
  const wrongType = () => {
    issues.push(
      decodeIssue(
        'DECODE_TYPE',
        path,
        `Pass Builder expects ${EXPECTED[schema.type]} here, not ${jsonTypeOf(value)}.`,
      ),
    );
    return undefined;
  };
  switch (schema.type) {
    case 'anything':
      return value;
    case 'string':
      return typeof value === 'string' ? value : wrongType();
    case 'bool':
      // JSONDecoder reads no 0/1 or "true" as a Bool.
      return typeof value === 'boolean' ? value : wrongType();
    case 'number':
      return typeof value === 'number' ? value : wrongType();
    case 'integer': {
      if (typeof value !== 'number') return wrongType();
      if (Number.isInteger(value) && BigInt(value) >= schema.min && BigInt(value) <= schema.max) {
        return value;
      }
      issues.push(
        decodeIssue(
          'DECODE_INTEGER',
          path,
          `${value} does not fit the ${schema.swiftType} Pass Builder declares here.`,
        ),
      );
      return undefined;
    }
    case 'date': {
      if (typeof value !== 'string') return wrongType();
      if (passDate(value) !== undefined) return value;
      issues.push(
        decodeIssue(
          'DECODE_DATE',
          path,
          `Pass Builder cannot read the date "${value}": it needs YYYY-MM-DDTHH:MM[:SS[.fraction]] ` +
            'ending in Z or ±HH:MM.',
        ),
      );
      return undefined;
    }
    case 'color': {
      if (typeof value !== 'string') return wrongType();
      if (colorIsReadable(value)) return value;
      issues.push(
        decodeIssue(
          'DECODE_COLOR',
          path,
          `Pass Builder cannot read the colour "${value}": it takes #RRGGBB, #RGB or rgb(r,g,b).`,
        ),
      );
      return undefined;
    }
    case 'enum': {
      if (typeof value !== 'string') return wrongType();
      if (schema.values.includes(value)) return value;
      issues.push(
        decodeIssue(
          'DECODE_ENUM',
          path,
          `"${value}" is none of the values Pass Builder knows here (${schema.values.join(', ')}).`,
        ),
      );
      return undefined;
    }
    case 'array': {
      if (!Array.isArray(value)) return wrongType();
      const kept: unknown[] = [];
      value.forEach((element: unknown, index) => {
        const elementPath = `${path}[${index}]`;
        if (element === null) {
          issues.push(
            decodeIssue('DECODE_NULL', elementPath, 'Pass Builder takes no null in this array.'),
          );
          return;
        }
        const decoded = decode(element, schema.of, elementPath, issues);
        if (decoded !== undefined) kept.push(decoded);
      });
      return kept;
    }
    case 'object': {
      if (!isObject(value)) return wrongType();
      const kept: JsonObject = {};
      const required = new Set(schema.required ?? []);
      // Only the model's keys are read: Codable ignores every other key.
      for (const [key, keySchema] of Object.entries(schema.keys)) {
        const keyPath = path === '' ? key : `${path}.${key}`;
        if (!Object.hasOwn(value, key)) {
          if (required.has(key)) {
            issues.push(
              decodeIssue('DECODE_MISSING_KEY', keyPath, 'Pass Builder requires this key.'),
            );
          }
          continue;
        }
        const member = value[key];
        // An optional property takes null as absent; a required one does not.
        if (member === null) {
          if (required.has(key)) {
            issues.push(decodeIssue('DECODE_NULL', keyPath, 'Pass Builder requires a value here.'));
          }
          continue;
        }
        const decoded = decode(member, keySchema, keyPath, issues);
        if (decoded !== undefined) kept[key] = decoded;
      }
      return kept;
    }
  }
}

function decodePassJson(bytes: Buffer, issues: PassBuilderIssue[]): JsonObject {
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch (error) {
    issues.push({
      severity: 'error',
      rule: 'DECODE_JSON',
      path: 'pass.json',
      message: `pass.json is not JSON in UTF-8: ${error instanceof Error ? error.message : String(error)}`,
    });
    return {};
  }
  if (!isObject(parsed)) {
    issues.push({
      severity: 'error',
      rule: 'DECODE_TYPE',
      path: 'pass.json',
      message: `pass.json must hold an object, not ${jsonTypeOf(parsed)}.`,
    });
    return {};
  }
  const decoded = decode(parsed, PASS, '', issues);
  return isObject(decoded) ? decoded : {};
}

// ---------------------------------------------------------------------------------------------
// Dates (Codable/PassDateTimeFormatter.swift and Foundation's ISO 8601 parser).

/** An instant as whole seconds since 1970 and nanoseconds, exact where a float would round. */
interface Instant {
  seconds: number;
  nanoseconds: number;
}

/**
 * The instant a pass date names, or undefined where Pass Builder's decoder refuses it: the time
 * zone must end the string and be `Z` or `±HH:MM`, and seconds may be left out.
 */
function passDate(text: string): Instant | undefined {
  if (!zoneEndsString(text)) return undefined;
  return iso8601Instant(text) ?? iso8601Instant(withZeroSeconds(text));
}

/** Where the time zone starts: the first Z, + or - after the T. */
function zoneStart(text: string): { t: number; zone: number } | undefined {
  const t = text.indexOf('T');
  if (t < 0) return undefined;
  for (let index = t + 1; index < text.length; index += 1) {
    if ('Z+-'.includes(text[index])) return { t, zone: index };
  }
  return undefined;
}

// Foundation's parser stops where a date ends and ignores what follows, so Pass Builder first
// requires that nothing follows the zone.
function zoneEndsString(text: string): boolean {
  const start = zoneStart(text);
  if (start === undefined) return false;
  const zone = text.slice(start.zone);
  return zone === 'Z' || /^[+-][0-9]{2}:[0-9]{2}$/.test(zone);
}

/** "2026-07-01T19:30+02:00" as "2026-07-01T19:30:00+02:00"; anything else is left alone. */
function withZeroSeconds(text: string): string {
  const start = zoneStart(text);
  if (start === undefined) return text;
  const time = text.slice(start.t + 1, start.zone);
  if ([...time].filter((char) => char === ':').length !== 1) return text;
  return `${text.slice(0, start.zone)}:00${text.slice(start.zone)}`;
}

/**
 * Foundation's ISO 8601 parsing (Date.ISO8601FormatStyle, swift-foundation 6.2) of
 * `year-month-dayThh:mm:ss[.fraction]zone`. It is lenient where the pattern looks strict: a
 * month, day or hour may have one digit, fractional seconds are optional, `GMT` or `UTC` may
 * precede the offset, and a day past the month's end rolls over into the next.
 */
function iso8601Instant(text: string): Instant | undefined {
  let at = 0;
  const digits = (maxDigits: number, min: number, max: number): number | undefined => {
    let count = 0;
    let result = 0;
    while (at < text.length && /[0-9]/.test(text[at]) && count < maxDigits) {
      result = result * 10 + Number(text[at]);
      at += 1;
      count += 1;
    }
    return count > 0 && result >= min && result <= max ? result : undefined;
  };
  const expect = (char: string): boolean => {
    if (text[at] !== char) return false;
    at += 1;
    return true;
  };
  const year = digits(10, 1, 144683);
  if (year === undefined || !expect('-')) return undefined;
  const month = digits(10, 1, 12);
  if (month === undefined || !expect('-')) return undefined;
  const day = digits(10, 1, 31);
  if (day === undefined || !expect('T')) return undefined;
  const hour = digits(2, 0, 24);
  if (hour === undefined || !expect(':')) return undefined;
  const minute = digits(2, 0, 59);
  if (minute === undefined || !expect(':')) return undefined;
  let second = digits(2, 0, 60);
  if (second === undefined) return undefined;
  // Foundation has no leap seconds.
  if (second === 60) second = 59;
  let nanoseconds = 0;
  if (text[at] === '.') {
    at += 1;
    const start = at;
    while (at < text.length && /[0-9]/.test(text[at]) && at - start < 10) at += 1;
    const fraction = text.slice(start, at);
    if (fraction.length === 0 || fraction.length > 9) return undefined;
    nanoseconds = Number(fraction.padEnd(9, '0'));
  }
  if (hour === 24 && (minute !== 0 || second !== 0 || nanoseconds !== 0)) return undefined;
  const offset = zoneOffset();
  if (offset === undefined) return undefined;
  const local = new Date(0);
  local.setUTCFullYear(year, month - 1, day);
  local.setUTCHours(hour, minute, second, 0);
  return { seconds: local.getTime() / 1000 - offset, nanoseconds };

  function zoneOffset(): number | undefined {
    const first = text[at];
    at += 1;
    if (first === 'Z' || first === 'z') return 0;
    let sign: number;
    const word = (first ?? '') + text.slice(at, at + 2);
    if (/^(gmt|utc)$/i.test(word)) {
      at += 2;
      if (text[at] !== '+' && text[at] !== '-') return 0;
      sign = text[at] === '+' ? 1 : -1;
      at += 1;
    } else if (first === '+' || first === '-') {
      sign = first === '+' ? 1 : -1;
    } else {
      return undefined;
    }
    const hours = digits(2, 0, 24);
    if (hours === undefined) return undefined;
    let seconds = hours * 3600;
    // Minutes follow a colon or straight after the hours; seconds may follow them likewise.
    const colon = expect(':');
    if (colon || /[0-9]/.test(text[at] ?? '')) {
      const minutes = digits(2, 0, 59);
      if (minutes === undefined) return undefined;
      seconds += minutes * 60;
      expect(':');
      if (/[0-9]/.test(text[at] ?? '')) {
        const extra = digits(2, 0, 60);
        if (extra === undefined) return undefined;
        seconds += Math.min(extra, 59);
      }
    }
    // TimeZone(secondsFromGMT:) takes at most 18 hours either way.
    return seconds > 18 * 3600 ? undefined : sign * seconds;
  }
}

function isAfter(a: Instant, b: Instant): boolean {
  return a.seconds > b.seconds || (a.seconds === b.seconds && a.nanoseconds > b.nanoseconds);
}

// ---------------------------------------------------------------------------------------------
// Colours (PassPackage/Pass/PassColor.swift).

function colorIsReadable(raw: string): boolean {
  const text = raw.trim();
  if (text.startsWith('#')) {
    let hex = [...text.slice(1)];
    if (hex.length === 3) hex = hex.flatMap((char) => [char, char]);
    // Swift's UInt32(_:radix:) takes a leading plus sign.
    return hex.length === 6 && /^\+?[0-9a-f]+$/i.test(hex.join(''));
  }
  if (text.toLowerCase().startsWith('rgb(')) {
    // Spaces, every "rgb(" and every ")" go; what is left must be three integers.
    const parts = text.replaceAll(' ', '').replace(/rgb\(/gi, '').replaceAll(')', '').split(',');
    return (
      parts.length === 3 &&
      parts.every(
        (part) =>
          /^[+-]?[0-9]+$/.test(part) &&
          BigInt(part) >= -(2n ** 63n) &&
          BigInt(part) <= 2n ** 63n - 1n,
      )
    );
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// The validators (Sources/PassBuilder/Validation/Validators), on the decoded pass.

const obj = (value: unknown): JsonObject | undefined => (isObject(value) ? value : undefined);
const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const list = (value: unknown): unknown[] | undefined => (Array.isArray(value) ? value : undefined);

/** `#propertyEmpty` of a String?: nil or "". */
const emptyString = (value: unknown) => (str(value) ?? '') === '';
/** `#propertyEmpty` of an array: nil or []. */
const emptyList = (value: unknown) => (list(value) ?? []).length === 0;
/** `#propertyEmpty` of any other optional: nil alone (so `false` and `0` are values). */
const absent = (value: unknown) => value === undefined;

/**
 * `Pass.supportSemanticDrivenPassStyle`: a boarding pass's schemes name the semantic boarding
 * pass, else an event ticket's name the poster event ticket. A pass with both style keys is
 * judged as a boarding pass.
 */
function supportsSemanticStyle(pass: JsonObject): boolean {
  const schemes = list(pass.preferredStyleSchemes) ?? [];
  if (pass.boardingPass !== undefined) return schemes.includes('semanticBoardingPass');
  if (pass.eventTicket !== undefined) return schemes.includes('posterEventTicket');
  return false;
}

function issue(
  severity: PassBuilderSeverity,
  rule: string,
  path: string,
  message: string,
): PassBuilderIssue {
  return { severity, rule, path, message };
}

function ruleIssues(pass: JsonObject, hasFile: (name: string) => boolean): PassBuilderIssue[] {
  // Pass Builder reads name.pdf or name.png for each scale, at the package's top level only.
  const hasScale = (name: string) => hasFile(`${name}.pdf`) || hasFile(`${name}.png`);
  const hasImage = (name: string) =>
    hasScale(name) || hasScale(`${name}@2x`) || hasScale(`${name}@3x`);
  const semanticStyle = supportsSemanticStyle(pass);
  return [
    ...(pass.eventTicket !== undefined && semanticStyle ? eventTicketIssues(pass, hasImage) : []),
    ...((pass.eventTicket !== undefined || pass.boardingPass !== undefined) && semanticStyle
      ? seatIssues(pass)
      : []),
    ...(pass.boardingPass !== undefined && semanticStyle ? boardingPassIssues(pass) : []),
    ...fieldFormattingIssues(pass),
    ...requiredImageIssues(hasScale),
  ];
}

function eventTicketIssues(
  pass: JsonObject,
  hasImage: (name: string) => boolean,
): PassBuilderIssue[] {
  const issues: PassBuilderIssue[] = [];
  const nfc = obj(pass.nfc);
  if (nfc === undefined) {
    issues.push(
      issue(
        'error',
        'PASS_VALIDATION_EVENT_MISSING_NFC',
        'nfc',
        'A poster event ticket needs NFC data (nfc).',
      ),
    );
  } else if (absent(nfc.requiresAuthentication)) {
    issues.push(
      issue(
        'error',
        'PASS_VALIDATION_EVENT_MISSING_NFC_AUTH',
        'nfc.requiresAuthentication',
        'A poster event ticket needs nfc.requiresAuthentication (false counts).',
      ),
    );
  }
  const semantics = obj(pass.semantics) ?? {};
  if (emptyString(semantics.eventName)) {
    issues.push(
      issue(
        'error',
        'PASS_VALIDATION_EVENT_MISSING_EVENT_NAME',
        'semantics.eventName',
        'A poster event ticket needs the event name (semantics.eventName).',
      ),
    );
  }
  if (emptyString(semantics.venueName)) {
    issues.push(
      issue(
        'error',
        'PASS_VALIDATION_EVENT_MISSING_VENUE_NAME',
        'semantics.venueName',
        'A poster event ticket needs the venue name (semantics.venueName).',
      ),
    );
  }
  if (absent(semantics.eventStartDate)) {
    issues.push(
      issue(
        'warning',
        'PASS_VALIDATION_EVENT_MISSING_START_DATE',
        'semantics.eventStartDate',
        'A poster event ticket should have its start date (semantics.eventStartDate).',
      ),
    );
  }
  const start = passDate(str(semantics.eventStartDate) ?? '');
  const end = passDate(str(semantics.eventEndDate) ?? '');
  if (start !== undefined && end !== undefined && isAfter(start, end)) {
    issues.push(
      issue(
        'warning',
        'PASS_VALIDATION_EVENT_START_AFTER_END',
        'semantics.eventEndDate',
        'The event ends (semantics.eventEndDate) before it starts (semantics.eventStartDate).',
      ),
    );
  }
  if (semantics.eventType === 'PKEventTypeSports') {
    for (const side of ['away', 'home'] as const) {
      const key = `${side}TeamAbbreviation`;
      if (emptyString(semantics[key])) {
        issues.push(
          issue(
            'error',
            `PASS_VALIDATION_EVENT_MISSING_${side.toUpperCase()}_TEAM_ABBREVIATION`,
            `semantics.${key}`,
            `A sports event ticket needs the ${side} team's abbreviation (semantics.${key}).`,
          ),
        );
      }
    }
  }
  if (semantics.eventType === 'PKEventTypeLivePerformance') {
    if (emptyList(semantics.performerNames)) {
      issues.push(
        issue(
          'error',
          'PASS_VALIDATION_EVENT_MISSING_LIVE_PERFORMERS',
          'semantics.performerNames',
          'A live performance ticket needs its performers (semantics.performerNames).',
        ),
      );
    }
    if (emptyList(semantics.artistIDs)) {
      issues.push(
        issue(
          'warning',
          'PASS_VALIDATION_EVENT_MISSING_ARTIST_IDS',
          'semantics.artistIDs',
          'A live performance ticket should have its artists’ IDs (semantics.artistIDs).',
        ),
      );
    }
  }
  // Either image will do. Pass Builder's branch for a missing background can never be taken
  // (the artwork is always the one found missing), so there is only the one rule.
  if (!hasImage('background') && !hasImage('artwork')) {
    issues.push(
      issue(
        'error',
        'PASS_VALIDATION_EVENT_MISSING_ARTWORK_IMAGE',
        'artwork.png',
        'A poster event ticket needs artwork.png (or a background image), at any scale.',
      ),
    );
  }
  return issues;
}

function seatIssues(pass: JsonObject): PassBuilderIssue[] {
  const semantics = obj(pass.semantics) ?? {};
  return emptyList(semantics.seats)
    ? [
        issue(
          'warning',
          'PASS_VALIDATION_EVENT_MISSING_SEAT',
          'semantics.seats',
          'A poster event ticket or semantic boarding pass should have seats (semantics.seats).',
        ),
      ]
    : [];
}

/**
 * BoardingPassValidator's keys in its order: severity, rule, what the message names, and
 * whether the key is a string, which is missing when "" too (a number or date only when nil).
 */
const BOARDING_PASS_KEYS: readonly {
  key: string;
  severity: PassBuilderSeverity;
  rule: string;
  what: string;
  text: boolean;
}[] = [
  {
    key: 'airlineCode',
    severity: 'error',
    rule: 'AIRLINE_CODE',
    what: 'the airline code',
    text: true,
  },
  {
    key: 'flightNumber',
    severity: 'error',
    rule: 'FLIGHT_NUMBER',
    what: 'the flight number',
    text: false,
  },
  {
    key: 'originalDepartureDate',
    severity: 'error',
    rule: 'DEPARTURE_DATE',
    what: 'the departure date',
    text: false,
  },
  {
    key: 'originalBoardingDate',
    severity: 'error',
    rule: 'BOARDING_DATE',
    what: 'the boarding date',
    text: false,
  },
  {
    key: 'originalArrivalDate',
    severity: 'error',
    rule: 'ARRIVAL_DATE',
    what: 'the arrival date',
    text: false,
  },
  {
    key: 'departureAirportTimeZone',
    severity: 'error',
    rule: 'DEPARTURE_AIRPORT_TIMEZONE',
    what: 'the departure airport’s time zone',
    text: true,
  },
  {
    key: 'departureAirportCode',
    severity: 'error',
    rule: 'DEPARTURE_AIRPORT_CODE',
    what: 'the departure airport code',
    text: true,
  },
  {
    key: 'departureCityName',
    severity: 'warning',
    rule: 'DEPARTURE_CITY_NAME',
    what: 'the departure city',
    text: true,
  },
  {
    key: 'destinationAirportTimeZone',
    severity: 'warning',
    rule: 'DESTINATION_AIRPORT_TIMEZONE',
    what: 'the destination airport’s time zone',
    text: true,
  },
  {
    key: 'destinationAirportCode',
    severity: 'error',
    rule: 'DESTINATION_AIRPORT_CODE',
    what: 'the destination airport code',
    text: true,
  },
  {
    key: 'destinationCityName',
    severity: 'warning',
    rule: 'DESTINATION_CITY_NAME',
    what: 'the destination city',
    text: true,
  },
];

/** The keys of PersonName.isEmpty: its phonetic representation alone is no name. */
const NAME_PARTS = [
  'familyName',
  'givenName',
  'middleName',
  'namePrefix',
  'nameSuffix',
  'nickname',
] as const;

function boardingPassIssues(pass: JsonObject): PassBuilderIssue[] {
  const semantics = obj(pass.semantics) ?? {};
  const issues = BOARDING_PASS_KEYS.flatMap(({ key, severity, rule, what, text }) => {
    const value = semantics[key];
    if (!(text ? emptyString(value) : absent(value))) return [];
    const verb = severity === 'error' ? 'needs' : 'should have';
    return [
      issue(
        severity,
        `PASS_VALIDATION_EVENT_MISSING_${rule}`,
        `semantics.${key}`,
        `A semantic boarding pass ${verb} ${what} (semantics.${key}).`,
      ),
    ];
  });
  const name = obj(semantics.passengerName);
  if (name === undefined || NAME_PARTS.every((part) => name[part] === undefined)) {
    issues.push(
      issue(
        'error',
        'PASS_VALIDATION_EVENT_MISSING_PASSENGER_NAME',
        'semantics.passengerName',
        'A semantic boarding pass needs the passenger’s name (semantics.passengerName).',
      ),
    );
  }
  return issues;
}

/** The styles and groups FieldFormattingValidator walks (not additionalInfoFields). */
const FORMATTED_STYLES = [
  'storeCard',
  'coupon',
  'eventTicket',
  'generic',
  'boardingPass',
  'posterGeneric',
] as const;
const FORMATTED_GROUPS = [
  'headerFields',
  'primaryFields',
  'secondaryFields',
  'auxiliaryFields',
  'footerFields',
  'backFields',
] as const;

function fieldFormattingIssues(pass: JsonObject): PassBuilderIssue[] {
  const issues: PassBuilderIssue[] = [];
  for (const style of FORMATTED_STYLES) {
    const fields = obj(pass[style]);
    if (fields === undefined) continue;
    for (const group of FORMATTED_GROUPS) {
      (list(fields[group]) ?? []).forEach((field, index) => {
        const content = obj(field) ?? {};
        // An empty currency code counts: the fix-it that drops it does not run on reading.
        if (content.currencyCode !== undefined && content.numberStyle !== undefined) {
          const path = `${style}.${group}[${index}].currencyCode`;
          issues.push(
            issue(
              'warning',
              'VALIDATION_ISSUE_CURRENCY_CODE_AND_NUMBER_FORMATTER',
              path,
              `${path}: a field takes a currency code or a number style, not both.`,
            ),
          );
        }
      });
    }
  }
  return issues;
}

/**
 * The icon: with any scale of it, its @2x and @3x are recommended; without, both are required
 * (Pass Builder names the @2x and @3x files then too, never icon.png).
 */
function requiredImageIssues(hasScale: (name: string) => boolean): PassBuilderIssue[] {
  const hasIcon = hasScale('icon') || hasScale('icon@2x') || hasScale('icon@3x');
  return ['icon@2x', 'icon@3x'].flatMap((name) => {
    if (!hasIcon) {
      return [
        issue(
          'error',
          'VALIDATION_ISSUE_REQUIRED_IMAGE_NOT_PROVIDED',
          `${name}.png`,
          `The package has no icon: ${name}.png (or .pdf) is required.`,
        ),
      ];
    }
    if (hasScale(name)) return [];
    return [
      issue(
        'warning',
        'VALIDATION_ISSUE_RECOMMENDED_IMAGE_NOT_PROVIDED',
        `${name}.png`,
        `${name}.png (or .pdf) is recommended beside the icon.`,
      ),
    ];
  });
}
