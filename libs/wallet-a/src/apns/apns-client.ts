import { Logger, type LoggerService } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import * as http2 from 'node:http2';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApnsConnection, describeError } from './apns-connection';
import { type ApnsOutcome, classifyResponse, parseErrorBody } from './apns-response';
import type {
  ApnsAuth,
  ApnsClientOptions,
  ApnsDelivery,
  ApnsNotification,
  ApnsResult,
  ApnsRetryOptions,
} from './apns.types';
import { backoffDelay } from '@app/core';
import { isValidDeviceToken } from './device-token';
import { ProviderTokenSigner } from './provider-token';

/** APNs refuses payloads above 4 KB (413 PayloadTooLarge); we do not send them. */
export const APNS_MAX_PAYLOAD_BYTES = 4096;

const DEFAULTS = {
  maxConcurrentStreams: 500,
  connections: 1,
  requestTimeoutMs: 10_000,
  retry: { attempts: 5, baseDelayMs: 200, maxDelayMs: 10_000 } satisfies ApnsRetryOptions,
};

/** Refused streams were never processed, so retrying them costs no attempt, up to this many. */
const MAX_FREE_RETRIES = 5;

const { NGHTTP2_REFUSED_STREAM, NGHTTP2_CANCEL } = http2.constants;

/** Node errors that mean the request never left on the session. */
const NOT_SENT_CODES = new Set([
  'ERR_HTTP2_GOAWAY_SESSION',
  'ERR_HTTP2_INVALID_SESSION',
  'ERR_HTTP2_OUT_OF_STREAMS',
]);

interface PreparedRequest {
  body: Buffer;
  headers: http2.OutgoingHttpHeaders;
  apnsId: string;
}

/**
 * Sends pushes to APNs over HTTP/2: a small pool of long-lived connections, many streams on
 * each, provider-token or TLS client-certificate authentication, retries with backoff, and
 * results the caller can act on (`sent`, `unregistered` → remove the registration, `failed`).
 */
export class ApnsClient {
  private readonly connections: ApnsConnection[];
  private readonly signer?: ProviderTokenSigner;
  private readonly retry: ApnsRetryOptions;
  private readonly logger: LoggerService;
  private readonly random: () => number;
  private readonly topic: string;
  private readonly auth: ApnsAuth;
  private readonly maxConcurrentStreams: number;
  private readonly requestTimeoutMs: number;
  private closed = false;

  constructor(options: ApnsClientOptions) {
    const url = new URL(options.url);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      throw new Error(`The APNs URL must be https:// (or http:// for tests): ${options.url}`);
    }
    if (options.topic.trim() === '') throw new Error('The APNs topic must not be empty');
    this.topic = options.topic;
    this.auth = options.auth;
    this.logger = options.logger ?? new Logger(ApnsClient.name);
    this.random = options.random ?? Math.random;
    this.retry = { ...DEFAULTS.retry, ...options.retry };
    this.maxConcurrentStreams = options.maxConcurrentStreams ?? DEFAULTS.maxConcurrentStreams;
    this.requestTimeoutMs = options.requestTimeoutMs ?? DEFAULTS.requestTimeoutMs;
    const poolSize = options.connections ?? DEFAULTS.connections;
    for (const [name, value] of Object.entries({
      attempts: this.retry.attempts,
      maxConcurrentStreams: this.maxConcurrentStreams,
      connections: poolSize,
      requestTimeoutMs: this.requestTimeoutMs,
    })) {
      if (!Number.isInteger(value) || value < 1) {
        throw new Error(`APNs client option ${name} must be a positive integer (got ${value})`);
      }
    }

    const connectOptions: http2.SecureClientSessionOptions = { settings: { enablePush: false } };
    if (options.auth.kind === 'token') {
      this.signer = new ProviderTokenSigner({ ...options.auth, clock: options.clock });
      if (options.auth.ca !== undefined) connectOptions.ca = options.auth.ca;
    } else if (options.auth.kind === 'certificate') {
      connectOptions.cert = options.auth.certPem;
      connectOptions.key = options.auth.keyPem;
      if (options.auth.ca !== undefined) connectOptions.ca = options.auth.ca;
      if (url.protocol === 'http:') {
        this.logger.warn(
          `APNs at ${options.url} is cleartext: the client certificate is not presented`,
        );
      }
    }
    const origin = url.origin;
    this.connections = Array.from(
      { length: poolSize },
      (_, index) =>
        new ApnsConnection({
          index,
          url: origin,
          connectOptions,
          maxConcurrentStreams: this.maxConcurrentStreams,
          connectTimeoutMs: this.requestTimeoutMs,
          logger: this.logger,
        }),
    );
  }

  /** How this client authenticates: `token`, `certificate`, or `unavailable`. */
  get authKind(): ApnsAuth['kind'] {
    return this.auth.kind;
  }

  /** Pushes in flight that keep every connection's streams busy: the default for sendEach. */
  get concurrency(): number {
    return this.connections.length * this.maxConcurrentStreams;
  }

  /** Pushes to one device token; never throws. */
  /** Why no push can be sent (no usable credentials), or null when pushes can go out. */
  get unavailableReason(): string | null {
    return this.auth.kind === 'unavailable' ? this.auth.reason : null;
  }

  async send(deviceToken: string, notification: ApnsNotification = {}): Promise<ApnsResult> {
    try {
      return await this.sendOnce(deviceToken, notification);
    } catch (error) {
      this.logger.error(`APNs push failed unexpectedly: ${describeError(error)}`);
      return { status: 'failed', reason: `InternalError: ${describeError(error)}` };
    }
  }

  /**
   * Pushes to every token with at most `concurrency` pushes in flight, yielding each result as
   * it arrives. Tokens are read from the iterable only as room frees up, and at most
   * `concurrency` results wait for the consumer, so memory stays flat however many tokens a
   * (possibly async, e.g. database-cursor) iterable produces.
   */
  async *sendEach(
    tokens: Iterable<string> | AsyncIterable<string>,
    notification: ApnsNotification = {},
    concurrency: number = this.concurrency,
  ): AsyncGenerator<ApnsDelivery> {
    if (!Number.isInteger(concurrency) || concurrency < 1) {
      throw new Error(`sendEach concurrency must be a positive integer (got ${concurrency})`);
    }
    const iterator =
      Symbol.asyncIterator in tokens ? tokens[Symbol.asyncIterator]() : tokens[Symbol.iterator]();
    const done: ApnsDelivery[] = [];
    let inFlight = 0;
    let exhausted = false;
    let wake: (() => void) | undefined;

    const start = (token: string): void => {
      inFlight++;
      void this.send(token, notification).then((result) => {
        inFlight--;
        done.push({ token, result });
        const resume = wake;
        wake = undefined;
        resume?.();
      });
    };

    try {
      for (;;) {
        while (!exhausted && inFlight + done.length < concurrency) {
          const next = await iterator.next();
          if (next.done === true) exhausted = true;
          else start(next.value);
        }
        const delivery = done.shift();
        if (delivery !== undefined) {
          yield delivery;
          continue;
        }
        if (exhausted && inFlight === 0) return;
        await new Promise<void>((resolve) => (wake = resolve));
      }
    } finally {
      // The consumer stopped early: let the token source (a database cursor, say) close.
      if (!exhausted) await iterator.return?.();
    }
  }

  /**
   * Pushes to every token (bounded concurrency, see {@link sendEach}) and returns each token's
   * result. `onResult` is awaited for each result as it arrives, so a caller can record it
   * before more results pile up; an error it throws stops the batch. For very large fan-outs
   * prefer {@link sendEach}, which keeps no map.
   */
  async sendMany(
    tokens: Iterable<string> | AsyncIterable<string>,
    notification: ApnsNotification = {},
    onResult?: (token: string, result: ApnsResult) => void | Promise<void>,
  ): Promise<Map<string, ApnsResult>> {
    const results = new Map<string, ApnsResult>();
    for await (const { token, result } of this.sendEach(tokens, notification)) {
      results.set(token, result);
      if (onResult !== undefined) await onResult(token, result);
    }
    return results;
  }

  /** Closes the connections once their streams are over (for shutdown). */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.connections.map((connection) => connection.close()));
  }

  private async sendOnce(deviceToken: string, notification: ApnsNotification): Promise<ApnsResult> {
    if (this.auth.kind === 'unavailable') return { status: 'failed', reason: this.auth.reason };
    if (!isValidDeviceToken(deviceToken))
      return { status: 'unregistered', reason: 'BadDeviceToken' };
    const prepared = this.prepare(notification);
    if ('status' in prepared) return prepared;

    let attempt = 0;
    let freeRetries = 0;
    let refreshed = false;
    for (;;) {
      if (this.closed) return { status: 'failed', reason: 'ClientClosed' };
      const providerToken = this.signer?.token();
      const outcome = await this.attempt(deviceToken, prepared, providerToken);
      if (outcome.kind === 'result') return outcome.result;

      if (outcome.kind === 'refresh-token') {
        if (this.signer === undefined || providerToken === undefined || refreshed) {
          return { status: 'failed', reason: outcome.reason, httpStatus: outcome.httpStatus };
        }
        refreshed = true;
        this.signer.invalidate(providerToken);
        this.logger.warn('APNs said the provider token expired; made a new one');
        continue;
      }

      if (outcome.refused === true && freeRetries < MAX_FREE_RETRIES) {
        freeRetries++;
        continue;
      }
      attempt++;
      if (attempt >= this.retry.attempts) {
        this.logger.debug?.(
          `APNs push to ${deviceToken.slice(0, 8)}… failed after ${attempt} tries: ${outcome.reason}`,
        );
        return {
          status: 'failed',
          reason: outcome.reason,
          ...(outcome.httpStatus !== undefined ? { httpStatus: outcome.httpStatus } : {}),
        };
      }
      await sleep(
        backoffDelay(attempt, this.retry.baseDelayMs, this.retry.maxDelayMs, this.random),
      );
    }
  }

  private prepare(notification: ApnsNotification): PreparedRequest | ApnsResult {
    const body = Buffer.from(JSON.stringify(notification.payload ?? {}));
    if (body.length > APNS_MAX_PAYLOAD_BYTES) {
      return { status: 'failed', reason: 'PayloadTooLarge' };
    }
    const pushType = notification.pushType ?? 'background';
    const priority = notification.priority ?? (pushType === 'background' ? 5 : 10);
    const apnsId = randomUUID();
    const headers: http2.OutgoingHttpHeaders = {
      [http2.constants.HTTP2_HEADER_METHOD]: 'POST',
      'apns-topic': this.topic,
      'apns-push-type': pushType,
      'apns-priority': String(priority),
      'apns-id': apnsId,
      'content-type': 'application/json',
      'content-length': body.length,
    };
    if (notification.expiration !== undefined) {
      const seconds =
        notification.expiration instanceof Date
          ? Math.floor(notification.expiration.getTime() / 1000)
          : Math.floor(notification.expiration);
      headers['apns-expiration'] = String(Math.max(0, seconds));
    }
    return { body, headers, apnsId };
  }

  private pickConnection(): ApnsConnection {
    let best = this.connections[0];
    for (const connection of this.connections) {
      if (connection.load < best.load) best = connection;
    }
    return best;
  }

  private async attempt(
    deviceToken: string,
    request: PreparedRequest,
    providerToken: string | undefined,
  ): Promise<ApnsOutcome> {
    const connection = this.pickConnection();
    let session: http2.ClientHttp2Session;
    try {
      session = await connection.acquire();
    } catch (error) {
      return { kind: 'retry', reason: describeError(error) };
    }

    return new Promise<ApnsOutcome>((resolve) => {
      let settled = false;
      const finish = (outcome: ApnsOutcome): void => {
        if (settled) return;
        settled = true;
        connection.release();
        if (outcome.kind === 'retry' && outcome.dropConnection === true) connection.retire(session);
        resolve(outcome);
      };

      const headers: http2.OutgoingHttpHeaders = {
        ...request.headers,
        [http2.constants.HTTP2_HEADER_PATH]: `/3/device/${deviceToken}`,
      };
      if (providerToken !== undefined) headers.authorization = `bearer ${providerToken}`;

      let stream: http2.ClientHttp2Stream;
      try {
        stream = session.request(headers);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code ?? '';
        finish({
          kind: 'retry',
          reason: `ConnectionError: ${describeError(error)}`,
          refused: NOT_SENT_CODES.has(code),
        });
        return;
      }

      let status: number | undefined;
      let apnsId = request.apnsId;
      const chunks: Buffer[] = [];
      stream.setTimeout(this.requestTimeoutMs, () => {
        finish({
          kind: 'retry',
          reason: `RequestTimeout: no answer in ${this.requestTimeoutMs} ms`,
        });
        stream.close(NGHTTP2_CANCEL);
      });
      stream.on('response', (responseHeaders) => {
        status = Number(responseHeaders[http2.constants.HTTP2_HEADER_STATUS]);
        const id = responseHeaders['apns-id'];
        if (typeof id === 'string' && id !== '') apnsId = id;
      });
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        if (status === undefined) return;
        const body = parseErrorBody(Buffer.concat(chunks).toString('utf8'));
        finish(classifyResponse(status, body, apnsId));
      });
      stream.on('error', (error) => {
        const code = (error as NodeJS.ErrnoException).code ?? '';
        finish({
          kind: 'retry',
          reason: `ConnectionError: ${describeError(error)}`,
          refused: stream.rstCode === NGHTTP2_REFUSED_STREAM || NOT_SENT_CODES.has(code),
        });
      });
      stream.on('close', () => {
        if (status !== undefined) {
          // Normally 'end' has settled it already; this covers a stream reset after the headers.
          const body = parseErrorBody(Buffer.concat(chunks).toString('utf8'));
          finish(classifyResponse(status, body, apnsId));
          return;
        }
        finish({
          kind: 'retry',
          reason: `ConnectionError: stream closed (code ${stream.rstCode})`,
          refused: stream.rstCode === NGHTTP2_REFUSED_STREAM,
        });
      });
      stream.end(request.body);
    });
  }
}
