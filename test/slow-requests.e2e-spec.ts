import type { AddressInfo } from 'node:net';
import { connect, type Socket } from 'node:net';
import request from 'supertest';
import { startTestApp, type TestApp } from './support/test-app';

const DEADLINE_MS = 600;

/** What came back on a raw connection, and when it closed. */
interface RawExchange {
  text: string;
  closedAfterMs: number;
}

/**
 * Sends a request's headers (announcing `declaredLength` body bytes, by default what `pieces`
 * hold) and then its body in `pieces`, `gapMs` apart, as a slow or hostile client would, and
 * collects everything the server answers until it closes the connection.
 */
function trickle(
  port: number,
  pieces: string[],
  gapMs: number,
  declaredLength = Buffer.byteLength(pieces.join('')),
): Promise<RawExchange> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket: Socket = connect(port, '127.0.0.1');
    let text = '';
    let timer: NodeJS.Timeout | undefined;
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ text, closedAfterMs: Date.now() - started });
    });
    socket.write(
      'POST /v1/auth/login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n' +
        `Content-Length: ${declaredLength}\r\nConnection: close\r\n\r\n`,
    );
    let index = 0;
    const next = () => {
      if (index >= pieces.length || socket.destroyed) return;
      socket.write(pieces[index++]);
      timer = setTimeout(next, gapMs);
    };
    next();
  });
}

describe('Slow requests', () => {
  let testApp: TestApp;
  let port: number;

  beforeAll(async () => {
    testApp = await startTestApp({ HTTP_REQUEST_TIMEOUT_MS: String(DEADLINE_MS) });
    await new Promise<void>((resolve) => testApp.server.listen(0, '127.0.0.1', resolve));
    port = (testApp.server.address() as AddressInfo).port;
  });
  afterAll(() => testApp.close());

  it('answers 408 and closes the connection when a body stops arriving', async () => {
    const exchange = await trickle(port, ['{"email":'], 10_000, 100);
    expect(exchange.text).toMatch(/^HTTP\/1\.1 408 /);
    expect(exchange.text).toMatch(/"errorCode":"REQUEST_TIMEOUT"/);
    expect(exchange.closedAfterMs).toBeGreaterThanOrEqual(DEADLINE_MS - 50);
    expect(exchange.closedAfterMs).toBeLessThan(DEADLINE_MS + 1500);
  });

  it('does not let a body trickled a byte at a time hold the connection', async () => {
    const body = JSON.stringify({ email: 'someone@test.example', password: 'x'.repeat(40) });
    const exchange = await trickle(port, [...body], 50);
    expect(exchange.text).toMatch(/^HTTP\/1\.1 408 /);
    expect(exchange.closedAfterMs).toBeLessThan(DEADLINE_MS + 1500);
  });

  it('serves a body that arrives in pieces within the deadline', async () => {
    const body = JSON.stringify({ email: 'nobody@test.example', password: 'wrong-password-1' });
    const exchange = await trickle(port, [body.slice(0, 10), body.slice(10)], 100);
    expect(exchange.text).toMatch(/^HTTP\/1\.1 401 /);
  });

  it('keeps answering others while slow clients hold connections', async () => {
    const slow = Array.from({ length: 20 }, () => trickle(port, ['{'], 10_000, 100));
    const started = Date.now();
    await request(testApp.server).get('/health').expect(200);
    expect(Date.now() - started).toBeLessThan(1000);
    for (const exchange of await Promise.all(slow)) expect(exchange.text).toMatch(/ 408 /);
  });
});
