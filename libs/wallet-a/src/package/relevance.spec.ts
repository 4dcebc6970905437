import { passKindOf } from '@app/kinds';
import { type PassMetadataDto } from '@app/passes';
import { WALLET_A_KINDS } from '../../../../test/support/wallet-a-kinds';
import { relevance as relevanceOf } from './relevance';

/** The relevance of a pass's schedule, or of a holder's copy on its own day. */
const relevance = ({ metadata, holderDate }: { metadata: PassMetadataDto; holderDate?: string }) =>
  relevanceOf(passKindOf(metadata, { relevantDate: holderDate }).schedule);

const event = WALLET_A_KINDS.eventTicket.metadata.event;
const ticket = (changes: Partial<typeof event> = {}, relevantDate?: string): PassMetadataDto => ({
  ...WALLET_A_KINDS.eventTicket.metadata,
  event: { ...event, ...changes },
  ...(relevantDate ? { relevantDate } : {}),
});

describe('relevant dates', () => {
  it('leaves a pass without a date or a kind that begins undated', () => {
    const storeCard: PassMetadataDto = WALLET_A_KINDS.storeCard.metadata;
    expect(relevance({ metadata: storeCard })).toEqual({});
    expect(relevance({ metadata: WALLET_A_KINDS.coupon.metadata })).toEqual({});
  });

  it("writes the pass's own date to both keys, as a date Wallet makes an interval of", () => {
    const metadata = { ...WALLET_A_KINDS.generic.metadata, relevantDate: '2026-05-01T10:00Z' };
    expect(relevance({ metadata })).toEqual({
      relevantDate: '2026-05-01T10:00Z',
      relevantDates: [{ date: '2026-05-01T10:00Z', relevantDate: '2026-05-01T10:00Z' }],
    });
  });

  it('keeps an event on the lock screen from its doors to its end', () => {
    expect(relevance({ metadata: ticket() })).toEqual({
      relevantDate: '2026-07-01T19:30:00+02:00',
      relevantDates: [
        { startDate: '2026-07-01T18:30:00+02:00', endDate: '2026-07-01T23:00:00+02:00' },
      ],
    });
    // The pass's own relevant date starts the interval; without doors, the event's start.
    expect(relevance({ metadata: ticket({}, '2026-07-01T18:00:00+02:00') })).toEqual({
      relevantDate: '2026-07-01T18:00:00+02:00',
      relevantDates: [
        { startDate: '2026-07-01T18:00:00+02:00', endDate: '2026-07-01T23:00:00+02:00' },
      ],
    });
    expect(relevance({ metadata: ticket({ doorsOpen: undefined }) }).relevantDates).toEqual([
      { startDate: '2026-07-01T19:30:00+02:00', endDate: '2026-07-01T23:00:00+02:00' },
    ]);
  });

  it('writes the start of an event longer than a day, which Wallet would drop as an interval', () => {
    const festival = ticket({ endTime: '2026-07-03T23:00:00+02:00' });
    expect(relevance({ metadata: festival }).relevantDates).toEqual([
      { date: '2026-07-01T19:30:00+02:00', relevantDate: '2026-07-01T19:30:00+02:00' },
    ]);
    const noEnd = ticket({ endTime: undefined });
    expect(relevance({ metadata: noEnd }).relevantDates).toEqual([
      { date: '2026-07-01T19:30:00+02:00', relevantDate: '2026-07-01T19:30:00+02:00' },
    ]);
  });

  it("makes a holder's own day the ticket's date, leaving the pass's doors and end out", () => {
    expect(relevance({ metadata: ticket(), holderDate: '2026-07-02T19:30:00+02:00' })).toEqual({
      relevantDate: '2026-07-02T19:30:00+02:00',
      relevantDates: [
        { date: '2026-07-02T19:30:00+02:00', relevantDate: '2026-07-02T19:30:00+02:00' },
      ],
    });
  });

  it('dates a boarding pass at its departure unless the pass gives its own date', () => {
    expect(relevance({ metadata: WALLET_A_KINDS.flight.metadata })).toEqual({
      relevantDate: '2026-05-01T08:00:00+01:00',
      relevantDates: [
        { date: '2026-05-01T08:00:00+01:00', relevantDate: '2026-05-01T08:00:00+01:00' },
      ],
    });
    expect(relevance({ metadata: WALLET_A_KINDS.train.metadata }).relevantDate).toBe(
      '2026-05-01T08:30:00+02:00',
    );
  });

  it("writes one entry per event of a festival or a season ticket, none of a holder's day", () => {
    const metadata = WALLET_A_KINDS.festival.metadata;
    expect(relevance({ metadata })).toEqual({
      relevantDate: '2026-07-10T16:00:00+02:00',
      relevantDates: [
        { startDate: '2026-07-10T18:00:00+02:00', endDate: '2026-07-10T23:30:00+02:00' },
        { startDate: '2026-07-11T14:00:00+02:00', endDate: '2026-07-11T18:00:00+02:00' },
        { date: '2026-07-12T20:00:00+02:00', relevantDate: '2026-07-12T20:00:00+02:00' },
      ],
    });
    // The pass's own relevant date stays the one date of devices before iOS 18.
    expect(
      relevance({ metadata: { ...metadata, relevantDate: '2026-07-09T09:00:00+02:00' } }),
    ).toMatchObject({ relevantDate: '2026-07-09T09:00:00+02:00' });
    expect(relevance({ metadata, holderDate: '2026-07-11T14:00:00+02:00' })).toEqual({
      relevantDate: '2026-07-11T14:00:00+02:00',
      relevantDates: [
        { date: '2026-07-11T14:00:00+02:00', relevantDate: '2026-07-11T14:00:00+02:00' },
      ],
    });
  });
});
