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

  send(deviceToken: string, notification: ApnsNotification = {}): Promise<ApnsResult> {
    return this.sendOnce(deviceToken, notification).catch((error: unknown) => {
      this.logger.error(`APNs push failed unexpectedly: ${describeError(error)}`);
      return { status: 'failed', reason: `InternalError: ${describeError(error)}` };
    });
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
    const window = new PushWindow(this, tokens, notification, concurrency);
    try {
      for (;;) {
        await window.fill();
        const delivery = window.take();
        if (delivery !== undefined) {
          yield delivery;
          continue;
        }
        if (window.finished) return;
        await window.nextResult();
      }
    } finally {
      await window.close();
    }
  }

  /**
   * {@link sendEach} with a callback instead of an iterator, for fan-outs: `onResult` gets each
   * result as it arrives, and a promise it returns is awaited before more results are taken
   * (pushes already in flight go on). Without an async generator between the two, a push
   * allocates a third less, which is what a fan-out of a million devices is made of.
   */
  async sendAll(
    tokens: Iterable<string> | AsyncIterable<string>,
    onResult: (token: string, result: ApnsResult) => void | Promise<void>,
    notification: ApnsNotification = {},
    concurrency: number = this.concurrency,
  ): Promise<void> {
    const window = new PushWindow(this, tokens, notification, concurrency);
    try {
      for (;;) {
        await window.fill();
        const delivery = window.take();
        if (delivery !== undefined) {
          const recording = onResult(delivery.token, delivery.result);
          if (recording !== undefined) await recording;
          continue;
        }
        if (window.finished) return;
        await window.nextResult();
      }
    } finally {
      await window.close();
    }
  }

  /**
   * Pushes to every token (bounded concurrency, see {@link sendAll}) and returns each token's
   * result. `onResult` is awaited for each result as it arrives, so a caller can record it
   * before more results pile up; an error it throws stops the batch. For very large fan-outs
   * prefer {@link sendAll}, which keeps no map.
   */
  async sendMany(
    tokens: Iterable<string> | AsyncIterable<string>,
    notification: ApnsNotification = {},
    onResult?: (token: string, result: ApnsResult) => void | Promise<void>,
  ): Promise<Map<string, ApnsResult>> {
    const results = new Map<string, ApnsResult>();
    await this.sendAll(
      tokens,
      (token, result) => {
        results.set(token, result);
        return onResult?.(token, result);
      },
      notification,
    );
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

  private attempt(
    deviceToken: string,
    request: PreparedRequest,
    providerToken: string | undefined,
  ): Promise<ApnsOutcome> {
    const connection = this.pickConnection();
    // A free stream on an open session, the usual case mid fan-out, is taken without a promise.
    const ready = connection.tryAcquire();
    if (ready !== undefined) {
      return this.stream(connection, ready, deviceToken, request, providerToken);
    }
    return connection.acquire().then(
      (session) => this.stream(connection, session, deviceToken, request, providerToken),
      (error: unknown): ApnsOutcome => ({ kind: 'retry', reason: describeError(error) }),
    );
  }

  /** One request on a stream already counted against `connection` (released when it ends). */
  private stream(
    connection: ApnsConnection,
    session: http2.ClientHttp2Session,
    deviceToken: string,
    request: PreparedRequest,
    providerToken: string | undefined,
  ): Promise<ApnsOutcome> {
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
      // APNs answers 200 with an empty body: the chunks of an error's JSON body only.
      const chunks: Buffer[] = [];
      const outcome = (answered: number): ApnsOutcome =>
        classifyResponse(
          answered,
          chunks.length === 0 ? {} : parseErrorBody(Buffer.concat(chunks).toString('utf8')),
          apnsId,
        );
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
        if (status !== undefined) finish(outcome(status));
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
          finish(outcome(status));
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

/**
 * The pushes of one sendEach/sendAll call: at most `concurrency` in flight or waiting for the
 * consumer, tokens read from the source only as room frees up.
 */
class PushWindow {
  private readonly iterator: Iterator<string> | AsyncIterator<string>;
  private readonly synchronous: boolean;
  private readonly done: ApnsDelivery[] = [];
  private inFlight = 0;
  private exhausted = false;
  private wake: (() => void) | undefined;

  constructor(
    private readonly client: ApnsClient,
    tokens: Iterable<string> | AsyncIterable<string>,
    private readonly notification: ApnsNotification,
    private readonly concurrency: number,
  ) {
    if (!Number.isInteger(concurrency) || concurrency < 1) {
      throw new Error(`sendEach concurrency must be a positive integer (got ${concurrency})`);
    }
    this.synchronous = !(Symbol.asyncIterator in tokens);
    this.iterator =
      Symbol.asyncIterator in tokens ? tokens[Symbol.asyncIterator]() : tokens[Symbol.iterator]();
  }

  /** Every token read and every push answered and taken. */
  get finished(): boolean {
    return this.exhausted && this.inFlight === 0 && this.done.length === 0;
  }

  /** Starts pushes until the window is full or the tokens run out. */
  async fill(): Promise<void> {
    while (!this.exhausted && this.inFlight + this.done.length < this.concurrency) {
      // A synchronous source (an array of tokens) is read without a turn of the event loop.
      const next = this.synchronous
        ? (this.iterator as Iterator<string>).next()
        : await this.iterator.next();
      if (next.done === true) this.exhausted = true;
      else this.start(next.value);
    }
  }

  take(): ApnsDelivery | undefined {
    return this.done.shift();
  }

  nextResult(): Promise<void> {
    return new Promise<void>((resolve) => (this.wake = resolve));
  }

  /** The consumer stopped early: let the token source (a database cursor, say) close. */
  async close(): Promise<void> {
    if (!this.exhausted) await this.iterator.return?.();
  }

  private start(token: string): void {
    this.inFlight++;
    void this.client.send(token, this.notification).then((result) => {
      this.inFlight--;
      this.done.push({ token, result });
      const resume = this.wake;
      this.wake = undefined;
      resume?.();
    });
  }
}
