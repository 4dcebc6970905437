import { IsIsoDateTime, NestedObject, NestedObjects, NotEmpty, Required } from '@app/core';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  IsIn,
  IsNumber,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import {
  MAX_UPCOMING_EVENTS,
  REDEMPTION_CHANNELS,
  TRANSIT_TYPES,
  type RedemptionChannel,
  type TransitType,
} from '@app/kinds';

/** JSON numbers only: `"12"` is refused (the global pipe does no implicit conversion). */
const FINITE = { allowNaN: false, allowInfinity: false };
const DATE_TIME_EXAMPLE = '2026-05-01T19:30:00+02:00';

/**
 * One event of a festival or a season ticket (`event.upcoming`, iOS 26's upcoming events): WalletA
 * lists it in `upcomingPassInformation`, WalletB and the holder page in the ticket's programme.
 */
export class UpcomingEventDto {
  @ApiProperty({
    example: 'day-1',
    description: "Unique among the ticket's upcoming events (WalletA's entry `identifier`).",
  })
  @Required()
  @IsString()
  @NotEmpty()
  @MaxLength(64)
  identifier!: string;

  @ApiProperty({ example: 'Opening night' })
  @Required()
  @IsString()
  @NotEmpty()
  @MaxLength(255)
  name!: string;

  @ApiProperty({ example: '2026-07-10T18:00:00+02:00' })
  @Required()
  @IsIsoDateTime()
  startTime!: string;

  @ApiPropertyOptional({
    example: '2026-07-10T23:30:00+02:00',
    description: 'Not before `startTime`.',
  })
  @IsOptional()
  @IsIsoDateTime()
  endTime?: string;

  @ApiPropertyOptional({
    example: 'Main Stage',
    description: "Where this event takes place; absent: the ticket's `venueName`.",
  })
  @IsOptional()
  @IsString()
  @NotEmpty()
  @MaxLength(255)
  venueName?: string;
}

/** An event ticket's event (`passType: eventTicket`). */
export class EventDto {
  @ApiProperty({ example: 'Summer Gala' })
  @Required()
  @IsString()
  @NotEmpty()
  @MaxLength(255)
  name!: string;

  @ApiProperty({ example: 'Riverside Hall' })
  @Required()
  @IsString()
  @NotEmpty()
  @MaxLength(255)
  venueName!: string;

  @ApiPropertyOptional({ example: '1 River Street, Springfield' })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  venueAddress?: string;

  @ApiPropertyOptional({
    example: 'Springfield',
    description:
      'City or region of the venue (WalletA `venueRegionName`; a poster event ticket needs it).',
  })
  @IsOptional()
  @IsString()
  @NotEmpty()
  @MaxLength(255)
  venueRegion?: string;

  @ApiPropertyOptional({
    example: 'Main Hall',
    description:
      'Room, hall or stage of the event (WalletA `venueRoom`; a poster event ticket needs it).',
  })
  @IsOptional()
  @IsString()
  @NotEmpty()
  @MaxLength(255)
  venueRoom?: string;

  @ApiPropertyOptional({ example: 48.8566, minimum: -90, maximum: 90 })
  @IsOptional()
  @IsNumber(FINITE)
  @Min(-90)
  @Max(90)
  latitude?: number;

  @ApiPropertyOptional({ example: 2.3522, minimum: -180, maximum: 180 })
  @IsOptional()
  @IsNumber(FINITE)
  @Min(-180)
  @Max(180)
  longitude?: number;

  @ApiProperty({ example: DATE_TIME_EXAMPLE })
  @Required()
  @IsIsoDateTime()
  startTime!: string;

  @ApiPropertyOptional({ example: '2026-05-01T23:00:00+02:00' })
  @IsOptional()
  @IsIsoDateTime()
  endTime?: string;

  @ApiPropertyOptional({ example: '2026-05-01T18:30:00+02:00' })
  @IsOptional()
  @IsIsoDateTime()
  doorsOpen?: string;

  @ApiPropertyOptional({
    type: [UpcomingEventDto],
    maxItems: MAX_UPCOMING_EVENTS,
    description:
      'The events of a festival or a season ticket, in order (iOS 26 upcoming events): WalletA ' +
      "`upcomingPassInformation` and one relevant date each; WalletB's date is the next one's. " +
      'Identifiers are unique; an `endTime` is not before its `startTime`.',
  })
  @IsOptional()
  @ArrayMaxSize(MAX_UPCOMING_EVENTS, {
    message: `must have at most ${MAX_UPCOMING_EVENTS} events`,
  })
  @NestedObjects(() => UpcomingEventDto)
  upcoming?: UpcomingEventDto[];
}

/** A coupon's offer (`passType: coupon`). */
export class OfferDto {
  @ApiProperty({ example: '20 % off your next visit' })
  @Required()
  @IsString()
  @NotEmpty()
  @MaxLength(255)
  title!: string;

  @ApiProperty({ example: 'Brand Ltd' })
  @Required()
  @IsString()
  @NotEmpty()
  @MaxLength(255)
  provider!: string;

  @ApiProperty({ enum: REDEMPTION_CHANNELS, example: 'both' })
  @Required()
  @IsIn(REDEMPTION_CHANNELS)
  redemptionChannel!: RedemptionChannel;

  @ApiPropertyOptional({ example: 'One per customer. Not valid with other offers.' })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  finePrint?: string;
}

/** One end of a trip. */
export class TransitStopDto {
  @ApiProperty({
    example: 'SFO',
    description: "Station or stop code; for air, the airport's three-letter IATA code.",
  })
  @Required()
  @IsString()
  @NotEmpty()
  @MaxLength(16)
  code!: string;

  @ApiProperty({
    example: 'San Francisco',
    description:
      'The place: for air, the city (WalletA `departureCityName`/`destinationCityName`).',
  })
  @Required()
  @IsString()
  @NotEmpty()
  @MaxLength(255)
  name!: string;

  @ApiPropertyOptional({
    example: 'America/Los_Angeles',
    maxLength: 64,
    description:
      "The place's IANA time zone (a name such as Europe/Zurich, not an offset; a 400 names " +
      "the field otherwise). With `boardingTime` and both ends' zones, a flight holder with a " +
      '`passengerName` gets the semantic boarding pass (iOS 26); WalletB gets its times at ' +
      "this zone's clock.",
  })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  timeZone?: string;
}

/** A boarding pass's trip (`passType: boardingPass`). */
export class TransitDto {
  @ApiProperty({ enum: TRANSIT_TYPES, example: 'air' })
  @Required()
  @IsIn(TRANSIT_TYPES)
  transitType!: TransitType;

  @ApiPropertyOptional({
    example: 'LX',
    description:
      "For air, the airline's IATA code (2 letters or digits: LX, U2) or ICAO code (3 " +
      'letters: SWR): `carrier: "LX", number: "318"` is the flight LX318; a code contradicting ' +
      "the number's is a 400. A longer text is the airline's name, beside a number that " +
      'carries the code. Otherwise the operator.',
  })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  carrier?: string;

  @ApiPropertyOptional({
    example: '318',
    description:
      'Flight, train or route number. Required for air: the flight number (1–4 digits) after ' +
      "the airline's IATA or ICAO code (LX318), or alone when `carrier` is the code.",
  })
  @IsOptional()
  @IsString()
  @MaxLength(32)
  number?: string;

  @ApiProperty({ type: TransitStopDto })
  @Required()
  @NestedObject(() => TransitStopDto)
  origin!: TransitStopDto;

  @ApiProperty({ type: TransitStopDto })
  @Required()
  @NestedObject(() => TransitStopDto)
  destination!: TransitStopDto;

  @ApiProperty({ example: '2026-05-01T08:00:00+01:00' })
  @Required()
  @IsIsoDateTime()
  departureTime!: string;

  @ApiPropertyOptional({ example: '2026-05-01T10:10:00-07:00' })
  @IsOptional()
  @IsIsoDateTime()
  arrivalTime?: string;

  @ApiPropertyOptional({
    example: '2026-05-01T07:30:00+01:00',
    description:
      'When boarding starts (WalletA `originalBoardingDate`, WalletB `localBoardingDateTime`).',
  })
  @IsOptional()
  @IsIsoDateTime()
  boardingTime?: string;
}
