import type { DateStyle, RedemptionChannel, TransitType } from './kind-names';

/*
 * The shapes of a pass's kind blocks and face fields as the kind rules read them. The request
 * classes that validate and document them (`@app/passes`' DTOs) satisfy these structurally, so
 * the rules stay plain TypeScript without the validation and OpenAPI libraries. A field the
 * rules start to read is added here and is then checked against those classes wherever the
 * passes hand a DTO to a rule.
 */

export interface UpcomingEventDto {
  identifier: string;
  name: string;
  startTime: string;
  endTime?: string;
  venueName?: string;
}

export interface EventDto {
  name: string;
  venueName: string;
  venueAddress?: string;
  venueRegion?: string;
  venueRoom?: string;
  latitude?: number;
  longitude?: number;
  startTime: string;
  endTime?: string;
  doorsOpen?: string;
  upcoming?: UpcomingEventDto[];
}

export interface OfferDto {
  title: string;
  provider: string;
  redemptionChannel: RedemptionChannel;
  finePrint?: string;
}

export interface TransitStopDto {
  code: string;
  name: string;
  timeZone?: string;
}

export interface TransitDto {
  transitType: TransitType;
  carrier?: string;
  number?: string;
  origin: TransitStopDto;
  destination: TransitStopDto;
  departureTime: string;
  arrivalTime?: string;
  boardingTime?: string;
}

export interface FieldDto {
  key: string;
  label?: string;
  value: string;
  changeMessage?: string | null;
  dateStyle?: DateStyle;
  timeStyle?: DateStyle;
}

/** The face fields of a pass's metadata. */
export interface PassMetadataDto {
  topField?: FieldDto;
  headerFields?: FieldDto[];
  primaryFields?: FieldDto[];
  secondaryFields?: FieldDto[];
  auxiliaryFields?: FieldDto[];
}
