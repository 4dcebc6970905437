/**
 * IANA time zones of a trip's ends: what the rules accept, the spelling both
 * wallets get, and a time as the clock of that zone shows it (WalletB's local date-times).
 */

/** A zone's name, never an offset (`+01:00`, which newer engines also take as a zone). */
const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*$/;

/**
 * The IANA name of `name` as the time zone database spells it (`europe/zurich` is
 * `Europe/Zurich`; an alias such as `Etc/UTC` or `US/Eastern` is its zone's name, `UTC`,
 * `America/New_York`), or null when it names no zone. The runtime's own database decides, as
 * `Intl.supportedValuesOf('timeZone')` leaves aliases and `UTC` out.
 */
export function ianaTimeZone(name: string): string | null {
  if (!ZONE_NAME.test(name)) return null;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

/**
 * One formatter per zone. A name Intl does not know throws before anything is kept, and the
 * zones it knows are a closed list (a few hundred), so a plain map cannot grow past it.
 */
const clocks = new Map<string, Intl.DateTimeFormat>();

function clockOf(zone: string): Intl.DateTimeFormat {
  let clock = clocks.get(zone);
  if (clock === undefined) {
    clock = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    clocks.set(zone, clock);
  }
  return clock;
}

/**
 * The instant `isoDateTime` as the wall clock of `zone` shows it, ISO 8601 without an offset
 * (`2026-05-01T09:00:00`; milliseconds when it has some): the departure `07:00:00Z` is `09:00`
 * in Zurich in May, whatever offset the time was written with.
 */
export function wallClockIn(isoDateTime: string, zone: string): string {
  const date = new Date(isoDateTime);
  if (Number.isNaN(date.getTime())) throw new Error(`Not an ISO 8601 date-time: ${isoDateTime}`);
  const part: Partial<Record<Intl.DateTimeFormatPartTypes, string>> = {};
  for (const { type, value } of clockOf(zone).formatToParts(date)) part[type] = value;
  const millis = date.getUTCMilliseconds();
  return (
    `${part.year}-${part.month}-${part.day}T${part.hour}:${part.minute}:${part.second}` +
    (millis > 0 ? `.${String(millis).padStart(3, '0')}` : '')
  );
}
