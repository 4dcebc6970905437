import { ConflictError } from '@app/core';
import {
  assertCampaignMove,
  CAMPAIGN_STATUSES,
  canMoveCampaign,
  type CampaignStatus,
} from './campaign-status';

const ALLOWED: [CampaignStatus, CampaignStatus][] = [
  ['NotStarted', 'Prepping'],
  ['NotStarted', 'InProgress'],
  ['NotStarted', 'Canceled'],
  ['Prepping', 'InProgress'],
  ['Prepping', 'Canceled'],
  ['InProgress', 'Paused'],
  ['InProgress', 'Completed'],
  ['InProgress', 'Canceled'],
  ['Paused', 'InProgress'],
  ['Paused', 'Canceled'],
];

const isAllowed = (from: CampaignStatus, to: CampaignStatus) =>
  from === to || ALLOWED.some(([a, b]) => a === from && b === to);

describe('campaign status moves', () => {
  it.each(ALLOWED)('allows %s → %s', (from, to) => {
    expect(canMoveCampaign(from, to)).toBe(true);
    expect(() => assertCampaignMove(from, to)).not.toThrow();
  });

  it.each(CAMPAIGN_STATUSES.map((status) => [status]))('allows %s → itself', (status) => {
    expect(canMoveCampaign(status, status)).toBe(true);
  });

  it.each([
    ['NotStarted', 'Paused'],
    ['NotStarted', 'Completed'],
    ['Prepping', 'NotStarted'],
    ['Prepping', 'Paused'],
    ['Prepping', 'Completed'],
    ['InProgress', 'NotStarted'],
    ['InProgress', 'Prepping'],
    ['Paused', 'Completed'],
    ['Paused', 'Prepping'],
    ['Completed', 'InProgress'],
    ['Completed', 'Canceled'],
    ['Canceled', 'NotStarted'],
    ['Canceled', 'InProgress'],
  ] as [CampaignStatus, CampaignStatus][])('refuses %s → %s with a 409', (from, to) => {
    expect(canMoveCampaign(from, to)).toBe(false);
    let thrown: unknown;
    try {
      assertCampaignMove(from, to);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConflictError);
    expect((thrown as ConflictError).status).toBe(409);
    expect((thrown as ConflictError).context).toEqual({ status: from, requested: to });
  });

  it('matches the table of moves for every pair of statuses', () => {
    for (const from of CAMPAIGN_STATUSES) {
      for (const to of CAMPAIGN_STATUSES) {
        expect({ from, to, allowed: canMoveCampaign(from, to) }).toEqual({
          from,
          to,
          allowed: isAllowed(from, to),
        });
      }
    }
  });

  it('treats Completed and Canceled as final', () => {
    for (const to of CAMPAIGN_STATUSES.filter((s) => s !== 'Completed' && s !== 'Canceled')) {
      expect(canMoveCampaign('Completed', to)).toBe(false);
      expect(canMoveCampaign('Canceled', to)).toBe(false);
    }
  });
});
