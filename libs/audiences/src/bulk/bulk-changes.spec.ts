import {
  addText,
  addValue,
  bulkEdit,
  bulkTargetProblems,
  fieldDefaultsOf,
  readBulkChanges,
  showsOnPass,
  type BulkChangeInput,
  type BulkChanges,
} from './bulk-changes';

const PASS = {
  passMetadata: {
    topField: { key: 'points', label: 'Points', value: '0' },
    secondaryFields: [
      { key: 'tier', label: 'Tier', value: 'Basic' },
      { key: 'balance', label: 'Balance', value: '0.1' },
      { key: 'since', label: 'Since', value: '2026-01-01T00:00:00Z' },
    ],
  },
} as unknown as Parameters<typeof readBulkChanges>[0];
const DEFAULTS = fieldDefaultsOf(PASS);

function changes(input: BulkChangeInput): BulkChanges {
  const read = readBulkChanges(PASS, input);
  if (read.problems !== undefined) throw new Error(JSON.stringify(read.problems));
  return read.changes;
}

function problems(input: BulkChangeInput): Record<string, string> {
  return readBulkChanges(PASS, input).problems ?? {};
}

describe('addText / addValue: exact sums', () => {
  it.each([
    ['0.1', 0.2, '0.3'],
    ['1200', 50, '1250'],
    ['12.50', 1, '13.50'],
    ['10', 0.25, '10.25'],
    ['-0.5', 0.5, '0.0'],
    ['0.1', -0.1, '0.0'],
    [' 7 ', 1, '8'],
    ['1', 1e-7, '1.0000001'],
    ['9007199254740993', 1, '9007199254740994'],
    ['0', 1e21, '1000000000000000000000'],
    ['1000000000000000000000', 1, '1000000000000000000001'],
    ['0.1', 1e-30, '0.100000000000000000000000000001'],
  ])('%s + %d = %s', (text, by, sum) => {
    expect(addText(text, by)).toBe(sum);
  });

  it('refuses what is no decimal number', () => {
    for (const text of ['', 'lots', '1e3', '1e+21', '0x10', '2026-01-01T00:00:00Z', 'NaN', '1,5']) {
      expect(addText(text, 1)).toBeNull();
    }
  });

  it('writes no sum of more than 30 digits before the point', () => {
    expect(addText('9'.repeat(30), 1)).toBeNull();
    expect(addText('-' + '9'.repeat(30), -1)).toBeNull();
    expect(addText('9'.repeat(29), 1)).toBe('1' + '0'.repeat(29));
  });

  it('adds to numbers and decimal texts of attributes: a number when one holds the sum', () => {
    expect(addValue(0.1, 0.2)).toBe(0.3);
    expect(addValue(2, 1)).toBe(3);
    expect(addValue('12', 1)).toBe(13);
    expect(addValue('12.50', 1)).toBe(13.5);
    expect(addValue(-0.1, 0.1)).toBe(0);
    expect(Object.is(addValue(-0.1, 0.1), -0)).toBe(false);
    expect(addValue(true, 1)).toBeNull();
    expect(addValue('x', 1)).toBeNull();
  });

  it('keeps a sum no number holds exactly as its decimal text, which audiences read as a number', () => {
    expect(addValue(Number.MAX_SAFE_INTEGER, 2)).toBe('9007199254740993');
    expect(addValue(Number.MAX_SAFE_INTEGER, 1)).toBe('9007199254740992');
    expect(addValue('9007199254740993', 1)).toBe('9007199254740994');
    expect(addValue(1e21, 1)).toBe('1000000000000000000001');
    expect(addValue(1e20, 1e20)).toBe('200000000000000000000');
    expect(addValue(0.1, 1e-20)).toBe('0.10000000000000000001');
    // Back within what a number holds: a number again.
    expect(addValue('9007199254740994', -9007199254740000)).toBe(994);
  });

  it('leaves a value or a sum beyond 30 digits before or after the point', () => {
    expect(addValue(Number.MAX_VALUE, Number.MAX_VALUE)).toBeNull();
    expect(addValue(1e30, 1)).toBeNull();
    expect(addValue(1e-40, 1)).toBeNull();
    expect(addValue('9'.repeat(30), 1)).toBeNull();
  });
});

describe('bulkTargetProblems', () => {
  it('takes exactly one target', () => {
    expect(bulkTargetProblems({ segmentId: 's' })).toEqual({});
    expect(bulkTargetProblems({ audience: null, holderIds: ['h'] })).toEqual({});
    expect(Object.keys(bulkTargetProblems({}))).toEqual(['audience']);
    expect(
      Object.keys(bulkTargetProblems({ audience: {}, segmentId: 's', holderIds: [] })),
    ).toEqual(['audience', 'segmentId', 'holderIds']);
  });
});

describe('readBulkChanges', () => {
  it('splits increments into face fields of the pass and attributes', () => {
    expect(changes({ increment: { points: 5, visits: 1 }, addTags: ['b', 'a', 'a'] })).toEqual({
      set: {},
      addTags: ['a', 'b'],
      removeTags: [],
      incrementFields: { points: 5 },
      incrementAttributes: { visits: 1 },
    });
  });

  it('keys every problem by its path', () => {
    expect(
      problems({
        set: {
          fieldValues: { nope: 'x', tier: 3 },
          attributes: { '9x': 1, ok: { deep: true } },
        },
        addTags: ['good', 'bad tag'],
        removeTags: ['good'],
        increment: { points: Number.NaN, 'no key': 1, ok: 1 },
      }),
    ).toEqual({
      'set.fieldValues.nope': expect.stringContaining('is not a field of the pass') as unknown,
      'set.fieldValues.tier': 'must be a string',
      'set.attributes.9x': expect.stringContaining('is not an attribute key') as unknown,
      'set.attributes.ok': 'must be a text, a number or a boolean',
      'addTags.1': expect.stringContaining('1 to 64 characters') as unknown,
      'removeTags.0': 'is also in addTags',
      'increment.points': 'must be a finite number',
      'increment.no key': expect.stringContaining('nor is it an attribute key') as unknown,
      'increment.ok': 'is also in set: change a key one way only',
    });
  });

  it('refuses an increment that has no decimal text (more than 30 digits before or after)', () => {
    expect(
      Object.keys(problems({ increment: { points: 1e30, visits: 1e-31, tier: 5e-324 } })),
    ).toEqual(['increment.points', 'increment.visits', 'increment.tier']);
    expect(problems({ increment: { points: 1e29, visits: 1e-30, spend: -123.456 } })).toEqual({});
  });

  it('wants at least one change, and objects for set.fieldValues and set.attributes', () => {
    expect(Object.keys(problems({}))).toEqual(['set']);
    expect(Object.keys(problems({ set: {}, addTags: [], increment: {} }))).toEqual(['set']);
    expect(Object.keys(problems({ set: { fieldValues: null } }))).toEqual(['set.fieldValues']);
    expect(Object.keys(problems({ set: { attributes: null } }))).toEqual(['set.attributes']);
    // A barcode text going back to the pass's is a change.
    expect(problems({ set: { barcodeText: null } })).toEqual({});
  });

  it('refuses more than 50 attributes set at once', () => {
    const attributes = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`a${i}`, i]));
    expect(Object.keys(problems({ set: { attributes } }))).toEqual(['set.attributes']);
  });

  it('tells whether holders see the change', () => {
    expect(showsOnPass(changes({ addTags: ['a'], set: { attributes: { x: 1 } } }))).toBe(false);
    expect(showsOnPass(changes({ increment: { visits: 1 } }))).toBe(false);
    expect(showsOnPass(changes({ increment: { points: 1 } }))).toBe(true);
    expect(showsOnPass(changes({ set: { barcodeText: 'VIP' } }))).toBe(true);
  });
});

describe('bulkEdit', () => {
  const holder = (values: Partial<Parameters<typeof bulkEdit>[1]> = {}) => ({
    fieldValues: {},
    attributes: {},
    tags: [],
    ...values,
  });

  it("increments the holder's own value, else the pass's, and writes it as text", () => {
    const change = changes({ increment: { points: 5, balance: 0.2 } });
    expect(bulkEdit(change, holder({ fieldValues: { points: '10' } }), DEFAULTS)).toEqual({
      fieldValues: { points: '15', balance: '0.3' },
    });
  });

  it('adds exactly, and leaves a holder whose sum would have more than 30 digits', () => {
    const change = changes({ increment: { points: 1, visits: 1 } });
    expect(
      bulkEdit(
        change,
        holder({
          fieldValues: { points: '9007199254740993' },
          attributes: { visits: Number.MAX_SAFE_INTEGER },
        }),
        DEFAULTS,
      ),
    ).toEqual({
      fieldValues: { points: '9007199254740994' },
      attributes: { visits: '9007199254740992' },
    });
    expect(
      bulkEdit(change, holder({ fieldValues: { points: '9'.repeat(30) } }), DEFAULTS),
    ).toBeNull();
  });

  it('leaves a holder whose value to increment is no number (null)', () => {
    expect(
      bulkEdit(
        changes({ increment: { points: 1 } }),
        holder({ fieldValues: { points: 'x' } }),
        DEFAULTS,
      ),
    ).toBeNull();
    // The pass's own value is a date.
    expect(bulkEdit(changes({ increment: { since: 1 } }), holder(), DEFAULTS)).toBeNull();
    // An attribute the holder lacks, or a boolean.
    expect(bulkEdit(changes({ increment: { visits: 1 } }), holder(), DEFAULTS)).toBeNull();
    expect(
      bulkEdit(
        changes({ increment: { visits: 1 } }),
        holder({ attributes: { visits: true } }),
        DEFAULTS,
      ),
    ).toBeNull();
  });

  it('adds and removes tags, sets values and attributes as given', () => {
    const change = changes({
      set: {
        fieldValues: { tier: 'Gold' },
        attributes: { city: null, tier: 'gold' },
        barcodeText: null,
      },
      addTags: ['vip'],
      removeTags: ['silver'],
      increment: { visits: 1 },
    });
    expect(
      bulkEdit(change, holder({ tags: ['silver', 'zurich'], attributes: { visits: 2 } }), DEFAULTS),
    ).toEqual({
      fieldValues: { tier: 'Gold' },
      attributes: { city: null, tier: 'gold', visits: 3 },
      barcodeText: null,
      tags: ['zurich', 'vip'],
    });
  });

  it('leaves out a field value whose field the pass no longer has', () => {
    const change = changes({ set: { fieldValues: { tier: 'Gold' } }, increment: { points: 1 } });
    const without = new Map([...DEFAULTS].filter(([key]) => key !== 'tier'));
    expect(bulkEdit(change, holder(), without)).toEqual({ fieldValues: { points: '1' } });
  });
});
