import {
  factText,
  flightOf,
  formatSpan,
  ianaTimeZone,
  nextEvent,
  passengerText,
  roleReader,
  wallClockIn,
  type KindFact,
  type PassKind,
  type RedemptionChannel,
  type TransitType,
  type UpcomingEventFacts,
} from '@app/kinds';
import { type Holder, type Pass, type PassMetadataDto } from '@app/passes';
import { localized, translated, translationsOf, walletImage } from './resource-values';
import type {
  ClassType,
  EventSeat,
  FlightCarrier,
  GenericClass,
  GoogleRedemptionChannel,
  GoogleTransitType,
  LocalizedString,
  LoyaltyObject,
  ReviewStatus,
  TextModuleData,
  TicketLeg,
  WalletClass,
  WalletObjectContent,
} from './wallet-objects.types';

/**
 * What each class type carries of the pass beyond what every type shares (fields, links, card
 * template and callback on the class; state, barcode, hero image, validity and a holder's
 * values on the object): each class and object is the type Google's REST API defines for it,
 * with its own required fields filled.
 */

/** Signed URLs of the images a pass's resources show. */
export interface ObjectImages {
  logoUrl: string | null;
  heroUrl: string | null;
}

/** What every object type shares. */
export type SharedObjectContent = Omit<LoyaltyObject, 'id' | 'classId' | 'messages'>;

const REVIEW_STATUS: ReviewStatus = 'UNDER_REVIEW';

const REDEMPTION_CHANNELS: Record<RedemptionChannel, GoogleRedemptionChannel> = {
  instore: 'INSTORE',
  online: 'ONLINE',
  both: 'BOTH',
};

/** `air` is a flight class; it is here only so every transit type has an answer. */
const TRANSIT_TYPES: Record<TransitType, GoogleTransitType> = {
  air: 'OTHER',
  train: 'RAIL',
  bus: 'BUS',
  boat: 'FERRY',
  generic: 'OTHER',
};

/** The kind's block; the rules of pass-kinds.ts make every Published pass of the kind have it. */
function block<K extends 'event' | 'offer' | 'transit'>(
  pass: Pass,
  key: K,
): NonNullable<PassMetadataDto[K]> {
  const value = pass.passMetadata[key];
  if (value === undefined || value === null) {
    throw new Error(`Pass ${pass.id} has no ${key}, which its WalletB class type needs`);
  }
  return value;
}

/**
 * Google wants a flight's times as the airport's local date-time without an offset (it refuses
 * one and works out the zone from the airport). With the airport's IANA `timeZone`, the instant
 * at that zone's clock, whatever offset the time was written with; without it, the clock time
 * the pass gives, its offset left off, seconds added when missing and fractions cut to
 * milliseconds.
 */
export function localDateTime(isoDateTime: string, timeZone?: string): string {
  const zone = timeZone === undefined ? null : ianaTimeZone(timeZone);
  if (zone !== null) return wallClockIn(isoDateTime, zone);
  const match = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?/.exec(isoDateTime);
  if (match === null) throw new Error(`Not an ISO 8601 date-time: ${isoDateTime}`);
  const [, minutes, seconds = '00', fraction] = match;
  return `${minutes}:${seconds}${fraction !== undefined ? `.${fraction.slice(0, 3)}` : ''}`;
}

function optional<K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, V>);
}

const localizedOrUndefined = (value: string | undefined): LocalizedString | undefined =>
  value === undefined || value === '' ? undefined : localized(value);

/**
 * The class of `type`: the shared parts with the properties of the type filled from the pass,
 * its times from the pass's schedule (`kind`: the shared pass's, which every holder's object
 * shows). A festival's or a season ticket's date is its next event's at `now` (`nextEvent`).
 */
export function kindClass(
  type: ClassType,
  shared: GenericClass,
  pass: Pass,
  kind: PassKind,
  images: ObjectImages,
  now: Date,
): WalletClass {
  const { schedule } = kind;
  const metadata = pass.passMetadata;
  const logo =
    images.logoUrl !== null
      ? walletImage(images.logoUrl, `${metadata.organizationName} logo`)
      : undefined;
  // Every type but generic names its issuer, carries a review status, and takes the colour on
  // the class (loyalty and offer objects have no colour of their own).
  const issued = {
    ...shared,
    issuerName: metadata.organizationName,
    ...optional(
      'localizedIssuerName',
      translated(pass, metadata.organizationName, (texts) => texts.organizationName),
    ),
    reviewStatus: REVIEW_STATUS,
    ...optional('hexBackgroundColor', metadata.backgroundColor),
  };
  switch (type) {
    case 'generic':
      return shared;
    case 'loyalty':
      return {
        ...issued,
        programName: pass.passName,
        ...optional(
          'localizedProgramName',
          translated(pass, pass.passName, (texts) => texts.passName),
        ),
        ...optional('programLogo', logo),
      };
    case 'offer': {
      const offer = block(pass, 'offer');
      return {
        ...issued,
        title: offer.title,
        provider: offer.provider,
        redemptionChannel: REDEMPTION_CHANNELS[offer.redemptionChannel],
        ...optional('finePrint', offer.finePrint || undefined),
        ...optional('titleImage', logo),
      };
    }
    case 'eventTicket': {
      const event = block(pass, 'event');
      // Google wants a venue's name and address together; without an address the venue's name
      // is a text module of the class, so the ticket still says where.
      const address = event.venueAddress || undefined;
      const upcoming = kind.type === 'eventTicket' ? (kind.facts?.upcoming ?? []) : [];
      const modules = [
        ...(address === undefined ? [{ id: 'event.venueName', body: event.venueName }] : []),
        ...upcoming.map(upcomingModule),
      ];
      // A festival or a season ticket is dated by its next event; its doors are the pass's.
      const next = nextEvent(schedule, now);
      return {
        ...issued,
        ...(address !== undefined
          ? { venue: { name: localized(event.venueName), address: localized(address) } }
          : {}),
        ...(modules.length > 0
          ? { textModulesData: [...(shared.textModulesData ?? []), ...modules] }
          : {}),
        eventName: localized(event.name),
        dateTime:
          next !== undefined
            ? { start: next.start, ...optional('end', next.end) }
            : {
                start: schedule.start ?? event.startTime,
                ...optional('end', schedule.end),
                ...optional('doorsOpen', schedule.doorsOpen),
              },
        ...optional('logo', logo),
      };
    }
    case 'flight': {
      const transit = block(pass, 'transit');
      const flight = flightOf(transit);
      if (flight === null) throw new Error(`Pass ${pass.id} has no flight number Google can read`);
      // Google takes exactly one of the two codes: the IATA one when the flight has both.
      const carrier: FlightCarrier = {
        ...(flight.iata !== undefined
          ? { carrierIataCode: flight.iata }
          : optional('carrierIcaoCode', flight.icao)),
        ...optional('airlineName', localizedOrUndefined(flight.airlineName)),
      };
      const departureZone = transit.origin.timeZone;
      const arrivalZone = transit.destination.timeZone;
      return {
        ...issued,
        flightHeader: { carrier, flightNumber: flight.digits },
        origin: {
          airportIataCode: transit.origin.code.toUpperCase(),
          airportNameOverride: localized(transit.origin.name),
        },
        destination: {
          airportIataCode: transit.destination.code.toUpperCase(),
          airportNameOverride: localized(transit.destination.name),
        },
        ...optional(
          'localBoardingDateTime',
          schedule.boarding !== undefined
            ? localDateTime(schedule.boarding, departureZone)
            : undefined,
        ),
        localScheduledDepartureDateTime: localDateTime(
          schedule.start ?? transit.departureTime,
          departureZone,
        ),
        ...optional(
          'localScheduledArrivalDateTime',
          schedule.end !== undefined ? localDateTime(schedule.end, arrivalZone) : undefined,
        ),
      };
    }
    case 'transit': {
      const transit = block(pass, 'transit');
      return {
        ...issued,
        transitType: TRANSIT_TYPES[transit.transitType],
        ...optional('logo', logo),
        ...optional('transitOperatorName', localizedOrUndefined(transit.carrier)),
      };
    }
  }
}

/**
 * The object content of `type`: the shared parts with the properties of the type, filled from
 * the holder's values of the fields that name them (`FIELD_ROLES`), else the pass's, and its
 * times from the schedule of `kind` (the shared pass's, or the holder's copy's).
 */
export function kindObject(
  type: ClassType,
  shared: SharedObjectContent,
  pass: Pass,
  kind: PassKind,
  images: ObjectImages,
  holder: Holder | null,
): WalletObjectContent {
  const metadata = pass.passMetadata;
  const value = roleReader(metadata, holder?.fieldValues ?? {});
  const { schedule } = kind;
  switch (type) {
    case 'generic':
      return {
        ...shared,
        cardTitle: localized(
          metadata.organizationName,
          translationsOf(pass, (texts) => texts.organizationName),
        ),
        header: localized(
          pass.passName,
          translationsOf(pass, (texts) => texts.passName),
        ),
        ...optional(
          'logo',
          images.logoUrl !== null
            ? walletImage(images.logoUrl, `${metadata.organizationName} logo`)
            : undefined,
        ),
        ...optional('hexBackgroundColor', metadata.backgroundColor),
      };
    case 'loyalty':
    case 'offer':
      return shared;
    case 'eventTicket': {
      const seatInfo: EventSeat = {
        ...optional('seat', localizedOrUndefined(value('seat'))),
        ...optional('row', localizedOrUndefined(value('row'))),
        ...optional('section', localizedOrUndefined(value('section'))),
        ...optional('gate', localizedOrUndefined(value('gate'))),
      };
      // The class says when the pass's event is, for every holder; a holder's own day is said
      // on its object, as the date row of the holder page.
      const ownDay =
        kind.type === 'eventTicket' && kind.facts !== null && schedule.ownDay !== null
          ? textModule(kind.facts.date)
          : undefined;
      return {
        ...shared,
        ...(Object.keys(seatInfo).length > 0 ? { seatInfo } : {}),
        ...optional('ticketHolderName', value('person')),
        ...(ownDay !== undefined
          ? { textModulesData: [...(shared.textModulesData ?? []), ownDay] }
          : {}),
      };
    }
    case 'flight': {
      const seatNumber = value('seat');
      const passenger = passengerOf(kind) ?? value('person');
      const boardingGroup = value('boardingGroup');
      return {
        ...shared,
        // Google requires a passenger: the holder's own, else its passenger field's; a shared
        // boarding pass's is everyone holding it, so it goes by the pass's name.
        passengerName: passenger ?? pass.passName,
        reservationInfo: { ...optional('confirmationCode', value('confirmationCode')) },
        ...(seatNumber !== undefined || boardingGroup !== undefined
          ? {
              boardingAndSeatingInfo: {
                ...optional('seatNumber', seatNumber),
                ...optional('boardingGroup', boardingGroup),
              },
            }
          : {}),
      };
    }
    case 'transit': {
      const transit = block(pass, 'transit');
      const seat = value('seat');
      const coach = value('coach');
      const ticketLeg: TicketLeg = {
        originStationCode: transit.origin.code,
        originName: localized(transit.origin.name),
        destinationStationCode: transit.destination.code,
        destinationName: localized(transit.destination.name),
        departureDateTime: schedule.start ?? transit.departureTime,
        ...optional('arrivalDateTime', schedule.end),
        ...optional('carriage', transit.number || undefined),
        ...optional('platform', value('platform')),
        ...(seat !== undefined || coach !== undefined
          ? { ticketSeat: { ...optional('seat', seat), ...optional('coach', coach) } }
          : {}),
      };
      return {
        ...shared,
        tripType: 'ONE_WAY',
        ticketLeg,
        ...optional('passengerNames', passengerOf(kind) ?? value('person')),
      };
    }
  }
}

/**
 * One of a festival's or a season ticket's events as a text module of the class, in the pass's
 * order: its name as the header, when and where as the body (at the venue's clock).
 */
function upcomingModule(event: UpcomingEventFacts, index: number): TextModuleData {
  return {
    id: `event.upcoming.${index}`,
    header: event.name,
    body: `${formatSpan(event.date.value, event.end?.value)}\n${event.venue.value}`,
  };
}

/** A holder's passenger, as Google's `passengerName` takes it: one text. */
function passengerOf(kind: PassKind): string | undefined {
  return kind.passengerName === null ? undefined : passengerText(kind.passengerName);
}

/** A kind's fact as a text module: a time as its own offset's clock shows it. */
function textModule(fact: KindFact): TextModuleData {
  return { id: fact.key, header: fact.label, body: factText(fact) };
}
