import { passTypeOf, type PassMetadataDto } from '@app/passes';

/**
 * One entry of pass.json's `relevantDates` (iOS 18): an interval, or a date from which Wallet
 * works out an interval itself. Apple documents the date as `date`; iOS 18's first
 * documentation named it `relevantDate`, so a date entry carries both (passkit-generator does
 * the same, and reads an entry without `relevantDate` as invalid).
 */
export type RelevantDatesEntry =
  { startDate: string; endDate: string } | { date: string; relevantDate: string };

/** When the lock screen offers the pass: pass.json's `relevantDate` and `relevantDates`. */
export interface Relevance {
  relevantDate?: string;
  relevantDates?: RelevantDatesEntry[];
}

export interface RelevanceSource {
  metadata: Pick<PassMetadataDto, 'passType' | 'event' | 'transit' | 'relevantDate'>;
  /** A holder's own `relevantDate` (its day), which wins over the pass's. */
  holderDate?: string | null;
}

/** Wallet drops a relevancy interval longer than a day (PassKit logs "Dropping relevancy interval"). */
const MAX_INTERVAL_MS = 24 * 60 * 60 * 1000;

/**
 * The pass's relevant date: the holder's own, else the pass's, else when its kind begins (the
 * event's start, the departure). `relevantDates` says the same to iOS 18 and later; an event
 * that ends the same day is an interval from the pass's relevant date (else its doors, else its
 * start) to its end, so the ticket stays on the lock screen while the event lasts.
 */
export function relevance({ metadata, holderDate }: RelevanceSource): Relevance {
  const passType = passTypeOf(metadata);
  const kindStart =
    passType === 'eventTicket'
      ? metadata.event?.startTime
      : passType === 'boardingPass'
        ? metadata.transit?.departureTime
        : undefined;
  const relevantDate = holderDate ?? metadata.relevantDate ?? kindStart;
  if (relevantDate === undefined) return {};
  const event = passType === 'eventTicket' ? metadata.event : undefined;
  if (event?.endTime && !holderDate) {
    const startDate = metadata.relevantDate ?? event.doorsOpen ?? event.startTime;
    const length = Date.parse(event.endTime) - Date.parse(startDate);
    if (length > 0 && length <= MAX_INTERVAL_MS) {
      return { relevantDate, relevantDates: [{ startDate, endDate: event.endTime }] };
    }
  }
  return { relevantDate, relevantDates: [{ date: relevantDate, relevantDate }] };
}
