import type { TransitDto } from './kind-payloads';
import type { BlockProblem, KindFact, KindUnit, PassengerName } from './kind-unit';
import type { TransitType } from './kind-names';
import { ianaTimeZone } from './time-zones';

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

/** An airline's code, as `transit.carrier` gives it: IATA (`LX`, `U2`) or ICAO (`SWR`). */
export function parseAirlineCode(code: string): { iata: string } | { icao: string } | null {
  const text = code.trim().toUpperCase();
  if (/^[A-Z]{3}$/.test(text)) return { icao: text };
  if (/^[A-Z0-9]{2}$/.test(text) && !/^\d{2}$/.test(text)) return { iata: text };
  return null;
}

/**
 * A flight as both wallets show it: the airline's IATA and/or ICAO code, the flight number's
 * digits, and the airline's name when `transit.carrier` gives one instead of a code.
 */
export interface Flight {
  iata?: string;
  icao?: string;
  digits: string;
  airlineName?: string;
  /** The code and number as a boarding pass prints them: `LX318`, else `SWR318`. */
  designator: string;
}

/** Why a trip is no flight both wallets can show: the field at fault and what it must be. */
export interface FlightProblem {
  field: 'carrier' | 'number';
  message: string;
}

const AIRLINE_CODE = "the airline's IATA code (2 letters or digits) or ICAO code (3 letters)";

/**
 * A carrier of at most three characters is meant as the airline's code; a
 * longer one is its name, which a flight number that carries the code may go with.
 */
const isMeantAsCode = (carrier: string): boolean => carrier.length <= 3;

/**
 * The flight of an air trip: `carrier: "LX", number: "318"` and
 * `number: "LX318"` are the same flight. A number without a code needs the carrier's code; a
 * carrier code contradicting the number's (both IATA, or both ICAO, and different) is refused;
 * an IATA code beside an ICAO one gives the flight both.
 */
export function readFlight(
  transit: Pick<TransitDto, 'carrier' | 'number'>,
): { flight: Flight } | { problem: FlightProblem } {
  const number = transit.number?.trim() ?? '';
  const carrier = transit.carrier?.trim() ?? '';
  if (number === '') {
    return {
      problem: {
        field: 'number',
        message:
          "is required for an air trip: the flight number, with the airline's code (LX318) " +
          'or after a carrier code (carrier LX, number 318)',
      },
    };
  }
  const carrierCode = carrier !== '' && isMeantAsCode(carrier) ? parseAirlineCode(carrier) : null;
  if (carrier !== '' && isMeantAsCode(carrier) && carrierCode === null) {
    return { problem: { field: 'carrier', message: `must be ${AIRLINE_CODE}, e.g. LX` } };
  }
  const airlineName = carrier !== '' && !isMeantAsCode(carrier) ? carrier : undefined;
  const inNumber = parseFlightNumber(number);
  let codes: { iata?: string; icao?: string };
  let digits: string;
  if (inNumber !== null) {
    digits = inNumber.digits;
    codes = 'iata' in inNumber ? { iata: inNumber.iata } : { icao: inNumber.icao };
    if (carrierCode !== null) {
      const [system, code] = Object.entries(carrierCode)[0] as ['iata' | 'icao', string];
      const own = codes[system];
      if (own !== undefined && own !== code) {
        return {
          problem: {
            field: 'carrier',
            message: `is ${code} but transit.number is a flight of ${own}: they must name the same airline`,
          },
        };
      }
      codes[system] = code;
    }
  } else if (/^\d{1,4}$/.test(number)) {
    if (carrierCode === null) {
      return {
        problem: {
          field: 'carrier',
          message: `must be ${AIRLINE_CODE} when transit.number has none (carrier LX, number 318)`,
        },
      };
    }
    digits = number;
    codes = { ...carrierCode };
  } else {
    return {
      problem: {
        field: 'number',
        message:
          "must be a flight number of 1 to 4 digits, after the airline's IATA or ICAO code " +
          'unless transit.carrier gives it (LX318, or carrier LX and number 318)',
      },
    };
  }
  return {
    flight: {
      ...codes,
      digits,
      ...(airlineName !== undefined ? { airlineName } : {}),
      designator: `${codes.iata ?? codes.icao}${digits}`,
    },
  };
}

/** The flight of an air trip, or null when it is none (which the rules refuse). */
export function flightOf(transit: Pick<TransitDto, 'carrier' | 'number'>): Flight | null {
  const read = readFlight(transit);
  return 'flight' in read ? read.flight : null;
}

/** An airport's IATA code: three letters. */
export const isAirportCode = (code: string | undefined): boolean =>
  code !== undefined && /^[A-Za-z]{3}$/.test(code);

/** A time's zone, for a fact: the trip end's, when it has one. */
const zone = (timeZone: string | undefined): { timeZone?: string } =>
  timeZone === undefined ? {} : { timeZone };

/** A passenger's name as a holder gives it: "Maya Rivera". */
export const passengerText = (name: PassengerName): string =>
  `${name.givenName} ${name.familyName}`;

/**
 * A boarding pass: where from and where to (codes are what a boarding pass shows large, with
 * the place's name as their label), boarding, departure and arrival, the service (a flight's
 * code and number, `LX318`, labelled by the airline's name; a train's number labelled by the
 * carrier, else the carrier) and a holder's passenger. Its heading is the mode and the service.
 */
export const BOARDING_PASS: KindUnit<'boardingPass'> = {
  block: 'transit',
  face: { headerFields: 3, primaryFields: 2, secondaryFields: 4, auxiliaryFields: 5 },
  problem: (transit) =>
    timeZoneProblem(transit) ?? (transit.transitType === 'air' ? flightProblem(transit) : null),
  passenger: true,
  poster: null,
  times: (transit) => ({
    start: transit.departureTime,
    end: transit.arrivalTime,
    boarding: transit.boardingTime,
    takesHolderDay: false,
    lasts: false,
  }),
  facts: (transit, schedule, holder) => {
    const mode = TRANSIT_MODE[transit.transitType];
    const flight = transit.transitType === 'air' ? flightOf(transit) : null;
    const service: KindFact | undefined =
      flight !== null
        ? { key: 'transit.number', label: flight.airlineName ?? mode, value: flight.designator }
        : transit.number
          ? { key: 'transit.number', label: transit.carrier || mode, value: transit.number }
          : transit.carrier
            ? { key: 'transit.carrier', label: mode, value: transit.carrier }
            : undefined;
    const heading =
      flight !== null
        ? [mode, flight.airlineName, flight.designator]
        : [mode, transit.carrier, transit.number];
    return {
      heading: heading.filter((part) => part !== undefined && part !== '').join(' '),
      origin: { key: 'transit.origin', label: transit.origin.name, value: transit.origin.code },
      destination: {
        key: 'transit.destination',
        label: transit.destination.name,
        value: transit.destination.code,
      },
      ...(schedule.boarding !== undefined
        ? {
            boarding: {
              key: 'transit.boarding',
              label: 'Boards',
              value: schedule.boarding,
              time: 'dateTime',
              ...zone(transit.origin.timeZone),
            },
          }
        : {}),
      departure: {
        key: 'transit.departure',
        label: 'Departs',
        value: schedule.start ?? transit.departureTime,
        time: 'dateTime',
        ...zone(transit.origin.timeZone),
      },
      ...(schedule.end !== undefined
        ? {
            arrival: {
              key: 'transit.arrival',
              label: 'Arrives',
              value: schedule.end,
              time: 'dateTime',
              ...zone(transit.destination.timeZone),
            },
          }
        : {}),
      ...(service !== undefined ? { service } : {}),
      ...(holder.passengerName !== null
        ? {
            passenger: {
              key: 'transit.passenger',
              label: 'Passenger',
              value: passengerText(holder.passengerName),
            },
          }
        : {}),
    };
  },
};

/** A trip's ends name their time zones by IANA name (`Europe/Zurich`), which both wallets take. */
function timeZoneProblem(transit: TransitDto): BlockProblem | null {
  for (const end of ['origin', 'destination'] as const) {
    const zone = transit[end]?.timeZone;
    if (zone !== undefined && ianaTimeZone(zone) === null) {
      return {
        field: `${end}.timeZone`,
        message: 'must be an IANA time zone name, such as Europe/Zurich (not an offset)',
      };
    }
  }
  return null;
}

/**
 * A flight needs what both wallets show of one: the airline's code and the flight number, given
 * together (`LX318`) or apart (`carrier: "LX"`, `number: "318"`), and the airports' IATA codes
 * (WalletB's flight class refuses a flight without them).
 */
function flightProblem(transit: TransitDto): BlockProblem | null {
  const read = readFlight(transit);
  if ('problem' in read) return read.problem;
  for (const end of ['origin', 'destination'] as const) {
    if (!isAirportCode(transit[end]?.code)) {
      return {
        field: `${end}.code`,
        message: "must be the airport's three-letter IATA code for an air trip",
      };
    }
  }
  return null;
}
