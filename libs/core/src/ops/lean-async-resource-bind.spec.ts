import { AsyncLocalStorage, AsyncResource, executionAsyncId } from 'node:async_hooks';
import { connect, createServer, type Http2Server } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { installLeanAsyncResourceBind } from './lean-async-resource-bind';

describe('installLeanAsyncResourceBind', () => {
  const nodeBind = Object.getOwnPropertyDescriptor(AsyncResource.prototype, 'bind');

  beforeAll(() => installLeanAsyncResourceBind());
  afterAll(() => {
    // The prototype is the process's own: later test files in this worker get Node's back.
    if (nodeBind !== undefined) Object.defineProperty(AsyncResource.prototype, 'bind', nodeBind);
    delete (AsyncResource.prototype as unknown as Record<symbol, unknown>)[
      Symbol.for('wallet-pass.leanAsyncResourceBind')
    ];
  });

  it('runs the function in the resource’s execution context, with its arguments and result', () => {
    const storage = new AsyncLocalStorage<string>();
    const resource = storage.run('at creation', () => new AsyncResource('Test'));
    const bound = resource.bind((a: number, b: number) => ({
      sum: a + b,
      store: storage.getStore(),
      asyncId: executionAsyncId(),
    }));

    const seen = storage.run('at the call', () => bound(2, 3));

    expect(seen).toEqual({ sum: 5, store: 'at creation', asyncId: resource.asyncId() });
  });

  it('passes the caller’s this, or the static bind’s thisArg, and keeps the length', () => {
    const target = { name: 'target' };
    function nameOf(this: unknown, _unused: unknown, _also: unknown): unknown {
      return (this as { name: string }).name;
    }
    const bound = new AsyncResource('Test').bind(nameOf);
    const staticBound = AsyncResource.bind(nameOf, 'Test', { name: 'thisArg' });

    expect(bound.call(target, 1, 2)).toBe('target');
    expect(staticBound(1, 2)).toBe('thisArg');
    expect(bound.length).toBe(2);
    expect(staticBound.length).toBe(2);
  });

  it('leaves out the deprecated asyncResource property (DEP0172)', () => {
    const bound = new AsyncResource('Test').bind(() => undefined);

    expect('asyncResource' in bound).toBe(false);
  });

  it('still refuses what is not a function, with Node’s error', () => {
    const resource = new AsyncResource('Test');
    const bindAnything = resource.bind.bind(resource) as (fn: unknown) => unknown;

    expect(() => bindAnything('not a function')).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_ARG_TYPE' }),
    );
  });

  it('is installed once however often it is called', () => {
    const installed = AsyncResource.prototype.bind;

    installLeanAsyncResourceBind();

    expect(AsyncResource.prototype.bind).toBe(installed);
    expect(installed).not.toBe(nodeBind?.value);
  });

  describe('node:http2 requests through it', () => {
    let server: Http2Server;
    let port: number;

    beforeAll(async () => {
      server = createServer((request, response) => {
        request.resume();
        request.on('end', () => response.end('ok'));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as AddressInfo).port;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('are answered, before and after the session connects', async () => {
      const session = connect(`http://127.0.0.1:${port}`);
      const post = (): Promise<string> =>
        new Promise((resolve, reject) => {
          const stream = session.request({ ':method': 'POST', ':path': '/' });
          let body = '';
          stream.setEncoding('utf8');
          stream.on('data', (chunk: string) => (body += chunk));
          stream.on('end', () => resolve(body));
          stream.on('error', reject);
          stream.end('{}');
        });
      try {
        // The first is queued until the session connects (`bind`'s function called later).
        const first = post();
        await new Promise((resolve) => session.once('connect', resolve));
        await expect(Promise.all([first, post()])).resolves.toEqual(['ok', 'ok']);
      } finally {
        session.close();
      }
    });
  });
});
