import { validateSync } from 'class-validator';
import { CALENDAR_DATE_MESSAGE, IsCalendarDate, isCalendarDate } from './calendar-date';

class Dated {
  @IsCalendarDate() day!: unknown;
}

function errorsOf(day: unknown): string[] {
  const target = Object.assign(new Dated(), { day });
  return validateSync(target).flatMap((error) => Object.values(error.constraints ?? {}));
}

describe('calendar dates', () => {
  it.each(['2026-02-28', '2024-02-29', '2000-02-29', '2026-12-31', '2026-01-01', '0001-01-01'])(
    'accepts %s',
    (value) => {
      expect(isCalendarDate(value)).toBe(true);
      expect(errorsOf(value)).toEqual([]);
    },
  );

  it.each([
    '2026-02-30',
    '2026-02-29',
    '1900-02-29',
    '2026-04-31',
    '2026-13-01',
    '2026-00-10',
    '2026-01-00',
    '0000-01-01',
    '2026-1-01',
    '26-01-01',
    '2026-01-01T00:00:00Z',
    '20260101',
    ' 2026-01-01',
    '',
  ])('refuses %p', (value) => {
    expect(isCalendarDate(value)).toBe(false);
    expect(errorsOf(value)).toEqual([CALENDAR_DATE_MESSAGE]);
  });

  it('refuses values that are not strings', () => {
    expect(isCalendarDate(20260101)).toBe(false);
    expect(isCalendarDate(new Date())).toBe(false);
    expect(isCalendarDate(null)).toBe(false);
  });
});
