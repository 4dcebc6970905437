import { factText, formatDateTime, formatSpan, formatTime } from './wall-clock';

describe('times as the clock where they happen', () => {
  it('shows a date-time at its own offset, wherever it is rendered', () => {
    expect(formatDateTime('2026-05-01T19:30:00+02:00')).toBe('Fri 1 May 2026, 19:30');
    expect(formatDateTime('2026-05-01T08:05:00-07:00')).toBe('Fri 1 May 2026, 08:05');
    expect(formatDateTime('2026-12-31T23:30:00Z')).toBe('Thu 31 December 2026, 23:30');
    expect(formatTime('2026-05-01T18:45:00+02:00')).toBe('18:45');
  });

  it("shows a fact's value by its kind of time, and any other as it is", () => {
    const value = '2026-05-01T19:30:00+02:00';
    expect(factText({ value, time: 'dateTime' })).toBe('Fri 1 May 2026, 19:30');
    expect(factText({ value, time: 'time' })).toBe('19:30');
    expect(factText({ value: 'Riverside Hall' })).toBe('Riverside Hall');
  });

  it('shows a span within a day with its end time, across days with both dates', () => {
    expect(formatSpan('2026-07-10T18:00:00+02:00', '2026-07-10T23:30:00+02:00')).toBe(
      'Fri 10 July 2026, 18:00–23:30',
    );
    // Midnight at the venue, whatever the UTC date.
    expect(formatSpan('2026-07-10T22:00:00+02:00', '2026-07-11T01:00:00+02:00')).toBe(
      'Fri 10 July 2026, 22:00 – Sat 11 July 2026, 01:00',
    );
    expect(formatSpan('2026-07-10T23:00:00-07:00', '2026-07-10T23:45:00-07:00')).toBe(
      'Fri 10 July 2026, 23:00–23:45',
    );
    expect(formatSpan('2026-07-12T20:00:00+02:00')).toBe('Sun 12 July 2026, 20:00');
  });
});
