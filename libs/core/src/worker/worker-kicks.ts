import type { Logger } from '@nestjs/common';
import { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';

/** Announcements of one worker name closer together than this are merged into one. */
export const KICK_COALESCE_MS = 20;

/** A Redis failure is logged at most this often; polling covers for it meanwhile. */
const WARN_EVERY_MS = 60_000;

/**
 * At most one `send` per worker name per window: the first announcement goes at once, the
 * ones within the window after it become a single trailing `send` at the window's end. The
 * trailing one is kept (not dropped) because the work it announces may have been committed
 * after the tick that the first one woke had already looked.
 */
export class KickCoalescer {
  private readonly sentAt = new Map<string, number>();
  private readonly pending = new Map<string, NodeJS.Timeout>();

  constructor(
    private readonly send: (name: string) => void,
    private readonly windowMs = KICK_COALESCE_MS,
  ) {}

  announce(name: string): void {
    if (this.pending.has(name)) return;
    const since = Date.now() - (this.sentAt.get(name) ?? Number.NEGATIVE_INFINITY);
    if (since >= this.windowMs) {
      this.fire(name);
      return;
    }
    const timer = setTimeout(() => {
      this.pending.delete(name);
      this.fire(name);
    }, this.windowMs - since);
    timer.unref();
    this.pending.set(name, timer);
  }

  close(): void {
    for (const timer of this.pending.values()) clearTimeout(timer);
    this.pending.clear();
  }

  private fire(name: string): void {
    this.sentAt.set(name, Date.now());
    this.send(name);
  }
}

interface KickMessage {
  from: string;
  worker: string;
}

function parseKick(message: string): KickMessage | null {
  try {
    const parsed: unknown = JSON.parse(message);
    if (typeof parsed !== 'object' || parsed === null) return null;
    const { from, worker } = parsed as Record<string, unknown>;
    return typeof from === 'string' && typeof worker === 'string' ? { from, worker } : null;
  } catch {
    return null;
  }
}

/**
 * Kicks announced to every process through Redis pub/sub, so a worker in another process
 * (apps/worker) starts at once instead of at its next poll. Best effort only: the poll stays
 * the guarantee, so a Redis failure is logged (at most once a minute) and never thrown, and
 * ioredis reconnects (and resubscribes) by itself.
 */
export class RedisWorkerKicks {
  /** Tells this process's own messages apart: it has already kicked its own handles. */
  private readonly instance = randomUUID();
  private readonly publisher: Redis;
  private subscriber?: Redis;
  private readonly coalescer: KickCoalescer;
  private closed = false;
  private warnedAt = Number.NEGATIVE_INFINITY;
  private suppressed = 0;

  constructor(
    private readonly url: string,
    readonly channel: string,
    private readonly logger: Logger,
    windowMs = KICK_COALESCE_MS,
  ) {
    this.publisher = new Redis(url, {
      // Fail fast, never queue: a kick that cannot go now is covered by the poll.
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false,
      connectTimeout: 2000,
      // A frozen Redis (open connection, no answer) fails a publish in 1 s, not never.
      commandTimeout: 1000,
    });
    this.publisher.on('error', (error: unknown) => this.warn('publish', error));
    this.coalescer = new KickCoalescer((name) => this.publish(name), windowMs);
  }

  /** Tells the other processes to tick their worker of this name. Never throws. */
  announce(name: string): void {
    if (!this.closed) this.coalescer.announce(name);
  }

  /**
   * Subscribes (on a connection of its own: a subscribed connection runs no other command) and
   * calls `onKick` with the worker name of every other process's kick. Resolves once subscribed;
   * while Redis is away it keeps waiting (ioredis retries), so callers should not await it
   * before going on.
   */
  async listen(onKick: (worker: string) => void): Promise<void> {
    const subscriber = new Redis(this.url, {
      // Keep the SUBSCRIBE queued until Redis answers, however long that takes; once
      // subscribed, ioredis subscribes again after each reconnect.
      maxRetriesPerRequest: null,
      connectTimeout: 2000,
    });
    this.subscriber = subscriber;
    subscriber.on('error', (error: unknown) => this.warn('subscribe', error));
    subscriber.on('message', (channel: string, message: string) => {
      if (channel !== this.channel || this.closed) return;
      const kick = parseKick(message);
      if (kick === null || kick.from === this.instance) return;
      onKick(kick.worker);
    });
    try {
      await subscriber.subscribe(this.channel);
      this.logger.log(`Listening for worker kicks on Redis channel ${this.channel}`);
    } catch (error: unknown) {
      if (!this.closed) this.warn('subscribe', error);
    }
  }

  close(): void {
    this.closed = true;
    this.coalescer.close();
    // disconnect, not quit: nothing is owed to Redis, and quit would wait on a dead server.
    this.publisher.disconnect();
    this.subscriber?.disconnect();
  }

  private publish(name: string): void {
    const message = JSON.stringify({ from: this.instance, worker: name } satisfies KickMessage);
    this.publisher.publish(this.channel, message).catch((error: unknown) => {
      this.warn('publish', error);
    });
  }

  private warn(what: 'publish' | 'subscribe', error: unknown): void {
    if (this.closed) return;
    const now = Date.now();
    if (now - this.warnedAt < WARN_EVERY_MS) {
      this.suppressed += 1;
      return;
    }
    this.logger.warn(
      { err: error, suppressedSinceLast: this.suppressed },
      `Worker kicks through Redis failed (${what}); workers in other processes wait for their poll`,
    );
    this.warnedAt = now;
    this.suppressed = 0;
  }
}
