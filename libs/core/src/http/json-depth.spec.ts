import { jsonNestingDepth, MAX_JSON_DEPTH, rejectDeeplyNestedJson } from './json-depth';

describe('JSON nesting depth', () => {
  it('counts arrays and objects, not brackets inside strings', () => {
    expect(jsonNestingDepth(Buffer.from('1'))).toBe(0);
    expect(jsonNestingDepth(Buffer.from('{"a":[{"b":1}]}'))).toBe(3);
    expect(jsonNestingDepth(Buffer.from('{"a":"[[[{{{\\"[[["}'))).toBe(1);
  });

  it('lets documented bodies through and refuses deeply nested ones with a 400', () => {
    const nested = (depth: number) => Buffer.from(`${'['.repeat(depth)}${']'.repeat(depth)}`);
    expect(() =>
      rejectDeeplyNestedJson(undefined, undefined, nested(MAX_JSON_DEPTH)),
    ).not.toThrow();
    expect(() => rejectDeeplyNestedJson(undefined, undefined, nested(5_000))).toThrow(
      `nested deeper than ${MAX_JSON_DEPTH} levels`,
    );
  });
});
