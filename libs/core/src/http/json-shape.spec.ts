import { MAX_JSON_DEPTH, scanJsonShape, type JsonShapeLimits } from './json-shape';

const UNLIMITED: JsonShapeLimits = {
  maxDepth: MAX_JSON_DEPTH,
  maxKeys: Infinity,
  maxItems: Infinity,
  maxValues: Infinity,
};

const scan = (text: string, limits: Partial<JsonShapeLimits> = {}) =>
  scanJsonShape(Buffer.from(text), { ...UNLIMITED, ...limits });

describe('scanJsonShape', () => {
  it('measures depth, the largest object and array, and the values in all', () => {
    expect(scan('1')).toEqual({ depth: 0, keys: 0, items: 0, values: 0 });
    expect(scan('{}')).toEqual({ depth: 1, keys: 0, items: 0, values: 0 });
    expect(scan('[]')).toEqual({ depth: 1, keys: 0, items: 0, values: 0 });
    expect(scan('{"a":[{"b":1}]}')).toEqual({ depth: 3, keys: 1, items: 1, values: 3 });
    expect(scan('[1, 22, 333, true, null, "x", {}, []]')).toMatchObject({ items: 8, values: 8 });
    expect(scan(' { "a" : 1 , "b" : [ 1 , 2 , 3 ] , "c" : { } } ')).toEqual({
      depth: 2,
      keys: 3,
      items: 3,
      values: 6,
    });
    expect(scan('[[1,2],[3,4,5],[]]')).toEqual({ depth: 2, keys: 0, items: 3, values: 8 });
  });

  it('does not count brackets, commas, colons or escaped quotes inside strings', () => {
    expect(scan('{"a":"[[[{{{\\"[[[,,,:"}')).toEqual({ depth: 1, keys: 1, items: 0, values: 1 });
    expect(scan('["\\\\", "\\\\\\"]", 1]')).toMatchObject({ depth: 1, items: 3 });
    expect(scan('{"a,b":"c,d","e":"\\u0022,"}')).toMatchObject({ keys: 2, values: 2 });
  });

  it('stops at an object with too many members, naming its path', () => {
    expect(scan('{"a":1,"b":2}', { maxKeys: 2 }).violation).toBeUndefined();
    expect(scan('{"a":1,"b":2,"c":3}', { maxKeys: 2 }).violation).toEqual({
      path: 'body',
      message: 'must have at most 2 fields',
    });
    expect(
      scan('{"x":1,"passMetadata":{"topField":{"a":1,"b":2,"c":3}}}', { maxKeys: 2 }).violation,
    ).toEqual({ path: 'passMetadata.topField', message: 'must have at most 2 fields' });
  });

  it('stops at an array with too many elements, naming its path', () => {
    expect(scan('[1,2,3]', { maxItems: 3 }).violation).toBeUndefined();
    expect(scan('[1,2,3,4]', { maxItems: 3 }).violation).toEqual({
      path: 'body',
      message: 'must have at most 3 elements',
    });
    const body = JSON.stringify({
      passName: 'x',
      passMetadata: { description: 'd', secondaryFields: Array(10).fill({}) },
    });
    expect(scan(body, { maxItems: 4 }).violation).toEqual({
      path: 'passMetadata.secondaryFields',
      message: 'must have at most 4 elements',
    });
    expect(scan('[{"a":1},{"b":[1,2,3]}]', { maxItems: 2 }).violation).toEqual({
      path: '[1].b',
      message: 'must have at most 2 elements',
    });
  });

  it('stops when the values of all levels together are too many', () => {
    const nested = JSON.stringify(Array(10).fill(Array(10).fill(0)));
    expect(scan(nested, { maxValues: 110 }).violation).toBeUndefined();
    expect(scan(nested, { maxValues: 109 }).violation).toEqual({
      path: 'body',
      message: 'must hold at most 109 values in all',
    });
  });

  it('refuses nesting deeper than the limit', () => {
    const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
    expect(scan(nested(MAX_JSON_DEPTH)).violation).toBeUndefined();
    expect(scan(nested(5_000)).violation).toEqual({
      path: 'body',
      message: `is nested deeper than ${MAX_JSON_DEPTH} levels`,
    });
    expect(scan(`${'{"a":'.repeat(40)}1${'}'.repeat(40)}`).violation?.message).toContain('deeper');
  });

  it('shortens long keys in a path and survives keys cut inside an escape', () => {
    const key = `${'k'.repeat(60)}\\u00e9${'k'.repeat(500)}`;
    const violation = scan(`{"${key}":[1,2,3]}`, { maxItems: 2 }).violation;
    expect(violation?.path).toBe(`${'k'.repeat(60)}ékkk…`);
  });

  it('stops at the first violation without reading the rest of a huge text', () => {
    const attack = `{${Array.from({ length: 200_000 }, (_, i) => `"k${i}":1`).join(',')}}`;
    const shape = scan(attack, { maxKeys: 100 });
    expect(shape.violation?.message).toBe('must have at most 100 fields');
    // It stopped at the 101st key: the other 199,899 were never looked at.
    expect(shape.values).toBe(101);
  });

  it('skips long strings without looking at each byte', () => {
    const base64 = Buffer.alloc(10 * 1024 * 1024, 7).toString('base64');
    const text = JSON.stringify({ file: base64, fileName: 'a.png' });
    expect(scan(text, { maxKeys: 3, maxItems: 0, maxValues: 3 })).toEqual({
      depth: 1,
      keys: 2,
      items: 0,
      values: 2,
    });
  });

  it('tolerates malformed text (JSON.parse refuses it afterwards)', () => {
    for (const text of ['', '{', '}}}]]]', '["unterminated', '{"a":', ',,,', '"\\', '[1,2']) {
      expect(() => scan(text, { maxKeys: 1, maxItems: 1, maxValues: 1 })).not.toThrow();
    }
    expect(scan('[1,2', { maxItems: 1 }).violation?.path).toBe('body');
  });
});
