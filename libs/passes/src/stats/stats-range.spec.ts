import { InvalidInputError } from '@app/core';
import { daysOf, statsRange, utcDay } from './stats-range';

/** The error `work` throws, for its context. */
function refusal(work: () => unknown): InvalidInputError {
  try {
    work();
  } catch (error) {
    if (error instanceof InvalidInputError) return error;
    throw error;
  }
  throw new Error('expected an InvalidInputError');
}

describe('statsRange', () => {
  // Late in the UTC day: a local-time slip would show as the wrong day.
  const now = new Date('2026-03-10T23:59:59.999Z');

  it('defaults to the 30 days ending today, UTC', () => {
    expect(statsRange({}, now)).toEqual({ from: '2026-02-09', to: '2026-03-10' });
    expect(daysOf(statsRange({}, now))).toHaveLength(30);
  });

  it('defaults from to the 30 days ending at the given to', () => {
    // 2024 is a leap year: February 1st to March 1st is 30 days.
    expect(statsRange({ to: '2024-03-01' }, now)).toEqual({ from: '2024-02-01', to: '2024-03-01' });
  });

  it('defaults to to today when only from is given', () => {
    expect(statsRange({ from: '2026-03-01' }, now)).toEqual({
      from: '2026-03-01',
      to: '2026-03-10',
    });
  });

  it('takes one day, and up to 366 days (a leap year) but not 367', () => {
    expect(statsRange({ from: '2026-01-05', to: '2026-01-05' }, now)).toEqual({
      from: '2026-01-05',
      to: '2026-01-05',
    });
    const leapYear = statsRange({ from: '2024-01-01', to: '2024-12-31' }, now);
    expect(daysOf(leapYear)).toHaveLength(366);
    expect(
      refusal(() => statsRange({ from: '2023-12-31', to: '2024-12-31' }, now)).context,
    ).toEqual({
      from: 'must be at most 365 days before to',
    });
    expect(refusal(() => statsRange({ from: '2020-01-01' }, now)).context).toEqual({
      from: 'must be at most 365 days before to',
    });
  });

  it('refuses from after to, also after the default to', () => {
    expect(
      refusal(() => statsRange({ from: '2026-01-02', to: '2026-01-01' }, now)).context,
    ).toEqual({
      from: 'must not be after to',
    });
    expect(refusal(() => statsRange({ from: '2026-03-11' }, now)).context).toEqual({
      from: 'must not be after to',
    });
  });

  it.each([
    '2026-1-01',
    '2026-02-30',
    '2025-02-29',
    '2026-13-01',
    '2026-00-10',
    '20260101',
    '2026-01-01T00:00:00Z',
    '',
    ' 2026-01-01',
    'today',
  ])('refuses %p with the parameter named', (value) => {
    expect(refusal(() => statsRange({ from: value, to: '2026-03-01' }, now)).context).toEqual({
      from: 'must be a date YYYY-MM-DD',
    });
    expect(refusal(() => statsRange({ to: value }, now)).context).toEqual({
      to: 'must be a date YYYY-MM-DD',
    });
  });

  it('names both parameters when both are malformed', () => {
    expect(refusal(() => statsRange({ from: 'x', to: 'y' }, now)).context).toEqual({
      from: 'must be a date YYYY-MM-DD',
      to: 'must be a date YYYY-MM-DD',
    });
  });
});

describe('daysOf', () => {
  it('lists every day ascending, across month, year and a leap day', () => {
    expect(daysOf({ from: '2023-12-30', to: '2024-01-02' })).toEqual([
      '2023-12-30',
      '2023-12-31',
      '2024-01-01',
      '2024-01-02',
    ]);
    expect(daysOf({ from: '2024-02-28', to: '2024-03-01' })).toEqual([
      '2024-02-28',
      '2024-02-29',
      '2024-03-01',
    ]);
  });
});

describe('utcDay', () => {
  it('is the UTC date, whatever the local zone', () => {
    expect(utcDay(new Date('2026-03-10T23:59:59.999Z'))).toBe('2026-03-10');
    expect(utcDay(new Date('2026-03-11T00:00:00.000Z'))).toBe('2026-03-11');
  });
});
