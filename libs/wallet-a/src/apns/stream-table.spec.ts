import fc from 'fast-check';
import * as http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { adoptStreamTable, PendingStreams, StreamTable } from './stream-table';

type Operation = { kind: 'set'; id: number; value: string } | { kind: 'delete'; id: number };

/** Small ids, and ids 128 apart, which share a home slot whatever the table's size: long runs. */
const streamId = fc.oneof(
  fc.integer({ min: 1, max: 40 }),
  fc.integer({ min: 0, max: 40 }).map((n) => 3 + 128 * n),
);
const operation: fc.Arbitrary<Operation> = fc.oneof(
  fc.record({ kind: fc.constant('set' as const), id: streamId, value: fc.string() }),
  fc.record({ kind: fc.constant('delete' as const), id: streamId }),
);

/** Stream ids as a client hands them out while some stay open: 1, 3, 5, … */
const clientIds = (count: number): number[] => Array.from({ length: count }, (_, n) => 2 * n + 1);

describe('StreamTable', () => {
  it('answers like a Map after any sequence of sets and deletes', () => {
    fc.assert(
      fc.property(fc.array(operation, { maxLength: 400 }), (operations) => {
        const table = new StreamTable<string>();
        const map = new Map<number, string>();
        for (const step of operations) {
          if (step.kind === 'set') {
            expect(table.set(step.id, step.value)).toBe(table);
            map.set(step.id, step.value);
          } else {
            expect(table.delete(step.id)).toBe(map.delete(step.id));
          }
        }
        expect(table.size).toBe(map.size);
        for (const { id } of operations) {
          expect(table.get(id)).toBe(map.get(id));
          expect(table.has(id)).toBe(map.has(id));
        }
        const byId = (a: [number, string], b: [number, string]) => a[0] - b[0];
        expect([...table].sort(byId)).toEqual([...map].sort(byId));
      }),
      { numRuns: 500 },
    );
  });

  it('keeps every stream reachable through growth and deletes in the middle of probe runs', () => {
    const table = new StreamTable<string>();
    // Ids 128 apart share a home slot in a table of 64 or 128 slots: long probe runs.
    const ids = [...clientIds(600), ...clientIds(40).map((id) => id + 4096)];
    for (const id of ids) table.set(id, `stream ${id}`);
    const removed = ids.filter((_, n) => n % 3 === 0);
    for (const id of removed) expect(table.delete(id)).toBe(true);

    expect(table.size).toBe(ids.length - removed.length);
    for (const id of ids) {
      expect(table.get(id)).toBe(removed.includes(id) ? undefined : `stream ${id}`);
    }
  });

  it('deletes at the end of the table, where probe runs wrap around to its start', () => {
    // In the first 64 slots, 127 and 255 belong in the last slot and 1 in the first one.
    const table = new StreamTable<string>().set(127, 'a').set(1, 'b').set(255, 'c');

    expect(table.delete(127)).toBe(true);

    expect([table.get(1), table.get(255), table.get(127)]).toEqual(['b', 'c', undefined]);
    expect(table.delete(1)).toBe(true);
    expect(table.get(255)).toBe('c');
  });

  it('visits every stream when the callback deletes, as destroying a stream does', () => {
    const table = new StreamTable<string>();
    for (const id of clientIds(100)) table.set(id, `stream ${id}`);
    const visited: number[] = [];

    table.forEach((stream, id, same) => {
      expect(same).toBe(table);
      expect(stream).toBe(`stream ${id}`);
      visited.push(id);
      table.delete(id);
    });

    expect(visited.sort((a, b) => a - b)).toEqual(clientIds(100));
    expect(table.size).toBe(0);
  });

  it('lists keys and values, and empties on clear', () => {
    const table = new StreamTable<string>().set(3, 'c').set(1, 'a');

    expect([...table.keys()].sort()).toEqual([1, 3]);
    expect([...table.values()].sort()).toEqual(['a', 'c']);
    table.clear();
    expect(table.size).toBe(0);
    expect(table.get(1)).toBeUndefined();
    expect(Object.prototype.toString.call(table)).toBe('[object StreamTable]');
  });

  it('refuses ids that are not HTTP/2 stream ids, and finds none of them', () => {
    const table = new StreamTable<string>().set(1, 'a');
    for (const id of [0, -1, 1.5, 2 ** 31, Number.NaN]) {
      expect(() => table.set(id, 'x')).toThrow(RangeError);
      expect(table.get(id)).toBeUndefined();
      expect(table.has(id)).toBe(false);
      expect(table.delete(id)).toBe(false);
    }
    expect(table.size).toBe(1);
  });
});

describe('PendingStreams', () => {
  it('answers like a Set after any sequence of adds and deletes, and lets forEach delete', () => {
    const step = fc.record({ add: fc.boolean(), stream: fc.integer({ min: 0, max: 12 }) });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 200 }), (steps) => {
        const pending = new PendingStreams<number>();
        const set = new Set<number>();
        for (const { add, stream } of steps) {
          if (add) expect(pending.add(stream)).toBe(pending);
          else expect(pending.delete(stream)).toBe(set.delete(stream));
          if (add) set.add(stream);
          expect(pending.size).toBe(set.size);
        }
        for (let stream = 0; stream <= 12; stream++) {
          expect(pending.has(stream)).toBe(set.has(stream));
        }
        const seen: number[] = [];
        pending.forEach((stream) => {
          seen.push(stream);
          pending.delete(stream);
        });
        expect(seen.sort((a, b) => a - b)).toEqual([...set].sort((a, b) => a - b));
        expect(pending.size).toBe(0);
      }),
      { numRuns: 300 },
    );
  });
});

describe('adoptStreamTable', () => {
  let server: http2.Http2Server;
  let url: string;

  beforeAll(async () => {
    server = http2.createServer({ settings: { maxConcurrentStreams: 100 } });
    server.on('stream', (stream, headers) => {
      stream.resume();
      if (headers[':path'] === '/hang') return;
      stream.on('end', () => stream.respond({ ':status': 200 }, { endStream: true }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const request = (session: http2.ClientHttp2Session, path: string) =>
    new Promise<number | string>((resolve) => {
      const stream = session.request({ ':method': 'POST', ':path': path });
      let status: number | string = 'no answer';
      stream.on('response', (headers) => (status = Number(headers[':status'])));
      stream.on('error', (error: NodeJS.ErrnoException) => (status = error.code ?? 'error'));
      stream.on('close', () => resolve(status));
      stream.resume();
      stream.end('{}');
    });

  type SessionState = { streams: unknown; pendingStreams: unknown };
  const stateOf = (session: http2.ClientHttp2Session): SessionState | undefined => {
    const state = Object.getOwnPropertySymbols(session).find((key) => key.description === 'state');
    return state === undefined
      ? undefined
      : (session as unknown as Record<symbol, SessionState>)[state];
  };
  const streamsOf = (session: http2.ClientHttp2Session): unknown => stateOf(session)?.streams;
  const pendingOf = (session: http2.ClientHttp2Session): unknown =>
    stateOf(session)?.pendingStreams;

  it('takes over the streams of a new session, which then answer as before', async () => {
    const session = http2.connect(url);
    try {
      expect(adoptStreamTable(session)).toBe(true);
      expect(streamsOf(session)).toBeInstanceOf(StreamTable);
      expect(pendingOf(session)).toBeInstanceOf(PendingStreams);

      // Three times the server's limit at once, made before the session is connected (so they
      // wait unnumbered first): streams wait, open and close in every order.
      const statuses = await Promise.all(Array.from({ length: 300 }, () => request(session, '/')));

      expect(statuses).toEqual(Array(300).fill(200));
      expect((streamsOf(session) as StreamTable<unknown>).size).toBe(0);
      expect((pendingOf(session) as PendingStreams<unknown>).size).toBe(0);
    } finally {
      session.destroy();
    }
  });

  it('lets a session that is destroyed close the streams it still has', async () => {
    const session = http2.connect(url);
    session.on('error', () => undefined);
    expect(adoptStreamTable(session)).toBe(true);
    await new Promise((resolve) => session.once('remoteSettings', resolve));
    const hanging = Array.from({ length: 5 }, () => request(session, '/hang'));
    await new Promise((resolve) => setTimeout(resolve, 50));

    session.destroy();

    expect(await Promise.all(hanging)).toEqual(Array(5).fill('no answer'));
    expect((streamsOf(session) as StreamTable<unknown>).size).toBe(0);
  });

  it('cancels the streams still unnumbered when a connecting session is destroyed', async () => {
    const session = http2.connect(url);
    session.on('error', () => undefined);
    expect(adoptStreamTable(session)).toBe(true);
    const waiting = Array.from({ length: 5 }, () => request(session, '/'));
    expect((pendingOf(session) as PendingStreams<unknown>).size).toBe(5);

    session.destroy();

    expect(await Promise.all(waiting)).toEqual(Array(5).fill('ERR_HTTP2_STREAM_CANCEL'));
    expect((pendingOf(session) as PendingStreams<unknown>).size).toBe(0);
  });

  it('changes nothing on what is not a new session with such a map', () => {
    const session = http2.connect(url);
    try {
      const notASession = {} as http2.ClientHttp2Session;
      expect(adoptStreamTable(notASession)).toBe(false);
      expect(adoptStreamTable(session)).toBe(true);
      const table = streamsOf(session) as StreamTable<http2.ClientHttp2Stream>;
      table.set(1, {} as http2.ClientHttp2Stream);
      // A session already in use keeps its table.
      expect(adoptStreamTable(session)).toBe(false);
      expect(streamsOf(session)).toBe(table);
      table.delete(1);
    } finally {
      session.destroy();
    }
  });
});
