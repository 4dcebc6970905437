import { editHolder, fieldValueProblems, mergeFieldValues } from './holder-edit';
import { Holder } from '@app/passes';
import { mergeAttributes } from './holder-targeting';

const CHANGED = new Date('2026-03-01T10:00:05.400Z');
const NOW = new Date('2026-03-01T10:00:05.900Z');

function holder(values: Partial<Holder> = {}): Holder {
  return Object.assign(new Holder(), {
    id: 'h1',
    passId: 'p1',
    workspaceId: 'w1',
    externalId: 'member-1',
    status: 'Active',
    fieldValues: { points: '10' },
    tags: ['gold'],
    attributes: { city: 'Zurich' },
    barcodeValue: null,
    barcodeText: null,
    relevantDate: null,
    expirationDate: null,
    version: 3,
    updatedTime: CHANGED,
    updatedBy: 'someone',
    ...values,
  });
}

describe('editHolder (the one rule of PATCH and bulk changes)', () => {
  it('moves the version on and updatedTime to a later second on a visible change', () => {
    const result = editHolder(holder(), { fieldValues: { points: '11' } }, 'actor', NOW);
    expect(result).toMatchObject({ kind: 'changed', visibleChange: true, targetingChange: false });
    if (result.kind !== 'changed') return;
    expect(result.written).toMatchObject({
      fieldValues: { points: '11' },
      version: 4,
      updatedBy: 'actor',
      // The previous change was in second :05; the package's Last-Modified must move on.
      updatedTime: new Date('2026-03-01T10:00:06.000Z'),
    });
  });

  it('keeps the version on an invisible change, and never moves updatedTime back', () => {
    const ahead = new Date('2026-03-01T10:00:07.000Z');
    const result = editHolder(holder({ updatedTime: ahead }), { tags: ['vip', 'gold'] }, 'a', NOW);
    expect(result).toMatchObject({ kind: 'changed', visibleChange: false, targetingChange: true });
    if (result.kind !== 'changed') return;
    expect(result.written.version).toBeUndefined();
    expect(result.written.tags).toEqual(['gold', 'vip']);
    expect(result.written.updatedTime).toEqual(ahead);
  });

  it('merges field values and attributes by key; null goes back to the pass / removes', () => {
    const result = editHolder(
      holder({ fieldValues: { points: '10', tier: 'Gold' } }),
      { fieldValues: { tier: null, name: 'Maya' }, attributes: { city: null, visits: 2 } },
      'a',
      NOW,
    );
    if (result.kind !== 'changed') throw new Error(result.kind);
    expect(result.written.fieldValues).toEqual({ points: '10', name: 'Maya' });
    expect(result.written.attributes).toEqual({ visits: 2 });
  });

  it('changes nothing when the edit leaves the holder as it was', () => {
    const same = { fieldValues: { points: '10' }, tags: ['gold', 'gold'], attributes: {} };
    expect(editHolder(holder(), same, 'a', NOW)).toEqual({ kind: 'unchanged' });
    expect(editHolder(holder(), { externalId: 'member-1' }, 'a', NOW)).toEqual({
      kind: 'unchanged',
    });
  });

  it('refuses more than 50 attributes or tags after the merge', () => {
    const attributes = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`a${i}`, i]));
    expect(editHolder(holder(), { attributes }, 'a', NOW)).toEqual({
      kind: 'refused',
      problems: { attributes: 'must have at most 50 keys' },
    });
    const tags = Array.from({ length: 51 }, (_, i) => `t${i}`);
    expect(editHolder(holder(), { tags }, 'a', NOW)).toMatchObject({
      kind: 'refused',
      problems: { tags: expect.any(String) as unknown },
    });
  });
});

describe('mergeFieldValues', () => {
  it('sets strings, removes anything else, clears on null, keeps on undefined', () => {
    expect(mergeFieldValues({ a: '1', b: '2' }, { a: '3', b: null })).toEqual({ a: '3' });
    expect(mergeFieldValues({ a: '1' }, null)).toEqual({});
    const current = { a: '1' };
    expect(mergeFieldValues(current, undefined)).toBe(current);
  });
});

describe('keys named like members of Object.prototype', () => {
  const sent = (json: string) => JSON.parse(json) as Record<string, unknown>;

  it('merge as any other key, and a key __proto__ is only a key', () => {
    const values = mergeFieldValues(
      { constructor: '1', valueOf: '2' },
      sent('{"toString": "3", "__proto__": "4", "valueOf": null}'),
    );
    expect(Object.keys(values)).toEqual(['constructor', 'toString', '__proto__']);
    expect(Object.getPrototypeOf(values)).toBe(Object.prototype);

    const attributes = mergeAttributes(
      { valueOf: 1, hasOwnProperty: true },
      sent('{"valueOf": null, "__proto__": {"polluted": true}, "isPrototypeOf": "x"}'),
    );
    expect(Object.keys(attributes)).toEqual(['hasOwnProperty', '__proto__', 'isPrototypeOf']);
    expect(Object.getPrototypeOf(attributes)).toBe(Object.prototype);
    expect((attributes as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it('are set and removed by an edit like any other', () => {
    const set = editHolder(holder(), { attributes: { constructor: 'x', toString: 2 } }, 'a', NOW);
    if (set.kind !== 'changed') throw new Error(set.kind);
    expect(set.written.attributes).toEqual({ city: 'Zurich', constructor: 'x', toString: 2 });
    const removed = editHolder(
      holder({ attributes: { constructor: 'x' } }),
      { attributes: { constructor: null } },
      'a',
      NOW,
    );
    if (removed.kind !== 'changed') throw new Error(removed.kind);
    expect(removed.written.attributes).toEqual({});
  });
});

describe('fieldValueProblems', () => {
  const pass = {
    passMetadata: {
      topField: { key: 'points', label: 'Points', value: '0' },
      secondaryFields: [{ key: 'tier', label: 'Tier', value: 'Basic' }],
    },
  } as unknown as Parameters<typeof fieldValueProblems>[0];

  it('keys each problem under its path', () => {
    expect(
      fieldValueProblems(pass, { nope: 'x', points: 5, tier: null }, false, undefined, 'set.fv'),
    ).toEqual({
      'set.fv.nope': "is not a field of the pass; its face fields' keys are points, tier",
      'set.fv.points': 'must be a string',
      'set.fv.tier': 'must be a string',
    });
    expect(fieldValueProblems(pass, { tier: null }, true)).toBeUndefined();
    expect(fieldValueProblems(pass, { tier: 'x'.repeat(2001) }, true)).toEqual({
      'fieldValues.tier': 'must be shorter than or equal to 2000 characters',
    });
  });
});
