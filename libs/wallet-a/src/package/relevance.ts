import type { EventRelevance, KindSchedule } from '@app/kinds';

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

/**
 * The schedule's relevant date (the holder's own, else the pass's, else when its kind begins),
 * and the same said to iOS 18 and later: the schedule's interval (an event within a day, from
 * the pass's relevant date, else its doors, else its start, to its end), else the date alone.
 * A festival or a season ticket is relevant at each of its events instead: one
 * entry per event, as the schedule has it.
 */
export function relevance(schedule: KindSchedule): Relevance {
  const { relevantDate, relevantInterval, events } = schedule;
  if (relevantDate === undefined) return {};
  return {
    relevantDate,
    relevantDates:
      events !== undefined
        ? events.map((event) => entry(event.relevance))
        : [relevantInterval ?? { date: relevantDate, relevantDate }],
  };
}

function entry(relevance: EventRelevance): RelevantDatesEntry {
  return 'date' in relevance
    ? { date: relevance.date, relevantDate: relevance.date }
    : { startDate: relevance.startDate, endDate: relevance.endDate };
}
