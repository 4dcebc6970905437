import { ConflictError } from '@app/core';

export const CAMPAIGN_STATUSES = [
  'NotStarted',
  'Prepping',
  'InProgress',
  'Paused',
  'Completed',
  'Canceled',
] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];

/**
 * The status moves a campaign may make (docs/decisions.md, "Creating and moving status").
 * `Completed` and `Canceled` are final. Staying in the same status is not a move and is always
 * allowed.
 */
export const CAMPAIGN_STATUS_MOVES: Readonly<Record<CampaignStatus, readonly CampaignStatus[]>> = {
  NotStarted: ['Prepping', 'InProgress', 'Canceled'],
  Prepping: ['InProgress', 'Canceled'],
  InProgress: ['Paused', 'Completed', 'Canceled'],
  Paused: ['InProgress', 'Canceled'],
  Completed: [],
  Canceled: [],
};

export function canMoveCampaign(from: CampaignStatus, to: CampaignStatus): boolean {
  return from === to || CAMPAIGN_STATUS_MOVES[from].includes(to);
}

/** Throws a 409 naming both statuses when the move is not allowed. */
export function assertCampaignMove(from: CampaignStatus, to: CampaignStatus): void {
  if (canMoveCampaign(from, to)) return;
  const allowed = CAMPAIGN_STATUS_MOVES[from];
  throw new ConflictError(
    allowed.length === 0
      ? `A ${from} campaign cannot change its status`
      : `A ${from} campaign can move to ${allowed.join(', ')} only`,
    { status: from, requested: to },
  );
}
