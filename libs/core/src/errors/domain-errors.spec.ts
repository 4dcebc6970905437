import {
  capFieldMessages,
  InvalidInputError,
  MAX_CONTEXT_ENTRIES,
  MORE_PROBLEMS_KEY,
} from './domain-errors';

describe('the context of a validation error', () => {
  const problems = (count: number) =>
    Object.fromEntries(Array.from({ length: count }, (_, i) => [`field${i}`, 'must not be null']));

  it('is kept whole up to the cap', () => {
    expect(capFieldMessages(problems(MAX_CONTEXT_ENTRIES))).toEqual(problems(MAX_CONTEXT_ENTRIES));
  });

  it('lists the first problems and counts the rest', () => {
    const context = new InvalidInputError(problems(100_000)).context ?? {};
    expect(Object.keys(context)).toHaveLength(MAX_CONTEXT_ENTRIES + 1);
    expect(context.field0).toBe('must not be null');
    expect(context[`field${MAX_CONTEXT_ENTRIES - 1}`]).toBe('must not be null');
    expect(context[`field${MAX_CONTEXT_ENTRIES}`]).toBeUndefined();
    expect(context[MORE_PROBLEMS_KEY]).toBe(100_000 - MAX_CONTEXT_ENTRIES);
  });

  it('shortens long field paths and messages', () => {
    const context = capFieldMessages({ ['k'.repeat(100_000)]: 'm'.repeat(100_000) });
    const [[key, message]] = Object.entries(context);
    expect(key).toBe(`${'k'.repeat(200)}…`);
    expect(message).toBe(`${'m'.repeat(500)}…`);
  });

  it('keeps a client key named __proto__ as an ordinary entry', () => {
    const fieldMessages: Record<string, string> = {};
    Object.defineProperty(fieldMessages, '__proto__', {
      value: 'is not a known field',
      enumerable: true,
    });
    const context = capFieldMessages(fieldMessages);
    expect(Object.keys(context)).toEqual(['__proto__']);
    expect(JSON.stringify(context)).toBe('{"__proto__":"is not a known field"}');
  });
});
