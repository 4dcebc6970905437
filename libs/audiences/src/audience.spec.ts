import { InvalidInputError, sqlDialect } from '@app/core';
import { readAudience, type ValueTest } from './audience';
import { audienceSql, audienceSqlNamed, valueMatches } from './audience-sql';

const FIELDS = ['points', 'name'];
const PASS = {
  id: 'pass-1',
  fieldDefaults: new Map([
    ['points', '100'],
    ['name', ''],
  ]),
};
const SQLITE = sqlDialect({ options: { type: 'better-sqlite3' } });

function problems(json: unknown): Record<string, string> {
  try {
    readAudience(json, FIELDS);
  } catch (error) {
    if (error instanceof InvalidInputError) return error.context as Record<string, string>;
    throw error;
  }
  throw new Error('the audience was accepted');
}

describe('readAudience', () => {
  it('reads every kind of node', () => {
    const condition = readAudience(
      {
        all: [
          { tag: 'gold' },
          { not: { attribute: 'city', in: ['Zurich', 8001, true] } },
          { any: [{ field: 'points', gte: 500 }, { installed: 'walletA' }] },
          { status: 'Voided' },
          { createdAfter: '2026-01-01T00:00:00Z' },
        ],
      },
      FIELDS,
    );
    expect(condition).toMatchObject({ kind: 'all' });
  });

  it('keys each problem by the path of its node', () => {
    expect(problems({ all: [{ tag: 'ok' }, { any: [{ field: 'x', eq: 1 }] }] })).toEqual({
      'audience.all.1.any.0.field': expect.stringContaining('points, name'),
    });
    expect(problems({ attribute: 'spend', gte: null })).toEqual({
      'audience.gte': expect.any(String),
    });
    expect(problems({ attribute: 'spend', exists: 'yes' })).toEqual({
      'audience.exists': 'must be a boolean',
    });
    expect(problems({ attribute: 'spend', contains: '' })).toEqual({
      'audience.contains': expect.any(String),
    });
    expect(problems({ attribute: 'spend', eq: Number.NaN })).toEqual({
      'audience.eq': expect.any(String),
    });
    expect(problems([{ tag: 'gold' }])).toEqual({ audience: expect.any(String) });
    expect(problems({ tag: 'gold', extra: 1 })).toEqual({ 'audience.extra': expect.any(String) });
  });

  it('counts nodes across the tree', () => {
    const fifty = Array.from({ length: 50 }, () => ({ tag: 'a' }));
    expect(() =>
      readAudience({ all: [{ any: fifty }, { any: fifty.slice(3) }] }, FIELDS),
    ).not.toThrow();
    expect(problems({ all: [{ any: fifty }, { any: fifty }] })).toEqual({
      audience: 'must have at most 100 conditions',
    });
  });
});

describe('valueMatches', () => {
  const cases: [ValueTest, string | number | boolean | null, boolean][] = [
    [{ op: 'eq', operand: 1200 }, '1200', true],
    [{ op: 'eq', operand: 1200 }, '1200.0', true],
    [{ op: 'eq', operand: '1200' }, 1200, true],
    [{ op: 'eq', operand: 'Zurich' }, 'zurich', false],
    [{ op: 'eq', operand: true }, 'true', false],
    [{ op: 'eq', operand: true }, true, true],
    [{ op: 'ne', operand: 'x' }, null, true],
    [{ op: 'gt', operand: 399 }, '1200', true],
    [{ op: 'gt', operand: 399 }, '1,200', false],
    [{ op: 'gt', operand: '2026-01-01' }, '2026-03-01T10:00:00Z', true],
    [{ op: 'lt', operand: 5 }, null, false],
    [{ op: 'exists', operand: true }, '', false],
    [{ op: 'exists', operand: false }, '', true],
    [{ op: 'contains', operand: 'ZUR' }, 'Zurich', true],
    [{ op: 'in', operands: ['a', 2] }, '2', true],
  ];
  it.each(cases)('%j on %j is %s', (test, value, expected) => {
    expect(valueMatches(test, value)).toBe(expected);
  });
});

describe('audienceSql', () => {
  const hostile = "x'); DROP TABLE holder; --";
  const condition = readAudience(
    {
      any: [
        { attribute: 'city', eq: hostile },
        { attribute: 'city', contains: hostile },
        { field: 'points', lt: 500 },
        { not: { tag: 'gold' } },
      ],
    },
    FIELDS,
  );

  it('binds every value, in the order of its placeholders', () => {
    const { sql, params } = audienceSql(condition, PASS, SQLITE);
    expect(sql).not.toContain('DROP');
    expect(sql.split('?').length - 1).toBe(params.length);
    const named = audienceSqlNamed(condition, PASS, SQLITE);
    const order = [...named.sql.matchAll(/:audience(\d+)/g)].map((match) => Number(match[1]));
    expect(order).toEqual(order.map((_, index) => index));
    expect(Object.values(named.parameters)).toEqual(params);
  });

  it("lets holders without a field value match when the pass's value passes", () => {
    // points < 500 holds for the pass's "100": holders without their own value match too.
    expect(
      audienceSql(readAudience({ field: 'points', lt: 500 }, FIELDS), PASS, SQLITE).sql,
    ).toContain('NOT IN');
    expect(
      audienceSql(readAudience({ field: 'points', gt: 500 }, FIELDS), PASS, SQLITE).sql,
    ).not.toContain('NOT IN');
  });

  it('takes Active holders only unless a status is named', () => {
    expect(audienceSql(readAudience({ tag: 'a' }, FIELDS), PASS, SQLITE).sql).toMatch(
      /^h\.status = 'Active' AND /,
    );
    expect(audienceSql(readAudience({ status: 'Voided' }, FIELDS), PASS, SQLITE).sql).not.toContain(
      "'Active'",
    );
  });
});
