import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GoogleRootKeys, RootKeysUnavailableError } from './root-keys';

describe('GoogleRootKeys while Google cannot be reached', () => {
  let server: Server;
  let url: string;
  let fetches = 0;
  let healthy = false;

  beforeAll(async () => {
    server = createServer((_request, response) => {
      fetches += 1;
      if (!healthy) return void response.writeHead(500).end();
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({ keys: [{ keyValue: 'key', protocolVersion: 'ECv2SigningOnly' }] }),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/keys`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it('backs off between failed fetches instead of fetching for every callback', async () => {
    let now = 1_000_000;
    const keys = new GoogleRootKeys(url, { now: () => now });

    await expect(keys.current()).rejects.toBeInstanceOf(RootKeysUnavailableError);
    expect(fetches).toBe(1);
    // Callbacks arriving in the next second are refused without another fetch.
    for (let i = 0; i < 20; i += 1) {
      await expect(keys.current()).rejects.toThrow('status 500');
    }
    expect(fetches).toBe(1);

    now += 1000;
    await expect(keys.current()).rejects.toBeInstanceOf(RootKeysUnavailableError);
    expect(fetches).toBe(2);
    now += 1999; // the second failure doubled the wait to 2 s
    await expect(keys.current()).rejects.toBeInstanceOf(RootKeysUnavailableError);
    expect(fetches).toBe(2);

    healthy = true;
    now += 1;
    await expect(keys.current()).resolves.toEqual([
      { keyValue: 'key', protocolVersion: 'ECv2SigningOnly' },
    ]);
    expect(fetches).toBe(3);
  });
});
