import { ianaTimeZone, wallClockIn } from './time-zones';

describe('time zones of a trip', () => {
  it('names a zone as the time zone database spells it, aliases and UTC included', () => {
    expect(ianaTimeZone('Europe/Zurich')).toBe('Europe/Zurich');
    expect(ianaTimeZone('europe/zurich')).toBe('Europe/Zurich');
    expect(ianaTimeZone('US/Eastern')).toBe('America/New_York');
    expect(ianaTimeZone('UTC')).toBe('UTC');
    expect(ianaTimeZone('Etc/UTC')).toBe('UTC');
  });

  it('refuses offsets and names of no zone', () => {
    for (const wrong of ['+02:00', '-0500', 'Europe/Atlantis', 'Zurich', '', 'Europe//Zurich']) {
      expect(ianaTimeZone(wrong)).toBeNull();
    }
  });

  it("reads an instant at a zone's clock, whatever offset it was written with", () => {
    expect(wallClockIn('2026-05-01T11:05:00Z', 'Europe/Zurich')).toBe('2026-05-01T13:05:00');
    expect(wallClockIn('2026-05-01T13:05:00+02:00', 'Europe/Zurich')).toBe('2026-05-01T13:05:00');
    expect(wallClockIn('2026-05-01T19:55:00Z', 'America/New_York')).toBe('2026-05-01T15:55:00');
    // Winter time, and a date that moves with the zone.
    expect(wallClockIn('2026-01-15T23:30:00Z', 'Europe/Zurich')).toBe('2026-01-16T00:30:00');
    expect(wallClockIn('2026-05-01T11:05:00.250Z', 'UTC')).toBe('2026-05-01T11:05:00.250');
  });
});
