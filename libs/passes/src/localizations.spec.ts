import { InvalidInputError } from '@app/core';
import { assertLocalizations, MAX_LOCALIZATIONS, pickLanguage } from './localizations';

const PASS = { faceKeys: new Set(['seat', 'event']), backKeys: new Set(['links']) };

function problem(localizations: unknown): Record<string, unknown> | undefined {
  try {
    assertLocalizations(localizations, PASS);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidInputError);
    return (error as InvalidInputError).context;
  }
}

describe('localizations', () => {
  it("takes texts by language for the pass's own fields", () => {
    expect(
      problem({
        de: {
          description: 'Eintrittskarte',
          passName: 'Sommergala',
          fields: {
            seat: { label: 'Platz' },
            event: { value: 'Sommergala' },
            links: { label: 'Links' },
          },
        },
        'fr-CA': { organizationName: 'Marque' },
        'zh-Hant': {},
      }),
    ).toBe(undefined);
    expect(problem(undefined)).toBe(undefined);
  });

  it.each([
    [[], 'passMetadata.localizations', 'must be an object keyed by language tag'],
    [
      { 'not a tag': {} },
      'passMetadata.localizations.not a tag',
      'must be keyed by a BCP 47 language tag',
    ],
    [{ de: 'Karte' }, 'passMetadata.localizations.de', 'must be an object'],
    [{ de: { colour: 'rot' } }, 'passMetadata.localizations.de.colour', 'should not exist'],
    [{ de: { description: 7 } }, 'passMetadata.localizations.de.description', 'must be a string'],
    [
      { de: { passName: 'x'.repeat(256) } },
      'passMetadata.localizations.de.passName',
      'must be shorter than or equal to 255 characters',
    ],
    [
      { de: { fields: [] } },
      'passMetadata.localizations.de.fields',
      'must be an object keyed by field key',
    ],
    [
      { de: { fields: { row: { label: 'Reihe' } } } },
      'passMetadata.localizations.de.fields.row',
      'is not a field of the pass',
    ],
    [
      { de: { fields: { seat: { label: 'Platz', hint: 'x' } } } },
      'passMetadata.localizations.de.fields.seat.hint',
      'should not exist',
    ],
    [
      { de: { fields: { links: { value: 'x' } } } },
      'passMetadata.localizations.de.fields.links.value',
      "is a back field's links: only its label is translated",
    ],
    [
      { de: { fields: { seat: { value: 'x'.repeat(2001) } } } },
      'passMetadata.localizations.de.fields.seat.value',
      'must be shorter than or equal to 2000 characters',
    ],
  ])('refuses %j: %s %s', (localizations, path, message) => {
    expect(problem(localizations)).toEqual({ [path]: message });
  });

  it(`takes at most ${MAX_LOCALIZATIONS} languages`, () => {
    const languages = (n: number) =>
      Object.fromEntries(
        Array.from({ length: n }, (_, i) => [`l${String.fromCharCode(97 + i)}`, {}]),
      );
    expect(problem(languages(MAX_LOCALIZATIONS))).toBe(undefined);
    expect(problem(languages(MAX_LOCALIZATIONS + 1))).toEqual({
      'passMetadata.localizations': `must have at most ${MAX_LOCALIZATIONS} languages (${MAX_LOCALIZATIONS + 1} given)`,
    });
  });
});

describe("the holder page's language", () => {
  const available = ['de', 'fr-CA', 'pt-BR', 'zh-Hant'];

  it.each([
    [undefined, null],
    ['', null],
    ['*', null],
    ['en-GB,en;q=0.9', null],
    ['de-AT,de;q=0.9,en;q=0.8', 'de'],
    ['DE', 'de'],
    ['fr', 'fr-CA'],
    ['fr-ca', 'fr-CA'],
    ['en;q=0.9,pt-BR;q=0.95', 'pt-BR'],
    ['de;q=0,fr;q=0.5', 'fr-CA'],
    ['zh-Hant-TW', 'zh-Hant'],
  ])('picks for %j: %s', (header, expected) => {
    expect(pickLanguage(header, available)).toBe(expected);
  });
});
