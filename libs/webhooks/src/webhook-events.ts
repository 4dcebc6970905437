import type { ServiceEventType } from '@app/core';

/**
 * The events a webhook may subscribe to. Other service events (`link.clicked`)
 * are for statistics only and never leave the service.
 */
export const WEBHOOK_EVENT_TYPES = [
  'pass.installed',
  'pass.uninstalled',
  'notification.finished',
  'holder.created',
  'holder.updated',
  'holder.voided',
] as const satisfies readonly ServiceEventType[];

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export function isWebhookEventType(type: string): type is WebhookEventType {
  return (WEBHOOK_EVENT_TYPES as readonly string[]).includes(type);
}
