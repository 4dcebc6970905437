import type { LoggerService } from '@nestjs/common';
import * as http2 from 'node:http2';
import { adoptStreamTable } from './stream-table';

/** Connecting failed, or the client is closed. */
export class ApnsConnectionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ApnsConnectionError';
  }
}

export interface ApnsConnectionOptions {
  /** Position in the pool, for log lines. */
  index: number;
  url: string;
  connectOptions: http2.SecureClientSessionOptions;
  /** Our own ceiling of streams in flight; the server's SETTINGS may lower it. */
  maxConcurrentStreams: number;
  connectTimeoutMs: number;
  /** How long a session suspected of a stall has to answer a PING before it is destroyed. */
  pingTimeoutMs: number;
  logger: LoggerService;
}

/**
 * One pool slot: a long-lived HTTP/2 session, opened on first use and reused for every push,
 * and the bookkeeping that keeps the streams in flight under both our limit and the server's
 * SETTINGS_MAX_CONCURRENT_STREAMS (the excess waits here, in order, instead of being opened).
 *
 * A session that sends GOAWAY, fails or closes is dropped at once: the next push opens a new
 * one, while the streams the server still accepted on the old one finish there.
 *
 * A session can also stall: the server stops reading and answering without closing anything
 * (a stopped process, a lost route), and its streams would only time out one by one, their
 * retries sent on the same dead session. When a stream times out the session is
 * {@link suspect}ed: no new stream opens on it and it is sent a PING, which any live HTTP/2 peer
 * answers at once whatever its pushes are doing. Answered, it goes on; unanswered within
 * `pingTimeoutMs`, it is destroyed, so the pushes in flight on it fail at once and are retried
 * on a new session. The pushes a stall can leave both delivered and retried are those in flight
 * on the session when it stalled: at most its stream limit.
 */
export class ApnsConnection {
  private session?: http2.ClientHttp2Session;
  private connecting?: Promise<http2.ClientHttp2Session>;
  /** SETTINGS_MAX_CONCURRENT_STREAMS of the current session's server. */
  private remoteLimit = Number.POSITIVE_INFINITY;
  private active = 0;
  private pending = 0;
  private readonly waiters: Array<() => void> = [];
  private readonly sessions = new Set<http2.ClientHttp2Session>();
  private closed = false;
  private warnedNoStreamTable = false;
  /** The session waiting for a PING's answer, and the timer that gives up on it. */
  private checking?: { session: http2.ClientHttp2Session; timer: NodeJS.Timeout };

  constructor(private readonly options: ApnsConnectionOptions) {}

  /** Streams in flight plus pushes waiting for one: how busy this slot is. */
  get load(): number {
    return this.active + this.pending;
  }

  /**
   * Waits for a free stream and returns the session to open it on. The caller must call
   * {@link release} once that stream is over. Throws {@link ApnsConnectionError} when no
   * session can be had.
   */
  async acquire(): Promise<http2.ClientHttp2Session> {
    this.pending++;
    try {
      for (;;) {
        const session = await this.ensureSession();
        if (this.checking?.session !== session && this.active < this.limit()) {
          this.active++;
          return session;
        }
        await new Promise<void>((resolve) => this.waiters.push(resolve));
      }
    } catch (error) {
      // This waiter may have been woken to take a free stream: hand the turn on.
      this.wakeWaiters(1);
      throw error;
    } finally {
      this.pending--;
    }
  }

  /**
   * A stream now, without waiting: the open session when it has a free stream and no push is
   * waiting for one (waiters keep their turn), else undefined (use {@link acquire}).
   */
  tryAcquire(): http2.ClientHttp2Session | undefined {
    const session = this.session;
    if (
      this.closed ||
      session === undefined ||
      session.closed ||
      session.destroyed ||
      this.checking !== undefined ||
      this.pending > 0 ||
      this.active >= this.limit()
    ) {
      return undefined;
    }
    this.active++;
    return session;
  }

  release(): void {
    this.active--;
    this.wakeWaiters(1);
  }

  /**
   * A stream on `session` went unanswered past its deadline: the session may have stalled. No
   * stream opens on it until it answers a PING; without an answer within `pingTimeoutMs` it is
   * destroyed (its streams fail and are retried elsewhere) and the next push reconnects.
   */
  suspect(session: http2.ClientHttp2Session): void {
    if (this.session !== session || this.checking !== undefined) return;
    if (session.closed || session.destroyed) return;
    const { pingTimeoutMs, logger, index } = this.options;
    const giveUp = (why: string) => {
      if (this.checking?.session !== session) return;
      this.endCheck();
      this.drop(session, why);
      session.destroy(new ApnsConnectionError(`ConnectionStalled: ${why}`));
    };
    const timer = setTimeout(
      () => giveUp(`did not answer a PING within ${pingTimeoutMs} ms`),
      pingTimeoutMs,
    );
    timer.unref();
    this.checking = { session, timer };
    const sent = session.ping((error) => {
      if (error !== null) {
        giveUp(`failed a PING: ${describeError(error)}`);
        return;
      }
      if (this.checking?.session !== session) return;
      this.endCheck();
      logger.debug?.(`APNs connection ${index} answered a PING: slow, not stalled`);
    });
    if (!sent) giveUp('could not be sent a PING');
  }

  /** Stops opening streams on `session` (the server is shutting down); it finishes gracefully. */
  retire(session: http2.ClientHttp2Session): void {
    if (this.session === session) this.drop(session, 'was retired after a Shutdown answer');
    if (!session.closed && !session.destroyed) session.close();
  }

  /** Closes every session once its streams are over; later pushes fail with ClientClosed. */
  async close(): Promise<void> {
    this.closed = true;
    this.endCheck();
    this.session = undefined;
    this.wakeWaiters(this.waiters.length);
    await Promise.all(
      [...this.sessions].map(
        (session) =>
          new Promise<void>((resolve) => {
            if (session.destroyed) return resolve();
            session.once('close', () => resolve());
            if (!session.closed) session.close();
          }),
      ),
    );
  }

  private limit(): number {
    // A server may announce 0 for a moment; one stream at a time keeps pushes moving.
    return Math.max(1, Math.min(this.options.maxConcurrentStreams, this.remoteLimit));
  }

  private wakeWaiters(count: number): void {
    for (let i = 0; i < count && this.waiters.length > 0; i++) this.waiters.shift()?.();
  }

  private ensureSession(): Promise<http2.ClientHttp2Session> {
    if (this.closed) return Promise.reject(new ApnsConnectionError('ClientClosed'));
    const session = this.session;
    if (session !== undefined && !session.closed && !session.destroyed) {
      return Promise.resolve(session);
    }
    this.connecting ??= this.connect().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private connect(): Promise<http2.ClientHttp2Session> {
    const { url, connectOptions, connectTimeoutMs, logger, index } = this.options;
    return new Promise((resolve, reject) => {
      let ready = false;
      const session = http2.connect(url, connectOptions);
      if (!adoptStreamTable(session) && !this.warnedNoStreamTable) {
        this.warnedNoStreamTable = true;
        logger.debug?.(
          "APNs connections keep node:http2's own map and set of streams on this Node version: pushes leave more garbage to V8",
        );
      }
      this.sessions.add(session);

      const fail = (error: Error): void => {
        if (ready) return;
        ready = true;
        clearTimeout(timer);
        session.destroy();
        reject(
          error instanceof ApnsConnectionError
            ? error
            : new ApnsConnectionError(`ConnectionError: ${describeError(error)}`),
        );
      };
      const timer = setTimeout(
        () => fail(new ApnsConnectionError(`ConnectTimeout: no answer in ${connectTimeoutMs} ms`)),
        connectTimeoutMs,
      );

      session.on('remoteSettings', (settings: http2.Settings) => {
        if (!ready) {
          ready = true;
          clearTimeout(timer);
          if (this.closed) {
            session.close();
            reject(new ApnsConnectionError('ClientClosed'));
            return;
          }
          this.session = session;
          logger.debug?.(`APNs connection ${index} open to ${url}`);
          resolve(session);
        }
        if (this.session !== session) return;
        const before = this.limit();
        this.remoteLimit = settings.maxConcurrentStreams ?? Number.POSITIVE_INFINITY;
        if (this.limit() > before) this.wakeWaiters(this.limit() - before);
      });
      session.on('goaway', (errorCode: number, lastStreamID: number) => {
        this.drop(session, `received GOAWAY (code ${errorCode}, last stream ${lastStreamID})`);
      });
      session.on('error', (error: Error) => {
        if (!ready) fail(error);
        else this.drop(session, `failed: ${describeError(error)}`);
      });
      session.on('close', () => {
        this.sessions.delete(session);
        if (!ready) fail(new ApnsConnectionError('ConnectionError: closed while connecting'));
        else this.drop(session, 'closed');
      });
    });
  }

  /** The PING check is over: pushes waiting for it go on (on this session or a new one). */
  private endCheck(): void {
    if (this.checking === undefined) return;
    clearTimeout(this.checking.timer);
    this.checking = undefined;
    this.wakeWaiters(this.waiters.length);
  }

  private drop(session: http2.ClientHttp2Session, why: string): void {
    if (this.session !== session) return;
    if (this.checking?.session === session) this.endCheck();
    this.session = undefined;
    this.remoteLimit = Number.POSITIVE_INFINITY;
    const level = why === 'closed' ? 'debug' : 'warn';
    this.options.logger[level]?.(
      `APNs connection ${this.options.index} ${why}; the next push reconnects`,
    );
  }
}

export function describeError(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code !== undefined && !error.message.includes(code)
      ? `${code} ${error.message}`
      : error.message;
  }
  return String(error);
}
