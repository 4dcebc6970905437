import type { KindFact, KindUnit } from './kind-unit';
import type { TransitType } from './kind-names';

/** A trip's mode, in words: what a service with no carrier name is called. */
export const TRANSIT_MODE: Record<TransitType, string> = {
  air: 'Flight',
  train: 'Train',
  bus: 'Bus',
  boat: 'Boat',
  generic: 'Trip',
};

/**
 * A flight's marketing carrier and number as `transit.number` writes them: the airline's IATA
 * designator (two characters, not both digits: `BA`, `U2`) or ICAO one (three letters: `EZY`),
 * then the flight number's one to four digits (`BA123`, `EZY 8751`). Null when it is not one.
 */
export function parseFlightNumber(
  number: string,
): { iata: string; digits: string } | { icao: string; digits: string } | null {
  const text = number.trim().toUpperCase();
  const icao = /^([A-Z]{3}) ?(\d{1,4})$/.exec(text);
  if (icao !== null) return { icao: icao[1], digits: icao[2] };
  const iata = /^([A-Z0-9]{2}) ?(\d{1,4})$/.exec(text);
  if (iata !== null && !/^\d{2}$/.test(iata[1])) return { iata: iata[1], digits: iata[2] };
  return null;
}

/** An airport's IATA code: three letters. */
export const isAirportCode = (code: string | undefined): boolean =>
  code !== undefined && /^[A-Za-z]{3}$/.test(code);

/**
 * A boarding pass: where from and where to (codes are what a boarding pass shows large, with
 * the place's name as their label), departure and arrival, and the service (the flight or train
 * number labelled by the carrier, else the carrier). Its heading is the mode, carrier and number.
 */
export const BOARDING_PASS: KindUnit<'boardingPass'> = {
  block: 'transit',
  face: { headerFields: 3, primaryFields: 2, secondaryFields: 4, auxiliaryFields: 5 },
  times: (transit) => ({
    start: transit.departureTime,
    end: transit.arrivalTime,
    takesHolderDay: false,
    lasts: false,
  }),
  facts: (transit, schedule) => {
    const mode = TRANSIT_MODE[transit.transitType];
    const service: KindFact | undefined = transit.number
      ? { key: 'transit.number', label: transit.carrier || mode, value: transit.number }
      : transit.carrier
        ? { key: 'transit.carrier', label: mode, value: transit.carrier }
        : undefined;
    return {
      heading: [mode, transit.carrier, transit.number]
        .filter((part) => part !== undefined && part !== '')
        .join(' '),
      origin: { key: 'transit.origin', label: transit.origin.name, value: transit.origin.code },
      destination: {
        key: 'transit.destination',
        label: transit.destination.name,
        value: transit.destination.code,
      },
      departure: {
        key: 'transit.departure',
        label: 'Departs',
        value: schedule.start ?? transit.departureTime,
        time: 'dateTime',
      },
      ...(schedule.end !== undefined
        ? {
            arrival: {
              key: 'transit.arrival',
              label: 'Arrives',
              value: schedule.end,
              time: 'dateTime',
            },
          }
        : {}),
      ...(service !== undefined ? { service } : {}),
    };
  },
};
