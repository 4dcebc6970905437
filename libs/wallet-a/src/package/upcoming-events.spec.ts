import { passKindOf } from '@app/kinds';
import { type Pass, type PassMetadataDto } from '@app/passes';
import { dirname, join } from 'node:path';
import { WALLET_A_KINDS } from '../../../../test/support/wallet-a-kinds';
import { buildPassJson, type PassJsonContext } from './pass-json';
import { upcomingPassInformation } from './upcoming-events';

/**
 * Apple's description of an upcoming pass information entry (iOS 26), the keys this service may
 * write and which of them are required. Transcribed from the WalletPasses reference
 * (developer.apple.com/documentation/walletpasses/upcomingpassinformationentry, its
 * DateInformation and BackFields dictionaries, and PassFieldContent) as passkit-generator 3.5+
 * (src/schemas/UpcomingPassInformation.ts, which cites those pages) has it: @walletpass/pass-js
 * 6.9.8 predates iOS 26 and carries the key through unchecked. Keys the reference lists that we
 * do not write are absent on purpose (docs/decisions.md, "Upcoming events").
 */
const APPLE = {
  entry: {
    required: ['type', 'identifier', 'name'],
    optional: [
      'URLs',
      'additionalInfoFields',
      'auxiliaryStoreIdentifiers',
      'backFields',
      'dateInformation',
      'images',
      'isActive',
      'semantics',
    ],
    /** `UpcomingPassInformationEntryType`: the one type there is. */
    types: ['event'],
  },
  dateInformation: {
    required: ['date'],
    optional: ['ignoreTimeComponents', 'isAllDay', 'isUnannounced', 'isUndetermined', 'timeZone'],
  },
  /** PassFieldContent, what an entry's back fields are. */
  field: {
    required: ['key', 'value'],
    optional: [
      'label',
      'attributedValue',
      'changeMessage',
      'dataDetectorTypes',
      'dateStyle',
      'timeStyle',
      'ignoresTimeZone',
      'isRelative',
      'currencyCode',
      'numberStyle',
      'textAlignment',
      'semantics',
    ],
  },
  /** SemanticTags of an event (the entry's `semantics`), the ones an entry may take from us. */
  semantics: {
    required: [],
    optional: ['eventStartDate', 'eventEndDate', 'venueName', 'venueLocation', 'venuePlaceID'],
  },
  dateStyles: [
    'PKDateStyleNone',
    'PKDateStyleShort',
    'PKDateStyleMedium',
    'PKDateStyleLong',
    'PKDateStyleFull',
  ],
} as const;

const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

/** What of `value` Apple's description of `part` refuses: unknown keys, missing required ones. */
function problems(
  part: { required: readonly string[]; optional: readonly string[] },
  value: object,
  path: string,
): string[] {
  const known = new Set<string>([...part.required, ...part.optional]);
  return [
    ...Object.keys(value)
      .filter((key) => !known.has(key))
      .map((key) => `${path}.${key} is not a key Apple describes`),
    ...part.required.filter((key) => !(key in value)).map((key) => `${path}.${key} is required`),
  ];
}

/** Every problem Apple's description finds in pass.json's `upcomingPassInformation`. */
function entryProblems(entries: Record<string, unknown>[]): string[] {
  const found: string[] = [];
  const identifiers = new Set<unknown>();
  entries.forEach((entry, index) => {
    const at = `upcomingPassInformation[${index}]`;
    found.push(...problems(APPLE.entry, entry, at));
    if (!(APPLE.entry.types as readonly unknown[]).includes(entry.type)) {
      found.push(`${at}.type must be one of ${APPLE.entry.types.join(', ')}`);
    }
    if (identifiers.has(entry.identifier)) found.push(`${at}.identifier is not unique`);
    identifiers.add(entry.identifier);
    const date = entry.dateInformation as Record<string, unknown> | undefined;
    if (date !== undefined) {
      found.push(...problems(APPLE.dateInformation, date, `${at}.dateInformation`));
      if (!ISO_DATE_TIME.test(String(date.date))) found.push(`${at}.dateInformation.date`);
    }
    const semantics = entry.semantics as Record<string, unknown> | undefined;
    if (semantics !== undefined)
      found.push(...problems(APPLE.semantics, semantics, `${at}.semantics`));
    // Wallet shows an entry's details view only with at least one back field.
    const backFields = (entry.backFields ?? []) as Record<string, unknown>[];
    if (backFields.length === 0) found.push(`${at}.backFields needs at least one field`);
    backFields.forEach((field, fieldIndex) => {
      const fieldAt = `${at}.backFields[${fieldIndex}]`;
      found.push(...problems(APPLE.field, field, fieldAt));
      for (const style of ['dateStyle', 'timeStyle']) {
        if (
          field[style] !== undefined &&
          !(APPLE.dateStyles as readonly unknown[]).includes(field[style])
        ) {
          found.push(`${fieldAt}.${style}`);
        }
      }
    });
  });
  return found;
}

/**
 * passkit-generator's own Joi schema of an entry, strict (no unknown key allowed). Its package
 * exports only PKPass, so the schema file is required by path.
 */
function passkitGeneratorSchema(): { validate(value: unknown): { error?: Error } } {
  const lib = dirname(require.resolve('passkit-generator'));
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const schemas = require(join(lib, 'schemas', 'UpcomingPassInformation.js')) as {
    UpcomingPassInformationEntry: { validate(value: unknown): { error?: Error } };
  };
  return schemas.UpcomingPassInformationEntry;
}

const CONTEXT: PassJsonContext = {
  passTypeIdentifier: 'pass.example.unit',
  teamIdentifier: 'TEAMUNIT01',
  webServiceURL: 'https://wallet.test/passkit',
  authenticationToken: 'a'.repeat(32),
  locations: [],
};
const festival: PassMetadataDto = WALLET_A_KINDS.festival.metadata;
const passOf = (metadata: PassMetadataDto, images = ['logo.png']): Pass =>
  ({
    id: 'pass-1',
    deletedTime: null,
    passMetadata: metadata,
    uploadInfoList: images.map((fileName) => ({ fileName, uploadKey: fileName })),
  }) as unknown as Pass;

describe("a ticket's upcoming events in pass.json (iOS 26)", () => {
  const json = buildPassJson(passOf(festival, ['logo.png', 'artwork.png']), CONTEXT);
  const entries = json.upcomingPassInformation as Record<string, unknown>[];

  it('writes one entry per event, in order, with the keys Apple describes', () => {
    expect(entries.map((entry) => entry.identifier)).toEqual(['day-1', 'day-2', 'day-3']);
    expect(entryProblems(entries)).toEqual([]);
    // The check is real: what the description lacks or requires is named.
    const nameless = Object.fromEntries(
      Object.entries(entries[0]).filter(([key]) => key !== 'name'),
    );
    expect(entryProblems([{ ...nameless, endDate: 'x', backFields: [] }])).toEqual([
      'upcomingPassInformation[0].endDate is not a key Apple describes',
      'upcomingPassInformation[0].name is required',
      'upcomingPassInformation[0].backFields needs at least one field',
    ]);
    expect(json.preferredStyleSchemes).toEqual(['posterEventTicket', 'eventTicket']);
  });

  it("passes passkit-generator's schema of an entry, strictly", () => {
    const schema = passkitGeneratorSchema();
    for (const entry of entries) expect(schema.validate(entry).error).toBeUndefined();
    // The check is real: a key Apple does not describe is refused.
    expect(
      schema.validate({ ...entries[0], endDate: '2026-07-10T23:30:00+02:00' }).error,
    ).toBeDefined();
  });

  it('says when, where and what each event is: date, semantic tags, details', () => {
    expect(entries[0]).toEqual({
      type: 'event',
      identifier: 'day-1',
      name: 'Opening night',
      dateInformation: { date: '2026-07-10T18:00:00+02:00' },
      // Its own stage: not the festival's location.
      semantics: {
        eventStartDate: '2026-07-10T18:00:00+02:00',
        eventEndDate: '2026-07-10T23:30:00+02:00',
        venueName: 'Main Stage',
      },
      backFields: [
        {
          key: 'event.start',
          label: 'Date',
          value: '2026-07-10T18:00:00+02:00',
          dateStyle: 'PKDateStyleMedium',
          timeStyle: 'PKDateStyleShort',
        },
        {
          key: 'event.end',
          label: 'Ends',
          value: '2026-07-10T23:30:00+02:00',
          dateStyle: 'PKDateStyleMedium',
          timeStyle: 'PKDateStyleShort',
        },
        { key: 'event.venue', label: 'Venue', value: 'Main Stage' },
      ],
    });
    // At the festival's venue: its name and location; without an end, no end.
    expect(entries[2]).toMatchObject({
      semantics: {
        eventStartDate: '2026-07-12T20:00:00+02:00',
        venueName: 'Riverside Park',
        venueLocation: { latitude: 48.8566, longitude: 2.3522 },
      },
    });
    expect((entries[2].backFields as { key: string }[]).map((field) => field.key)).toEqual([
      'event.start',
      'event.venue',
    ]);
  });

  it('lists the events on the back of the classic ticket too, for devices before iOS 26', () => {
    const back = (json.eventTicket as { backFields: { key: string; value: string }[] }).backFields;
    expect(back.find((field) => field.key === 'event.upcoming')).toEqual({
      key: 'event.upcoming',
      label: 'Upcoming events',
      value: [
        'Fri 10 July 2026, 18:00–23:30 · Opening night · Main Stage',
        'Sat 11 July 2026, 14:00–18:00 · Jazz afternoon · Riverside Park',
        'Sun 12 July 2026, 20:00 · Closing concert · Riverside Park',
      ].join('\n'),
    });
  });

  it("writes none for a ticket without events, and none for a holder's own day", () => {
    expect(buildPassJson(passOf(WALLET_A_KINDS.eventTicket.metadata), CONTEXT)).not.toHaveProperty(
      'upcomingPassInformation',
    );
    const ownDay = passKindOf(festival, { relevantDate: '2026-07-11T14:00:00+02:00' });
    expect(ownDay.type === 'eventTicket' && upcomingPassInformation(ownDay)).toBeUndefined();
  });
});
