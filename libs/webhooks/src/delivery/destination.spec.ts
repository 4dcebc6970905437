import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LookupAddress } from 'node:dns';
import {
  forbiddenAddressKind,
  guardedLookup,
  limitedResolve,
  webhookUrlProblem,
  type ResolveAll,
} from './destination';
import { WebhookSender } from './webhook-sender';

/** A resolver answering from a table that a test may change between calls (DNS rebinding). */
function stubDns(table: Record<string, string[]>): { resolve: ResolveAll; calls: string[] } {
  const calls: string[] = [];
  const resolve: ResolveAll = (hostname, _options, callback) => {
    calls.push(hostname);
    const addresses = table[hostname];
    if (addresses === undefined) {
      callback(
        Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }),
        [],
      );
      return;
    }
    callback(
      null,
      addresses.map((address): LookupAddress => ({
        address,
        family: address.includes(':') ? 6 : 4,
      })),
    );
  };
  return { resolve, calls };
}

const STRICT = { allowHttp: false, allowPrivate: false };

describe('Webhook destinations', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.100.100.200', 'shared (carrier-grade NAT)'],
    ['169.254.169.254', 'cloud metadata'],
    ['169.254.1.1', 'link-local'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:169.254.169.254', 'cloud metadata'],
    ['::ffff:10.0.0.1', 'private'],
    ['64:ff9b::a00:1', 'private'],
    ['2002:7f00:1::1', 'loopback'],
    ['fd00::1', 'private (unique local)'],
    ['fd00:ec2::254', 'cloud metadata'],
    ['fc00::1', 'private (unique local)'],
    ['fe80::1%eth0', 'link-local'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'documentation'],
  ])('refuses %s (%s)', (address, kind) => {
    expect(forbiddenAddressKind(address)).toBe(kind);
  });

  it.each([
    '93.184.216.34',
    '8.8.8.8',
    '172.32.0.1',
    '2606:4700::1111',
    '::ffff:8.8.8.8',
    '2a00:1450::1',
  ])('lets %s through', (address) => {
    expect(forbiddenAddressKind(address)).toBeNull();
  });

  it('checks a URL when saved: scheme, then every address of its host', async () => {
    const { resolve } = stubDns({
      'hooks.example': ['93.184.216.34'],
      'mixed.example': ['93.184.216.34', '10.0.0.8'],
      'inside.example': ['::ffff:192.168.0.4'],
    });
    const problem = (url: string, rules = STRICT) => webhookUrlProblem(url, rules, resolve);
    await expect(problem('https://hooks.example/in')).resolves.toBeNull();
    await expect(problem('http://hooks.example/in')).resolves.toBe('must use https://');
    await expect(
      problem('http://hooks.example/in', { ...STRICT, allowHttp: true }),
    ).resolves.toBeNull();
    await expect(problem('ftp://hooks.example/in')).resolves.toBe('must use https://');
    await expect(problem('not a url')).resolves.toBe('must be an absolute URL');
    await expect(problem('https://mixed.example/')).resolves.toBe(
      'mixed.example resolves to 10.0.0.8, a private address',
    );
    await expect(problem('https://inside.example/')).resolves.toBe(
      'inside.example resolves to ::ffff:192.168.0.4, a private address',
    );
    await expect(problem('https://[::1]:8443/')).resolves.toBe('::1 is a loopback address');
    await expect(problem('https://169.254.169.254/latest')).resolves.toBe(
      '169.254.169.254 is a cloud metadata address',
    );
    await expect(problem('https://nowhere.example/')).resolves.toBe(
      'nowhere.example does not resolve',
    );
    await expect(
      problem('https://inside.example/', { allowHttp: false, allowPrivate: true }),
    ).resolves.toBeNull();
  });

  describe('at delivery', () => {
    let server: Server;
    let port: number;
    const received: IncomingMessage[] = [];

    beforeAll(async () => {
      server = createServer((req, res) => {
        received.push(req);
        req.resume();
        req.on('end', () => res.writeHead(204).end());
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as AddressInfo).port;
    });
    afterAll(async () => {
      await new Promise((resolve) => server.close(resolve));
    });

    const sender = (resolve: ResolveAll, allowPrivate: boolean) =>
      new WebhookSender(
        {
          webhooks: {
            allowHttp: true,
            allowPrivate,
            timeoutMs: 2000,
            retryBaseMs: 1,
            retryForMs: 1,
          },
        },
        resolve,
      );

    it('connects only to the address it checked: a host that now resolves inside is refused', async () => {
      const table: Record<string, string[]> = { 'rebind.example': ['93.184.216.34'] };
      const dns = stubDns(table);
      // Saved while it resolved to a public address...
      await expect(
        webhookUrlProblem(
          `http://rebind.example:${port}/`,
          { ...STRICT, allowHttp: true },
          dns.resolve,
        ),
      ).resolves.toBeNull();
      // ...then the name moves to the loopback address: the delivery must not reach it.
      table['rebind.example'] = ['127.0.0.1'];
      const strict = sender(dns.resolve, false);
      const outcome = await strict.send(`http://rebind.example:${port}/hook`, {}, '{}');
      strict.onApplicationShutdown();
      expect(outcome).toEqual({
        delivered: false,
        statusCode: null,
        error: 'refused: rebind.example resolves to 127.0.0.1, a loopback address',
      });
      expect(received).toHaveLength(0);
      expect(dns.calls.filter((host) => host === 'rebind.example')).toHaveLength(2);
    });

    it('refuses an IP-literal host that is private without resolving anything', async () => {
      const dns = stubDns({});
      const strict = sender(dns.resolve, false);
      const outcome = await strict.send(`http://127.0.0.1:${port}/hook`, {}, '{}');
      strict.onApplicationShutdown();
      expect(outcome.error).toBe('refused: 127.0.0.1 is a loopback address');
      expect(received).toHaveLength(0);
    });

    it('connects through the stubbed resolver when private addresses are allowed', async () => {
      const dns = stubDns({ 'receiver.test': ['127.0.0.1'] });
      const open = sender(dns.resolve, true);
      const outcome = await open.send(
        `http://receiver.test:${port}/hook`,
        { 'webhook-id': 'msg_9' },
        '{"a":1}',
      );
      open.onApplicationShutdown();
      expect(outcome).toEqual({ delivered: true, statusCode: 204, error: null });
      expect(received).toHaveLength(1);
      expect(received[0].headers['webhook-id']).toBe('msg_9');
      expect(dns.calls).toContain('receiver.test');
    });
  });

  describe('lookups at delivery', () => {
    /** A resolver whose answers the test gives, one host at a time. */
    function heldDns() {
      const pending = new Map<string, () => void>();
      const resolve: ResolveAll = (hostname, _options, callback) => {
        pending.set(hostname, () =>
          callback(null, [{ address: '93.184.216.34', family: 4 }] satisfies LookupAddress[]),
        );
      };
      return { resolve, pending };
    }
    const lookup = (resolve: ResolveAll, host: string) =>
      new Promise<string>((done) =>
        resolve(host, { all: true }, (error, addresses) =>
          done(error === null ? addresses[0].address : error.message),
        ),
      );

    it('runs two at once, the others in turn, and times out each, its wait included', async () => {
      const dns = heldDns();
      const limited = limitedResolve(dns.resolve, { concurrency: 2, timeoutMs: 200 });
      const a = lookup(limited, 'a.example');
      const b = lookup(limited, 'b.example');
      const c = lookup(limited, 'c.example');
      const d = lookup(limited, 'd.example');
      expect([...dns.pending.keys()]).toEqual(['a.example', 'b.example']);
      dns.pending.get('a.example')!();
      await expect(a).resolves.toBe('93.184.216.34');
      // a's slot went to c; b, c and d are never answered.
      expect([...dns.pending.keys()]).toEqual(['a.example', 'b.example', 'c.example']);
      await expect(b).resolves.toBe('DNS lookup of b.example timed out after 200 ms');
      await expect(c).resolves.toBe('DNS lookup of c.example timed out after 200 ms');
      await expect(d).resolves.toBe(
        'DNS lookup of d.example timed out after 200 ms (waited for one of 2 lookup slots)',
      );
      // The timed-out lookups still hold their threads: nothing else started.
      expect(dns.pending.size).toBe(3);
      const e = lookup(limited, 'e.example');
      expect(dns.pending.has('e.example')).toBe(false);
      dns.pending.get('b.example')!();
      expect(dns.pending.has('e.example')).toBe(true);
      dns.pending.get('e.example')!();
      await expect(e).resolves.toBe('93.184.216.34');
    });

    it("fails the socket's lookup with the timeout, so the attempt's error says it", async () => {
      const dns = heldDns();
      const guarded = guardedLookup(STRICT, dns.resolve, { concurrency: 2, timeoutMs: 50 });
      const error = await new Promise<NodeJS.ErrnoException | null>((done) =>
        guarded('slow.example', {}, (failure) => done(failure)),
      );
      expect(error?.message).toBe('DNS lookup of slow.example timed out after 50 ms');
    });

    it('records a slow DNS as the lastError of the attempt', async () => {
      const dns = heldDns();
      const sender = new WebhookSender(
        {
          webhooks: {
            allowHttp: true,
            allowPrivate: false,
            timeoutMs: 200,
            retryBaseMs: 1,
            retryForMs: 1,
          },
        },
        dns.resolve,
      );
      const outcome = await sender.send('http://slow.example/hook', {}, '{}');
      sender.onApplicationShutdown();
      expect(outcome).toEqual({
        delivered: false,
        statusCode: null,
        error: 'DNS lookup of slow.example timed out after 100 ms',
      });
    });
  });
});
