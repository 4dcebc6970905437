import type { ChildProcess } from 'node:child_process';
import type { ApnsFakeOptions } from '../test/fakes/apns-fake';

/**
 * Requests from the bench orchestrator to its helper processes (the APNs fake, the bare HTTP/2
 * client) over Node's IPC channel, with the `advanced` serialization so Maps cross as they are.
 * Kept free of bench/lib.js and the build so the helpers load nothing they do not use.
 */

interface Envelope<C> {
  seq: number;
  command: C;
}

type Reply = { seq: number; ok: true; value: unknown } | { seq: number; ok: false; error: string };

/** One push as the fake saw it: the device token and when it arrived (ms since the epoch). */
export interface SeenPush {
  token: string;
  at: number;
}

export interface FakeStats {
  /** Pushes answered 200 per device token. */
  counts: Map<string, number>;
  /** Answers per `<status> <reason>`. */
  answers: Map<string, number>;
  firstPushAt: number | null;
  lastPushAt: number | null;
  /** The first push since the reset, headers and body as received. */
  sample: { headers: Record<string, string>; rawPayload: string } | null;
  sessionsOpened: number;
  peakConcurrentStreams: number;
  /** CPU time (user + system) the fake's process spent since the reset. */
  cpuMs: number;
}

export type FakeCommand =
  | { kind: 'start'; options: ApnsFakeOptions }
  | { kind: 'reset' }
  | { kind: 'stats' }
  | { kind: 'pushes' };

export interface FakeReplies {
  start: { url: string; maxConcurrentStreams: number };
  reset: null;
  stats: FakeStats;
  /** With `record: 'all'` only. */
  pushes: SeenPush[];
}

export interface BareRun {
  url: string;
  topic: string;
  keyPem: string;
  keyId: string;
  teamId: string;
  tokens: string[];
  /** Streams kept in flight (lowered to the server's SETTINGS_MAX_CONCURRENT_STREAMS). */
  streams: number;
}

export interface BareResult {
  ok: number;
  /** Non-200 answers and stream errors, per status or error code. */
  failed: Record<string, number>;
  streams: number;
  startedAt: number;
  endedAt: number;
  /** CPU time (user + system) of the client's process from the first push to the last answer. */
  cpuMs: number;
  /** RSS with the tokens received and the session open, before the first push. */
  startRssBytes: number;
  peakRssBytes: number;
}

export type BareCommand = { kind: 'push'; run: BareRun };

export interface BareReplies {
  push: BareResult;
}

/** The child side: answers each request with what `handle` resolves to (or its error). */
export function serve<C>(handle: (command: C) => Promise<unknown>): void {
  const send = (reply: Reply): void => {
    process.send?.(reply);
  };
  process.on('message', (message: Envelope<C>) => {
    handle(message.command).then(
      (value) => send({ seq: message.seq, ok: true, value }),
      (error: unknown) =>
        send({
          seq: message.seq,
          ok: false,
          error: error instanceof Error ? (error.stack ?? error.message) : String(error),
        }),
    );
  });
  // The orchestrator died (or is done): nothing is left to serve.
  process.on('disconnect', () => process.exit(0));
}

/** The parent side of {@link serve}. */
export class RpcClient<C extends { kind: keyof R }, R> {
  private seq = 0;
  private readonly pending = new Map<
    number,
    { resolve: (value: unknown) => void; reject: (error: Error) => void }
  >();

  constructor(
    private readonly label: string,
    private readonly child: ChildProcess,
    private readonly output: () => string,
  ) {
    child.on('message', (message: Reply) => {
      const waiter = this.pending.get(message.seq);
      if (waiter === undefined) return;
      this.pending.delete(message.seq);
      if (message.ok) waiter.resolve(message.value);
      else waiter.reject(new Error(`${this.label}: ${message.error}`));
    });
    child.once('exit', (code, signal) => {
      for (const waiter of this.pending.values()) {
        waiter.reject(
          new Error(`${this.label} exited (${signal ?? code}) mid-request:\n${this.output()}`),
        );
      }
      this.pending.clear();
    });
  }

  call<K extends C['kind']>(command: Extract<C, { kind: K }>): Promise<R[K]> {
    const seq = ++this.seq;
    return new Promise<R[K]>((resolve, reject) => {
      this.pending.set(seq, { resolve: (value) => resolve(value as R[K]), reject });
      this.child.send({ seq, command } satisfies Envelope<C>);
    });
  }
}
