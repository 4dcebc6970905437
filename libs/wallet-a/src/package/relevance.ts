import type { KindSchedule } from '@app/passes';

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
 */
export function relevance(schedule: KindSchedule): Relevance {
  const { relevantDate, relevantInterval } = schedule;
  if (relevantDate === undefined) return {};
  return {
    relevantDate,
    relevantDates: [relevantInterval ?? { date: relevantDate, relevantDate }],
  };
}
