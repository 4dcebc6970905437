import type { EventDto, OfferDto, TransitDto } from './pass-kind.dto';

/**
 * Each kind's block as the API's examples show it, written once: the OpenAPI examples of
 * POST /v1/wallet-pass (`create-pass.examples.ts`) send them as they are, and the kinds' test
 * fixtures (`test/support/pass-kind-fixtures.ts`, `test/support/wallet-a-kinds.ts`) build their
 * variants from them. Their key order is the OpenAPI document's.
 */

/** Where the examples' events are, on the map. */
const PLACE = { latitude: 48.8566, longitude: 2.3522 };

/** A coupon's offer. */
export const EXAMPLE_OFFER = {
  title: '20 % off your next visit',
  provider: 'Brand Ltd',
  redemptionChannel: 'both',
  finePrint: 'One per customer. Not valid with other offers.',
} satisfies OfferDto;

/** A ticket's event, with the venue's region and room a poster event ticket needs. */
export const EXAMPLE_EVENT = {
  name: 'Summer Gala',
  venueName: 'Riverside Hall',
  venueAddress: '1 River Street, Springfield',
  venueRegion: 'Springfield',
  venueRoom: 'Main Hall',
  ...PLACE,
  startTime: '2026-07-01T19:30:00+02:00',
  endTime: '2026-07-01T23:00:00+02:00',
  doorsOpen: '2026-07-01T18:30:00+02:00',
} satisfies EventDto;

/**
 * A festival of three events: one at a stage of its own, one at the festival's venue, one
 * without an end.
 */
export const EXAMPLE_FESTIVAL = {
  name: 'Riverside Festival',
  venueName: 'Riverside Park',
  venueAddress: '1 Park Road, Springfield',
  ...PLACE,
  startTime: '2026-07-10T16:00:00+02:00',
  endTime: '2026-07-12T23:30:00+02:00',
  upcoming: [
    {
      identifier: 'day-1',
      name: 'Opening night',
      startTime: '2026-07-10T18:00:00+02:00',
      endTime: '2026-07-10T23:30:00+02:00',
      venueName: 'Main Stage',
    },
    {
      identifier: 'day-2',
      name: 'Jazz afternoon',
      startTime: '2026-07-11T14:00:00+02:00',
      endTime: '2026-07-11T18:00:00+02:00',
    },
    { identifier: 'day-3', name: 'Closing concert', startTime: '2026-07-12T20:00:00+02:00' },
  ],
} satisfies EventDto;

/** A flight whose number carries the airline's code (BA123), under the airline's name. */
export const EXAMPLE_FLIGHT = {
  transitType: 'air',
  carrier: 'Brand Air',
  number: 'BA123',
  origin: { code: 'LHR', name: 'London Heathrow' },
  destination: { code: 'SFO', name: 'San Francisco' },
  departureTime: '2026-05-01T08:00:00+01:00',
  arrivalTime: '2026-05-01T11:10:00-07:00',
} satisfies TransitDto;

/**
 * A flight by carrier and number (carrier LX, number 318: the flight LX318), with what the
 * semantic boarding pass needs: its boarding time and both ends' IANA zones.
 */
export const EXAMPLE_SEMANTIC_FLIGHT = {
  transitType: 'air',
  carrier: 'LX',
  number: '318',
  origin: { code: 'ZRH', name: 'Zurich', timeZone: 'Europe/Zurich' },
  destination: { code: 'JFK', name: 'New York', timeZone: 'America/New_York' },
  boardingTime: '2026-05-01T12:25:00+02:00',
  departureTime: '2026-05-01T13:05:00+02:00',
  arrivalTime: '2026-05-01T15:55:00-04:00',
} satisfies TransitDto;
