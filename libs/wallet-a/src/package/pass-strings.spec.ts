import { buildPassStrings } from './pass-strings';

const PASS_JSON = {
  description: 'Event ticket',
  organizationName: 'Brand Ltd',
  eventTicket: {
    primaryFields: [{ key: 'event', label: 'Event', value: 'Summer Gala' }],
    secondaryFields: [
      { key: 'seat', label: 'Seat', value: '14' },
      { key: 'row', label: 'Row', value: 'Any' },
    ],
    backFields: [{ key: 'terms', label: 'Terms', value: 'No refunds.\n"Strict"' }],
  },
};

/** A file's text without its byte order mark (checked to be there). */
function text(files: Map<string, Buffer>, name: string): string | undefined {
  const bytes = files.get(name);
  if (bytes === undefined) return undefined;
  expect([...bytes.subarray(0, 2)]).toEqual([0xff, 0xfe]);
  return bytes.subarray(2).toString('utf16le');
}

describe('pass.strings', () => {
  it('maps each text of pass.json to its translation, one file per language', () => {
    const files = buildPassStrings(PASS_JSON, 'eventTicket', {
      de: {
        description: 'Eintrittskarte',
        passName: 'not in pass.json',
        fields: {
          event: { label: 'Veranstaltung', value: 'Sommergala' },
          seat: { label: 'Platz' },
          terms: { label: 'Bedingungen' },
        },
      },
      'pt-BR': { organizationName: 'Marca' },
      fr: {},
    });
    expect([...files.keys()]).toEqual(['de.lproj/pass.strings', 'pt-BR.lproj/pass.strings']);
    expect(text(files, 'de.lproj/pass.strings')).toBe(
      [
        '"Event ticket" = "Eintrittskarte";',
        '"Event" = "Veranstaltung";',
        '"Summer Gala" = "Sommergala";',
        '"Seat" = "Platz";',
        '"Terms" = "Bedingungen";',
        '',
      ].join('\n'),
    );
    expect(text(files, 'pt-BR.lproj/pass.strings')).toBe('"Brand Ltd" = "Marca";\n');
  });

  it("leaves a holder's own values untranslated and escapes quotes, backslashes and lines", () => {
    const files = buildPassStrings(
      PASS_JSON,
      'eventTicket',
      {
        de: {
          fields: {
            seat: { label: 'Platz', value: 'Beliebig' },
            row: { value: 'Beliebig "frei"\\' },
          },
        },
      },
      new Set(['seat']),
    );
    expect(text(files, 'de.lproj/pass.strings')).toBe(
      '"Seat" = "Platz";\n"Any" = "Beliebig \\"frei\\"\\\\";\n',
    );
  });

  it('keeps the first translation of a text used twice, and writes nothing without any', () => {
    const twice = {
      ...PASS_JSON,
      eventTicket: {
        secondaryFields: [
          { key: 'a', label: 'Gate', value: '1' },
          { key: 'b', label: 'Gate', value: '2' },
        ],
      },
    };
    const files = buildPassStrings(twice, 'eventTicket', {
      de: { fields: { a: { label: 'Tor' }, b: { label: 'Einlass' } } },
    });
    expect(text(files, 'de.lproj/pass.strings')).toBe('"Gate" = "Tor";\n');
    expect(buildPassStrings(PASS_JSON, 'eventTicket', undefined).size).toBe(0);
  });
});
