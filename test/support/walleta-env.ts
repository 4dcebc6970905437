import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import type { Server } from 'node:http';
import { ApnsFake, type ApnsFakeOptions } from '../fakes/apns-fake';
import { newId } from '@app/core';
import { binaryBody } from './pkpass';
import { makePng } from './png';
import { OwnerSession } from './session';
import { startTestApp, type TestApp } from './test-app';
import { createApnsSigningKey } from './test-certificates';

export const PASS_TYPE_ID = 'pass.example.e2e';
const TEAM_ID = 'TEAME2E001';
const KEY_ID = 'KEYE2E0001';

/** A device token as APNs hands them out: 32 bytes in hex. */
export const deviceToken = (n: number): string => n.toString(16).padStart(64, 'a');

/**
 * An APNs fake that checks provider tokens, and the settings that point the service at it
 * (token auth with a fresh .p8 key, development signing material in a temporary folder).
 * `fake` sets more of the fake's options (the streams it allows, say).
 */
export async function startWalletAEnv(
  fake: Pick<ApnsFakeOptions, 'maxConcurrentStreams'> = {},
): Promise<{
  apns: ApnsFake;
  env: Record<string, string>;
  certDir: string;
}> {
  const key = createApnsSigningKey();
  const apns = await ApnsFake.start({
    ...fake,
    topic: PASS_TYPE_ID,
    tokenAuth: { publicKeyPem: key.publicKeyPem, keyId: KEY_ID, teamId: TEAM_ID },
  });
  const certDir = mkdtempSync(join(tmpdir(), 'wps-wallet-a-'));
  const keyPath = join(certDir, 'AuthKey.p8');
  writeFileSync(keyPath, key.privateKeyPem);
  return {
    apns,
    certDir,
    env: {
      WALLET_A_PASS_TYPE_ID: PASS_TYPE_ID,
      WALLET_A_TEAM_ID: TEAM_ID,
      WALLET_A_DEV_CERT_DIR: certDir,
      WALLET_A_APNS_URL: apns.url,
      WALLET_A_APNS_KEY: keyPath,
      WALLET_A_APNS_KEY_ID: KEY_ID,
    },
  };
}

/** A test app whose WalletA goes to an APNs fake, with its owner signed in. */
export interface WalletAApp {
  testApp: TestApp;
  owner: OwnerSession;
  apns: ApnsFake;
  /** The development CA that signs packages, to verify them with. */
  caPem(): string;
  close(): Promise<void>;
}

export async function startWalletAApp(env: Record<string, string> = {}): Promise<WalletAApp> {
  const walletA = await startWalletAEnv();
  const testApp = await startTestApp({ ...walletA.env, ...env });
  return {
    testApp,
    owner: await OwnerSession.start(testApp.server),
    apns: walletA.apns,
    caPem: () => readFileSync(join(walletA.certDir, 'dev-ca.pem'), 'utf8'),
    close: async () => {
      await testApp.close();
      await walletA.apns.close();
    },
  };
}

/** Reads the pass's authenticationToken from its package, as a device would after adding it. */
export async function passAuthToken(server: Server, slug: string): Promise<string> {
  return packageAuthToken(server, `/p/${slug}/pass.pkpass`);
}

/**
 * Reads the authenticationToken from the package at `path` (a pass's `/p/{slug}/pass.pkpass`,
 * or a holder's `{downloadUrl}/pass.pkpass` path), downloaded with `headers` (e.g. the
 * `X-Forwarded-For` of the phone that adds it).
 */
export async function packageAuthToken(
  server: Server,
  path: string,
  headers: Record<string, string> = {},
): Promise<string> {
  const response = await request(server)
    .get(path)
    .set(headers)
    .buffer(true)
    .parse(binaryBody)
    .expect(200);
  const zip = response.body as Buffer;
  const match = /"authenticationToken":"([^"]+)"/.exec(zip.toString('latin1'));
  if (!match) throw new Error('No authenticationToken in the package');
  return match[1];
}

/**
 * Runs `work` on every item with at most `concurrency` calls in flight (a crowd of phones
 * without one connection per phone at once); items start in order.
 */
export async function forEachLimited<T>(
  items: readonly T[],
  concurrency: number,
  work: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      await work(items[index], index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, lane));
}

/** Registers a device for a pass through Apple's web service, as Wallet does. */
export async function registerDevice(
  server: Server,
  passId: string,
  authToken: string,
  device: string,
  pushToken: string,
): Promise<void> {
  await request(server)
    .post(`/passkit/v1/devices/${device}/registrations/${PASS_TYPE_ID}/${passId}`)
    .set('Authorization', `ApplePass ${authToken}`)
    .send({ pushToken })
    .expect(201);
}

export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 20_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

let deviceSeed = 0;

/**
 * A Published pass (logo, icon and strip uploaded as a user would) with `devices` WalletA
 * devices registered through Apple's web service, each with its own push token.
 */
export async function publishedPassWithDevices(
  owner: OwnerSession,
  devices: number,
  fields: { passName?: string; notificationHeader?: string; passMetadata?: object } = {},
): Promise<{ pass: { id: string; slug: string }; tokens: string[]; authToken: string }> {
  const images = [];
  for (const fileName of ['logo.png', 'icon.png', 'strip.png']) {
    images.push({ fileName, uploadKey: await owner.upload(makePng(), fileName) });
  }
  const pass = (
    await request(owner.server)
      .post('/v1/wallet-pass')
      .set(owner.auth)
      .send({
        passName: fields.passName ?? `Pass ${newId()}`,
        passMetadata: fields.passMetadata ?? { description: 'Card', organizationName: 'Brand' },
        notificationHeader: fields.notificationHeader ?? 'Brand news',
        status: 'Published',
        uploadInfoList: images,
      })
      .expect(201)
  ).body as { id: string; slug: string };
  const authToken = await passAuthToken(owner.server, pass.slug);
  const tokens: string[] = [];
  for (let i = 0; i < devices; i++) {
    const token = deviceToken(++deviceSeed);
    tokens.push(token);
    await registerDevice(owner.server, pass.id, authToken, `device-${deviceSeed}`, token);
  }
  return { pass, tokens, authToken };
}

/** Sends a notification of the pass ("send now") and waits until its delivery finished. */
export async function notifyAndWait(
  owner: OwnerSession,
  passId: string,
  fields: Record<string, unknown>,
): Promise<Record<string, unknown> & { id: string }> {
  const created = await request(owner.server)
    .post('/v1/wallet-pass/notifications')
    .set(owner.auth)
    .send({ passSerialNumber: passId, notificationName: 'Notification', ...fields })
    .expect(201);
  const id = (created.body as { id: string }).id;
  let body: Record<string, unknown> & { id: string } = { id };
  await waitFor(async () => {
    body = (
      await request(owner.server)
        .get(`/v1/wallet-pass/notifications/${id}`)
        .set(owner.auth)
        .expect(200)
    ).body as Record<string, unknown> & { id: string };
    return body.publishedTime !== null;
  }, 'the notification to finish');
  return body;
}
