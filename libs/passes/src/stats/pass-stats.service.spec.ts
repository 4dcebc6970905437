import { passOfEvent, type RecordedEvent, type ServiceEvent } from '@app/core';
import { countedAs } from './pass-stats.service';

const at = (event: ServiceEvent): RecordedEvent => ({
  ...event,
  workspaceId: 'w',
  time: new Date('2026-01-31T12:00:00Z'),
});
const install = { passId: 'p', holderId: null } as const;

describe('countedAs', () => {
  it.each([
    [
      at({ type: 'pass.installed', data: { ...install, platform: 'WalletA' } }),
      { appleInstalls: 1 },
    ],
    [
      at({ type: 'pass.installed', data: { ...install, platform: 'WalletB' } }),
      { googleInstalls: 1 },
    ],
    [
      at({ type: 'pass.uninstalled', data: { ...install, platform: 'WalletA' } }),
      { appleUninstalls: 1 },
    ],
    [
      at({ type: 'pass.uninstalled', data: { ...install, platform: 'WalletB' } }),
      { googleUninstalls: 1 },
    ],
    [at({ type: 'link.clicked', data: { passId: 'p' } }), { linkClicks: 1 }],
    [
      at({
        type: 'notification.finished',
        passId: 'p',
        data: { passSerialNumber: 'p', totalNotificationSentCount: 165 },
      }),
      { notificationsSent: 165 },
    ],
  ])('counts %j as %j', (event, counted) => {
    expect(countedAs(event)).toEqual(counted);
  });

  it('counts nothing for a notification that sent nothing, nor for holder changes', () => {
    for (const event of [
      at({ type: 'notification.finished', passId: 'p', data: { totalNotificationSentCount: 0 } }),
      at({ type: 'notification.finished', passId: 'p', data: {} }),
      at({ type: 'holder.created', data: { passId: 'p', id: 'h' } }),
    ]) {
      expect(countedAs(event)).toBeNull();
    }
  });

  it('finds the pass beside the Notification, whose data is only what the API shows', () => {
    expect(
      passOfEvent({ type: 'notification.finished', passId: 'p', data: { passSerialNumber: 'p' } }),
    ).toBe('p');
    expect(passOfEvent({ type: 'link.clicked', data: { passId: 'q' } })).toBe('q');
  });
});
