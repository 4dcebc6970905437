import type { ApnsResult } from './apns.types';

/** The JSON body APNs sends with an error status. */
export interface ApnsErrorBody {
  reason?: string;
  /** With 410: when APNs last confirmed the token invalid, in milliseconds since the epoch. */
  timestamp?: number;
}

/** What the client does after one request. */
export type ApnsOutcome =
  | { kind: 'result'; result: ApnsResult }
  | {
      kind: 'retry';
      reason: string;
      httpStatus?: number;
      /** The server never processed the request (refused stream): retry at once. */
      refused?: boolean;
      /** The server said it is shutting down: open a new connection for the retry. */
      dropConnection?: boolean;
    }
  | { kind: 'refresh-token'; reason: string; httpStatus: number };

/** 400 reasons that mean "this registration is dead": the caller removes it. */
const UNREGISTERING_REASONS = new Set(['BadDeviceToken', 'DeviceTokenNotForTopic']);

export function parseErrorBody(raw: string): ApnsErrorBody {
  if (raw.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(raw);
    if (typeof parsed !== 'object' || parsed === null) return {};
    const { reason, timestamp } = parsed as Record<string, unknown>;
    return {
      reason: typeof reason === 'string' ? reason : undefined,
      timestamp:
        typeof timestamp === 'number' && Number.isFinite(timestamp) ? timestamp : undefined,
    };
  } catch {
    return {};
  }
}

/** Maps one APNs response to a result, or to the retry the client should make. */
export function classifyResponse(
  httpStatus: number,
  body: ApnsErrorBody,
  apnsId: string,
): ApnsOutcome {
  const reason = body.reason ?? `HTTP ${httpStatus}`;
  if (httpStatus === 200) return { kind: 'result', result: { status: 'sent', apnsId } };
  if (httpStatus === 410) {
    return {
      kind: 'result',
      result: {
        status: 'unregistered',
        reason: body.reason ?? 'Unregistered',
        ...(body.timestamp !== undefined ? { at: new Date(body.timestamp) } : {}),
      },
    };
  }
  if (httpStatus === 400 && UNREGISTERING_REASONS.has(reason)) {
    return { kind: 'result', result: { status: 'unregistered', reason } };
  }
  if (httpStatus === 403 && reason === 'ExpiredProviderToken') {
    return { kind: 'refresh-token', reason, httpStatus };
  }
  if (httpStatus === 429 || (httpStatus >= 500 && httpStatus <= 599)) {
    return { kind: 'retry', reason, httpStatus, dropConnection: reason === 'Shutdown' };
  }
  return { kind: 'result', result: { status: 'failed', reason, httpStatus } };
}
