import { createPrivateKey, randomUUID, sign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import * as http2 from 'node:http2';
import { installLeanAsyncResourceBind } from '../libs/core/src/ops/lean-async-resource-bind';
import { serve, type BareCommand, type BareReplies, type BareResult, type BareRun } from './rpc';

/**
 * The fan-out baseline: the fewest moving parts that push a list of tokens to APNs fast. One
 * HTTP/2 session, a fixed number of streams in flight (a finished stream starts the next
 * push), one provider token for the whole run, the request the worker sends (same path,
 * headers and `{}` body), no retries, no database. Runs in a process of its own, like the
 * worker. With BENCH_BARE_LEAN_BIND=1 it installs the worker's `AsyncResource.bind` (see
 * libs/core/src/ops/lean-async-resource-bind.ts), for a like-for-like comparison.
 */

function providerToken(run: BareRun): string {
  const part = (value: object): string => Buffer.from(JSON.stringify(value)).toString('base64url');
  const unsigned = `${part({ alg: 'ES256', kid: run.keyId })}.${part({
    iss: run.teamId,
    iat: Math.floor(Date.now() / 1000),
  })}`;
  const signature = sign('sha256', Buffer.from(unsigned), {
    key: createPrivateKey(run.keyPem),
    dsaEncoding: 'ieee-p1363',
  });
  return `${unsigned}.${signature.toString('base64url')}`;
}

function rssBytes(): number {
  const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'));
  return match === null ? process.memoryUsage.rss() : Number(match[1]) * 1024;
}

async function push(run: BareRun): Promise<BareResult> {
  const session = http2.connect(run.url);
  const settings = await new Promise<http2.Settings>((resolve, reject) => {
    session.once('remoteSettings', resolve);
    session.once('error', reject);
  });
  const streams = Math.max(
    1,
    Math.min(run.streams, settings.maxConcurrentStreams ?? Number.POSITIVE_INFINITY),
  );
  const authorization = `bearer ${providerToken(run)}`;
  const body = Buffer.from('{}');
  const failed: Record<string, number> = {};
  const fail = (why: string): void => {
    failed[why] = (failed[why] ?? 0) + 1;
  };
  const startRssBytes = rssBytes();
  let peakRssBytes = startRssBytes;
  const sampler = setInterval(() => (peakRssBytes = Math.max(peakRssBytes, rssBytes())), 100);

  const startedAt = Date.now();
  const cpuAtStart = process.cpuUsage();
  const ok = await new Promise<number>((resolve) => {
    let next = 0;
    let inFlight = 0;
    let accepted = 0;
    const start = (): void => {
      const token = run.tokens[next++];
      inFlight++;
      const stream = session.request({
        ':method': 'POST',
        ':path': `/3/device/${token}`,
        'apns-topic': run.topic,
        'apns-push-type': 'background',
        'apns-priority': '5',
        'apns-id': randomUUID(),
        'content-type': 'application/json',
        'content-length': body.length,
        authorization,
      });
      let status = 0;
      stream.on('response', (headers) => (status = Number(headers[':status'])));
      stream.on('error', (error: NodeJS.ErrnoException) => fail(error.code ?? error.message));
      stream.resume();
      stream.on('close', () => {
        inFlight--;
        if (status === 200) accepted++;
        else if (status !== 0) fail(String(status));
        if (next < run.tokens.length) start();
        else if (inFlight === 0) resolve(accepted);
      });
      stream.end(body);
    };
    while (inFlight < streams && next < run.tokens.length) start();
    if (run.tokens.length === 0) resolve(0);
  });
  const endedAt = Date.now();
  const cpu = process.cpuUsage(cpuAtStart);
  clearInterval(sampler);
  peakRssBytes = Math.max(peakRssBytes, rssBytes());
  await new Promise<void>((resolve) => session.close(resolve));
  return {
    ok,
    failed,
    streams,
    startedAt,
    endedAt,
    cpuMs: (cpu.user + cpu.system) / 1000,
    startRssBytes,
    peakRssBytes,
  };
}

if (process.env.BENCH_BARE_LEAN_BIND === '1') installLeanAsyncResourceBind();

serve<BareCommand>(async (command): Promise<BareReplies[BareCommand['kind']]> => push(command.run));
