import { backoffDelay } from '@app/core';
import { Logger, type LoggerService } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { AccessTokenSource, describeError } from './access-tokens';
import type { ServiceAccount } from './service-account';
import { COLLECTIONS } from './class-types';
import type {
  ClassOf,
  ClassType,
  ObjectContentOf,
  WalletClass,
  WalletMessage,
  WalletObject,
} from './wallet-objects.types';

export const NOT_CONFIGURED_REASON = 'WalletB is not configured: set WALLET_B_SERVICE_ACCOUNT';

/**
 * Why a call did not succeed:
 * - `not-configured`: no service account, nothing was sent;
 * - `not-found` (404), `conflict` (409, e.g. insert of an existing id);
 * - `quota-exceeded`: Google's QuotaExceededException for notifying messages;
 * - `rejected`: any other refusal (4xx, or a 401 that a new token did not cure);
 * - `unavailable`: 429/5xx, timeouts and network errors that outlasted the retries.
 */
export type GoogleFailureKind =
  'not-configured' | 'not-found' | 'conflict' | 'quota-exceeded' | 'rejected' | 'unavailable';

export type GoogleResult<T> =
  { ok: true; value: T } | { ok: false; kind: GoogleFailureKind; reason: string; status?: number };

export interface GoogleRetryOptions {
  /** Tries in all, the first included. */
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export interface GoogleWalletClientOptions {
  /** The deadline of each request, the token request included (WALLET_B_TIMEOUT_MS). */
  requestTimeoutMs?: number;
  retry?: Partial<GoogleRetryOptions>;
  random?: () => number;
  now?: () => number;
  logger?: LoggerService;
}

const DEFAULTS = {
  requestTimeoutMs: 10_000,
  retry: { attempts: 5, baseDelayMs: 200, maxDelayMs: 10_000 } satisfies GoogleRetryOptions,
};

type Outcome<T> =
  | { kind: 'done'; result: GoogleResult<T> }
  | { kind: 'retry'; reason: string; status?: number; retryAfterMs?: number }
  | { kind: 'refresh-token'; token: string };

const failure = <T>(kind: GoogleFailureKind, reason: string, status?: number): GoogleResult<T> => ({
  ok: false,
  kind,
  reason,
  ...(status !== undefined ? { status } : {}),
});

/**
 * The Google Wallet REST API (`{WALLET_B_API_URL}/walletobjects/v1/...`, in the collections of
 * each class type: `/loyaltyClass`, `/loyaltyObject`, ...) with service-account
 * authentication. Every call returns a {@link GoogleResult}; nothing throws for a failed call.
 * 429, 5xx, timeouts and network errors are retried with exponential backoff and full jitter
 * (honouring Retry-After); a 401 gets one new access token and one more try. Each request has
 * a deadline (`requestTimeoutMs`) and each call, tries included, ends within twice that
 * ({@link callBudgetMs}): a Google that stops answering fails the call as `unavailable`, and
 * the job that made it is retried on its own schedule, never holding its lease past its time.
 */
export class GoogleWalletClient {
  private readonly tokens?: AccessTokenSource;
  private readonly retry: GoogleRetryOptions;
  private readonly requestTimeoutMs: number;
  private readonly random: () => number;
  private readonly logger: LoggerService;
  private readonly baseUrl: string;

  constructor(
    apiUrl: string,
    account: ServiceAccount | null,
    options: GoogleWalletClientOptions = {},
  ) {
    this.baseUrl = `${apiUrl.replace(/\/+$/, '')}/walletobjects/v1`;
    this.retry = { ...DEFAULTS.retry, ...options.retry };
    this.requestTimeoutMs = options.requestTimeoutMs ?? DEFAULTS.requestTimeoutMs;
    this.random = options.random ?? Math.random;
    this.logger = options.logger ?? new Logger('GoogleWallet');
    if (account !== null) {
      this.tokens = new AccessTokenSource(account, {
        requestTimeoutMs: this.requestTimeoutMs,
        now: options.now ?? Date.now,
      });
    }
  }

  get configured(): boolean {
    return this.tokens !== undefined;
  }

  /** The most one call takes, its tries and token request included: two request deadlines. */
  get callBudgetMs(): number {
    return 2 * this.requestTimeoutMs;
  }

  insertClass<T extends ClassType>(
    type: T,
    resource: ClassOf[T],
  ): Promise<GoogleResult<WalletClass>> {
    return this.request('POST', `/${COLLECTIONS[type].classes}`, resource);
  }

  getClass(type: ClassType, classId: string): Promise<GoogleResult<WalletClass>> {
    return this.request('GET', classPath(type, classId), undefined);
  }

  /** PATCH: fields left out keep their value at Google (messages, for one). */
  patchClass<T extends ClassType>(
    type: T,
    resource: ClassOf[T],
  ): Promise<GoogleResult<WalletClass>> {
    return this.request('PATCH', classPath(type, resource.id), resource);
  }

  /** Adds a message to the class: every object of the class shows it (and notifies, per type). */
  addClassMessage(
    type: ClassType,
    classId: string,
    message: WalletMessage,
  ): Promise<GoogleResult<WalletClass>> {
    return this.request<{ resource: WalletClass }>(
      'POST',
      `${classPath(type, classId)}/addMessage`,
      { message },
    ).then((result) => (result.ok ? { ok: true, value: result.value.resource } : result));
  }

  getObject(type: ClassType, objectId: string): Promise<GoogleResult<WalletObject>> {
    return this.request('GET', objectPath(type, objectId), undefined);
  }

  /** Adds a message to one object only: its holder sees it (and is notified, per type). */
  addObjectMessage(
    type: ClassType,
    objectId: string,
    message: WalletMessage,
  ): Promise<GoogleResult<WalletObject>> {
    return this.request<{ resource: WalletObject }>(
      'POST',
      `${objectPath(type, objectId)}/addMessage`,
      { message },
    ).then((result) => (result.ok ? { ok: true, value: result.value.resource } : result));
  }

  patchObject<T extends ClassType>(
    type: T,
    objectId: string,
    content: ObjectContentOf<T>,
  ): Promise<GoogleResult<WalletObject>> {
    return this.request('PATCH', objectPath(type, objectId), content);
  }

  private async request<T>(method: string, path: string, body: unknown): Promise<GoogleResult<T>> {
    if (this.tokens === undefined) return failure('not-configured', NOT_CONFIGURED_REASON);
    const started = Date.now();
    const deadline = started + this.callBudgetMs;
    let attempt = 0;
    let refreshed = false;
    for (;;) {
      const outcome = await this.attempt<T>(this.tokens, method, path, body, deadline);
      if (outcome.kind === 'done') return outcome.result;
      if (outcome.kind === 'refresh-token') {
        if (refreshed) return failure('rejected', 'Google refused a new access token (401)', 401);
        this.tokens.invalidate(outcome.token);
        refreshed = true;
        continue;
      }
      attempt++;
      const delay = Math.min(
        this.retry.maxDelayMs,
        Math.max(
          backoffDelay(attempt, this.retry.baseDelayMs, this.retry.maxDelayMs, this.random),
          outcome.retryAfterMs ?? 0,
        ),
      );
      // No try that would start past the call's budget: the job retries later instead.
      if (attempt >= this.retry.attempts || Date.now() + delay >= deadline) {
        const reason =
          `${method} ${path} failed after ${attempt} tries in ${Date.now() - started} ms: ` +
          outcome.reason;
        this.logger.warn({ status: outcome.status }, reason);
        return failure('unavailable', reason, outcome.status);
      }
      await sleep(delay);
    }
  }

  private async attempt<T>(
    tokens: AccessTokenSource,
    method: string,
    path: string,
    body: unknown,
    deadline: number,
  ): Promise<Outcome<T>> {
    // The token request has its own deadline and is shared by concurrent calls; this call
    // waits for it no longer than its own budget allows.
    const token = await withinMs(tokens.get(), deadline - Date.now());
    if (token === undefined) return { kind: 'retry', reason: 'token request timed out' };
    if (!token.ok) {
      return token.retryable
        ? { kind: 'retry', reason: token.reason }
        : { kind: 'done', result: failure('rejected', token.reason) };
    }

    let response: Response;
    let text: string;
    try {
      response = await fetch(`${this.baseUrl}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token.token}`,
          'content-type': 'application/json',
          accept: 'application/json',
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        signal: AbortSignal.timeout(
          Math.max(1, Math.min(this.requestTimeoutMs, deadline - Date.now())),
        ),
      });
      text = await response.text();
    } catch (error) {
      return { kind: 'retry', reason: describeError(error) };
    }

    const status = response.status;
    if (status >= 200 && status < 300) {
      try {
        return { kind: 'done', result: { ok: true, value: JSON.parse(text) as T } };
      } catch {
        return { kind: 'retry', reason: `${status} with a body that is not JSON`, status };
      }
    }
    const message = googleErrorMessage(text) ?? response.statusText;
    const reason = `${status} ${message}`.trim();
    if (status === 401) return { kind: 'refresh-token', token: token.token };
    if (isNotificationQuotaError(message)) {
      return { kind: 'done', result: failure('quota-exceeded', reason, status) };
    }
    if (status === 429 || status >= 500) {
      return { kind: 'retry', reason, status, retryAfterMs: retryAfterMs(response) };
    }
    if (status === 404) return { kind: 'done', result: failure('not-found', reason, status) };
    if (status === 409) return { kind: 'done', result: failure('conflict', reason, status) };
    return { kind: 'done', result: failure('rejected', reason, status) };
  }
}

/** `promise`'s value, or undefined when it takes longer than `ms` (it goes on regardless). */
async function withinMs<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), Math.max(0, ms));
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

const classPath = (type: ClassType, classId: string) =>
  `/${COLLECTIONS[type].classes}/${encodeURIComponent(classId)}`;

const objectPath = (type: ClassType, objectId: string) =>
  `/${COLLECTIONS[type].objects}/${encodeURIComponent(objectId)}`;

/** `error.message` of Google's error body `{error: {code, message, status}}`. */
function googleErrorMessage(text: string): string | undefined {
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown } };
    return typeof body.error?.message === 'string' ? body.error.message : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Google documents that notifying messages beyond its limit fail with a QuotaExceededException;
 * that is not an API rate limit ("Quota exceeded for quota metric ..."), which is retried.
 */
function isNotificationQuotaError(message: string): boolean {
  return /QuotaExceededException/i.test(message);
}

function retryAfterMs(response: Response): number | undefined {
  const header = response.headers.get('retry-after');
  if (header === null) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}
