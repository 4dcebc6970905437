import type { AppConfig } from '@app/core';
import type { AudiencesService } from '@app/audiences';
import type { Pass } from '@app/passes';
import type { KeepLease, WalletBSendResult, WalletBMessagesService } from '@app/wallet-b';
import type { DataSource, EntityManager } from 'typeorm';
import type { Notification } from '../entities/notification.entity';
import { SNAPSHOT_PAGE, WalletBNotificationChannel } from './wallet-b.channel';

const ids = (n: number) => Array.from({ length: n }, (_, i) => `h${String(i).padStart(5, '0')}`);

/**
 * The channel over an audience's snapshot of `members`, with WalletB answering each page with
 * `answer(page)`; records the pages it was given.
 */
function channelOver(
  members: string[],
  answer: (
    page: readonly string[],
    keep: KeepLease,
  ) => WalletBSendResult | Promise<WalletBSendResult> = (page) => ({
    status: 'sent',
    recipients: page.length,
    notified: true,
  }),
) {
  const pages: string[][] = [];
  const audiences = {
    snapshotPage: (_manager: EntityManager, _id: string, after: string | null, limit: number) =>
      Promise.resolve(members.filter((id) => after === null || id > after).slice(0, limit)),
  } as unknown as AudiencesService;
  const walletB = {
    sendHolderMessages: (
      _pass: Pass,
      page: readonly string[],
      _message: unknown,
      keep: KeepLease,
    ) => {
      pages.push([...page]);
      return Promise.resolve(answer(page, keep));
    },
    sendMessage: () => Promise.reject(new Error('not to the class')),
  } as unknown as WalletBMessagesService;
  const dataSource = { manager: {} } as unknown as DataSource;
  const config = { worker: { leaseMs: 60_000 } } as AppConfig;
  const channel = new WalletBNotificationChannel(dataSource, walletB, audiences, config);
  const checkpoints: Partial<Notification>[] = [];
  const deliver = (given: Partial<Notification> = {}) =>
    channel.deliver(
      {
        id: 'n1',
        googleOutcome: null,
        googleNotificationSentCount: 0,
        notificationMessage: 'Hi',
        ...given,
      } as Notification,
      { notificationHeader: 'News', passName: 'Card' } as Pass,
      { kind: 'snapshot', notificationId: 'n1', size: null },
      (changes: Partial<Notification>) => {
        checkpoints.push(changes);
        return Promise.resolve(true);
      },
    );
  return { pages, checkpoints, deliver };
}

describe('WalletBNotificationChannel to an audience snapshot', () => {
  it('sends page by page and adds up what Google took, checkpointed once', async () => {
    const members = ids(SNAPSHOT_PAGE * 2 + 5);
    const { pages, checkpoints, deliver } = channelOver(members);
    expect(await deliver()).toEqual({ outcome: 'success', sent: members.length, reason: null });
    expect(pages.map((page) => page.length)).toEqual([SNAPSHOT_PAGE, SNAPSHOT_PAGE, 5]);
    expect(pages.flat()).toEqual(members);
    expect(checkpoints).toEqual([
      { googleOutcome: 'success', googleNotificationSentCount: members.length },
    ]);
  });

  it('asks once for an empty snapshot, so that WalletB unconfigured still says why', async () => {
    const { pages, deliver } = channelOver([], () => ({
      status: 'failed',
      reason: 'WalletB is not configured',
    }));
    expect(await deliver()).toEqual({
      outcome: 'failed',
      sent: 0,
      reason: 'WalletB is not configured',
    });
    expect(pages).toEqual([[]]);
  });

  it('succeeds when some page got through, fails when Google refused every one', async () => {
    const members = ids(SNAPSHOT_PAGE + 1);
    const partly = channelOver(members, (page) =>
      page.length === 1
        ? { status: 'failed', reason: 'refused' }
        : { status: 'sent', recipients: 10, notified: false },
    );
    expect(await partly.deliver()).toEqual({ outcome: 'success', sent: 10, reason: null });
    const refused = channelOver(members, () => ({ status: 'failed', reason: 'refused' }));
    expect(await refused.deliver()).toEqual({ outcome: 'failed', sent: 0, reason: 'refused' });
    expect(refused.pages).toHaveLength(2);
  });

  it('extends the lease before a call to Google only when the call could outlast it', async () => {
    const kept: boolean[] = [];
    const { checkpoints, deliver } = channelOver(ids(3), async (page, keep) => {
      // Its end is unknown at first; then 60 s are left, enough for a 20 s call but not 70 s.
      kept.push(await keep(20_000), await keep(20_000), await keep(70_000));
      return { status: 'sent', recipients: page.length, notified: true };
    });
    expect(await deliver()).toEqual({ outcome: 'success', sent: 3, reason: null });
    expect(kept).toEqual([true, true, true]);
    expect(checkpoints).toEqual([
      {},
      {},
      { googleOutcome: 'success', googleNotificationSentCount: 3 },
    ]);
  });

  it('reports a checkpointed answer again (a resumed delivery) instead of sending twice', async () => {
    const { pages, checkpoints, deliver } = channelOver(ids(3));
    expect(await deliver({ googleOutcome: 'success', googleNotificationSentCount: 3 })).toEqual({
      outcome: 'success',
      sent: 3,
      reason: null,
    });
    expect(pages).toEqual([]);
    expect(checkpoints).toEqual([]);
  });
});
