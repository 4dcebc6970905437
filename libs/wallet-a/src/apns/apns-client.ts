import { Logger, type LoggerService } from '@nestjs/common';
import * as http2 from 'node:http2';
import { ApnsConnection, describeError } from './apns-connection';
import { ApnsIdSource } from './apns-id';
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
import { InFlight, InFlightList } from './in-flight-list';
import { ProviderTokenSigner } from './provider-token';

/** APNs refuses payloads above 4 KB (413 PayloadTooLarge); we do not send them. */
export const APNS_MAX_PAYLOAD_BYTES = 4096;

const DEFAULTS = {
  maxConcurrentStreams: 500,
  connections: 1,
  requestTimeoutMs: 10_000,
  pingTimeoutMs: 5_000,
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

/** What every push of one send/sendAll call shares: made once per call, not once per push. */
interface PreparedRequest {
  body: Buffer;
  pushType: string;
  priority: string;
  expiration: string | undefined;
}

/** One push on its way, retries included: `done` is called once, with its result. */
interface Push {
  deviceToken: string;
  request: PreparedRequest;
  apnsId: string;
  /** Tries that counted against the retry budget. */
  attempt: number;
  /** Refused streams retried without counting (never processed by the server). */
  freeRetries: number;
  /** The provider token was renewed once after ExpiredProviderToken. */
  refreshed: boolean;
  done: (result: ApnsResult) => void;
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
  /** Streams in flight, oldest first, and the timer that times them out. */
  private readonly inFlight = new InFlightList();
  private sweeper: NodeJS.Timeout | undefined;
  private lastBearer: { token: string; header: string } | undefined;
  private readonly apnsIds = new ApnsIdSource();

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
    const pingTimeoutMs = options.pingTimeoutMs ?? DEFAULTS.pingTimeoutMs;
    const poolSize = options.connections ?? DEFAULTS.connections;
    for (const [name, value] of Object.entries({
      attempts: this.retry.attempts,
      maxConcurrentStreams: this.maxConcurrentStreams,
      connections: poolSize,
      requestTimeoutMs: this.requestTimeoutMs,
      pingTimeoutMs,
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
          pingTimeoutMs,
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

  /** Why no push can be sent (no usable credentials), or null when pushes can go out. */
  get unavailableReason(): string | null {
    return this.auth.kind === 'unavailable' ? this.auth.reason : null;
  }

  /** Pushes to one device token; never throws. */
  send(deviceToken: string, notification: ApnsNotification = {}): Promise<ApnsResult> {
    const request = this.prepare(notification);
    if ('status' in request) return Promise.resolve(request);
    return new Promise((resolve) => this.push(deviceToken, request, resolve));
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
    const window = this.window(tokens, notification, concurrency);
    try {
      for (;;) {
        const filling = window.fill();
        if (filling !== undefined) await filling;
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
   * result as it arrives, with the token's position among those given, and a promise it returns
   * is awaited before more results are taken (pushes already in flight go on). Without an async
   * generator between the two, a push allocates a third less, which is what a fan-out of a
   * million devices is made of.
   */
  async sendAll(
    tokens: Iterable<string> | AsyncIterable<string>,
    onResult: (token: string, result: ApnsResult, index: number) => void | Promise<void>,
    notification: ApnsNotification = {},
    concurrency: number = this.concurrency,
  ): Promise<void> {
    const window = this.window(tokens, notification, concurrency);
    try {
      for (;;) {
        // Awaited only for an async source: a turn of the event loop per result otherwise.
        const filling = window.fill();
        if (filling !== undefined) await filling;
        const delivery = window.take();
        if (delivery !== undefined) {
          const recording = onResult(delivery.token, delivery.result, delivery.index);
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

  private window(
    tokens: Iterable<string> | AsyncIterable<string>,
    notification: ApnsNotification,
    concurrency: number,
  ): PushWindow {
    const request = this.prepare(notification);
    return new PushWindow(
      (token, done) => {
        if ('status' in request) done(request);
        else this.push(token, request, done);
      },
      tokens,
      concurrency,
    );
  }

  /**
   * One push, retries included, driven by callbacks rather than an async loop: a fan-out is
   * millions of these, and each `await` of a loop allocates a promise per push and per try.
   * `done` is called exactly once; nothing here throws.
   */
  private push(
    deviceToken: string,
    request: PreparedRequest,
    done: (result: ApnsResult) => void,
  ): void {
    if (this.auth.kind === 'unavailable') {
      done({ status: 'failed', reason: this.auth.reason });
      return;
    }
    if (!isValidDeviceToken(deviceToken)) {
      done({ status: 'unregistered', reason: 'BadDeviceToken' });
      return;
    }
    this.attempt({
      deviceToken,
      request,
      apnsId: this.apnsIds.take(),
      attempt: 0,
      freeRetries: 0,
      refreshed: false,
      done,
    });
  }

  /** One try of `push` on a stream; its outcome decides whether and when the next one goes. */
  private attempt(push: Push): void {
    if (this.closed) {
      push.done({ status: 'failed', reason: 'ClientClosed' });
      return;
    }
    const providerToken = this.signer?.token();
    const settle = (outcome: ApnsOutcome): void => {
      try {
        this.afterAttempt(push, outcome, providerToken);
      } catch (error) {
        this.logger.error(`APNs push failed unexpectedly: ${describeError(error)}`);
        push.done({ status: 'failed', reason: `InternalError: ${describeError(error)}` });
      }
    };
    const connection = this.pickConnection();
    // A free stream on an open session, the usual case mid fan-out, is taken without a promise.
    const ready = connection.tryAcquire();
    if (ready !== undefined) {
      this.stream(connection, ready, push, providerToken, settle);
      return;
    }
    connection.acquire().then(
      (session) => this.stream(connection, session, push, providerToken, settle),
      (error: unknown) => settle({ kind: 'retry', reason: describeError(error) }),
    );
  }

  private afterAttempt(push: Push, outcome: ApnsOutcome, providerToken: string | undefined): void {
    if (outcome.kind === 'result') {
      push.done(outcome.result);
      return;
    }
    if (outcome.kind === 'refresh-token') {
      if (this.signer === undefined || providerToken === undefined || push.refreshed) {
        push.done({ status: 'failed', reason: outcome.reason, httpStatus: outcome.httpStatus });
        return;
      }
      push.refreshed = true;
      this.signer.invalidate(providerToken);
      this.logger.warn('APNs said the provider token expired; made a new one');
      this.attempt(push);
      return;
    }
    if (outcome.refused === true && push.freeRetries < MAX_FREE_RETRIES) {
      push.freeRetries++;
      this.attempt(push);
      return;
    }
    push.attempt++;
    if (push.attempt >= this.retry.attempts) {
      this.logger.debug?.(
        `APNs push to ${push.deviceToken.slice(0, 8)}… failed after ${push.attempt} tries: ${outcome.reason}`,
      );
      push.done({
        status: 'failed',
        reason: outcome.reason,
        ...(outcome.httpStatus !== undefined ? { httpStatus: outcome.httpStatus } : {}),
      });
      return;
    }
    setTimeout(
      () => this.attempt(push),
      backoffDelay(push.attempt, this.retry.baseDelayMs, this.retry.maxDelayMs, this.random),
    );
  }

  private prepare(notification: ApnsNotification): PreparedRequest | ApnsResult {
    const body = Buffer.from(JSON.stringify(notification.payload ?? {}));
    if (body.length > APNS_MAX_PAYLOAD_BYTES) {
      return { status: 'failed', reason: 'PayloadTooLarge' };
    }
    const pushType = notification.pushType ?? 'background';
    const priority = notification.priority ?? (pushType === 'background' ? 5 : 10);
    let expiration: string | undefined;
    if (notification.expiration !== undefined) {
      const seconds =
        notification.expiration instanceof Date
          ? Math.floor(notification.expiration.getTime() / 1000)
          : Math.floor(notification.expiration);
      expiration = String(Math.max(0, seconds));
    }
    return { body, pushType, priority: String(priority), expiration };
  }

  private pickConnection(): ApnsConnection {
    let best = this.connections[0];
    for (const connection of this.connections) {
      if (connection.load < best.load) best = connection;
    }
    return best;
  }

  /** `bearer <token>`, made once per provider token rather than once per push. */
  private authorization(providerToken: string): string {
    if (this.lastBearer?.token !== providerToken) {
      this.lastBearer = { token: providerToken, header: `bearer ${providerToken}` };
    }
    return this.lastBearer.header;
  }

  /**
   * One request on a stream already counted against `connection` (released when it ends). The
   * outcome is settled once, when the stream closes (or times out): 'close' follows 'end' and
   * 'error' alike, and only an error answer's body is read (APNs answers 200 with none).
   */
  private stream(
    connection: ApnsConnection,
    session: http2.ClientHttp2Session,
    push: Push,
    providerToken: string | undefined,
    settle: (outcome: ApnsOutcome) => void,
  ): void {
    let settled = false;
    let stream: http2.ClientHttp2Stream | undefined;
    const timeout = new InFlight(Date.now() + this.requestTimeoutMs, () => {
      finish({
        kind: 'retry',
        reason: `RequestTimeout: no answer in ${this.requestTimeoutMs} ms`,
      });
      stream?.close(NGHTTP2_CANCEL);
      // APNs slow, or the session stalled: a PING tells, and a stalled one is replaced.
      connection.suspect(session);
    });
    const finish = (outcome: ApnsOutcome): void => {
      if (settled) return;
      settled = true;
      this.inFlight.remove(timeout);
      connection.release();
      if (outcome.kind === 'retry' && outcome.dropConnection === true) connection.retire(session);
      settle(outcome);
    };

    const { request } = push;
    const headers: http2.OutgoingHttpHeaders = {
      ':method': 'POST',
      ':path': `/3/device/${push.deviceToken}`,
      'apns-topic': this.topic,
      'apns-push-type': request.pushType,
      'apns-priority': request.priority,
      'apns-id': push.apnsId,
      'content-type': 'application/json',
      'content-length': request.body.length,
    };
    if (request.expiration !== undefined) headers['apns-expiration'] = request.expiration;
    if (providerToken !== undefined) headers.authorization = this.authorization(providerToken);

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
    this.watch(timeout);
    this.listen(stream, push, finish);
    stream.end(request.body);
  }

  /** Reads the answer of `stream` and settles it once, when the stream closes. */
  private listen(
    stream: http2.ClientHttp2Stream,
    push: Push,
    finish: (outcome: ApnsOutcome) => void,
  ): void {
    let status: number | undefined;
    let apnsId = push.apnsId;
    let chunks: Buffer[] | undefined;
    let failure: NodeJS.ErrnoException | undefined;
    stream.on('response', (responseHeaders) => {
      status = Number(responseHeaders[http2.constants.HTTP2_HEADER_STATUS]);
      const id = responseHeaders['apns-id'];
      if (typeof id === 'string' && id !== '') apnsId = id;
      if (status === 200) {
        stream.resume();
      } else {
        const body: Buffer[] = (chunks = []);
        stream.on('data', (chunk: Buffer) => body.push(chunk));
      }
    });
    stream.on('error', (error: NodeJS.ErrnoException) => {
      failure = error;
    });
    stream.on('close', () => {
      dropListeners(stream);
      if (status !== undefined && (failure === undefined || chunks === undefined)) {
        // Answered (a reset after the headers of a 200 changes nothing).
        const body =
          chunks === undefined || chunks.length === 0
            ? {}
            : parseErrorBody(Buffer.concat(chunks).toString('utf8'));
        finish(classifyResponse(status, body, apnsId));
        return;
      }
      const code = failure?.code ?? '';
      finish({
        kind: 'retry',
        reason:
          failure !== undefined
            ? `ConnectionError: ${describeError(failure)}`
            : `ConnectionError: stream closed (code ${stream.rstCode})`,
        refused: stream.rstCode === NGHTTP2_REFUSED_STREAM || NOT_SENT_CODES.has(code),
      });
    });
  }

  /**
   * Times out streams with one timer for the client rather than one per stream (Node's
   * `stream.setTimeout` makes a timer, a bound function and a listener per stream, and
   * refreshes it on every read and write). Every stream has the same time allowed, so the list,
   * in insertion order, is in deadline order: a sweep stops at the first one still in time. A
   * stream times out between its deadline and one sweep interval later.
   */
  private watch(stream: InFlight): void {
    this.inFlight.add(stream);
    if (this.sweeper !== undefined) return;
    const every = Math.max(10, Math.min(1000, Math.floor(this.requestTimeoutMs / 4)));
    this.sweeper = setInterval(() => this.sweepTimeouts(), every);
    this.sweeper.unref();
  }

  private sweepTimeouts(): void {
    this.inFlight.expireDue(Date.now());
    if (this.inFlight.size === 0 && this.sweeper !== undefined) {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
    }
  }
}

/**
 * Takes every listener off a closed stream, node:http2's own too ('close' is its last event).
 *
 * Node's `Duplex` makes the object holding a stream's listeners from one object literal, and V8
 * decides per literal whether to allocate it in the old generation: when most of those made
 * since the last young collection are alive at the next one, as with hundreds of streams in
 * flight and a young generation still small at the start of a fan-out, it does from then on. A
 * dead holder there still points at the push's closures until the next full collection, and the
 * young-generation collector counts that as alive, so each push's stream, closures and headers
 * moved to the old generation: about 2.2 MB per young collection, over 100 MB more RSS at
 * 100,000 devices (docs/decisions.md, "What a push leaves behind"). Removing a listener
 * clears its slot in the holder. A no-op 'error' listener stays, so that an error emitted late
 * could not go unhandled and end the process.
 */
function dropListeners(stream: http2.ClientHttp2Stream): void {
  stream.removeAllListeners();
  stream.on('error', ignoreLateError);
}

function ignoreLateError(): void {}

/**
 * The pushes of one sendEach/sendAll call: at most `concurrency` in flight or waiting for the
 * consumer, tokens read from the source only as room frees up.
 */
class PushWindow {
  private readonly iterator: Iterator<string> | AsyncIterator<string>;
  private readonly synchronous: boolean;
  private readonly done: ApnsDelivery[] = [];
  private inFlight = 0;
  /** Tokens read from the source so far: the next one's index. */
  private read = 0;
  private exhausted = false;
  private wake: (() => void) | undefined;

  constructor(
    private readonly push: (token: string, done: (result: ApnsResult) => void) => void,
    tokens: Iterable<string> | AsyncIterable<string>,
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

  /**
   * Starts pushes until the window is full or the tokens run out. A synchronous source (an
   * array of tokens) is read at once and nothing is returned; an async one returns the promise
   * of its reads.
   */
  fill(): Promise<void> | undefined {
    if (!this.synchronous) return this.fillFromAsync();
    const iterator = this.iterator as Iterator<string>;
    while (!this.exhausted && this.inFlight + this.done.length < this.concurrency) {
      const next = iterator.next();
      if (next.done === true) this.exhausted = true;
      else this.start(next.value);
    }
    return undefined;
  }

  private async fillFromAsync(): Promise<void> {
    while (!this.exhausted && this.inFlight + this.done.length < this.concurrency) {
      const next = await this.iterator.next();
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
    const index = this.read++;
    this.inFlight++;
    this.push(token, (result) => {
      this.inFlight--;
      this.done.push({ token, result, index });
      const resume = this.wake;
      this.wake = undefined;
      resume?.();
    });
  }
}
