import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import request from 'supertest';
import { makePng } from './support/png';
import { OwnerSession } from './support/session';
import { startTestApp, type TestApp } from './support/test-app';

/** Debian's Chromium (`apt-get install chromium`); npm cannot download a browser here. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/**
 * As root on a machine with a closed network: no sandbox, no background connections.
 * Playwright gives each launch a new empty profile (--user-data-dir) of its own.
 */
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const PHONE = { width: 390, height: 844 };

/** The holder's page and Swagger UI, rendered by headless Chromium on a phone-sized viewport. */
describe('pages in a browser', () => {
  let testApp: TestApp;
  let baseUrl: string;
  let browser: Browser;
  let page: Page;
  let screenshotDir: string;

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(
        `Chromium is not installed at ${CHROMIUM}. Install Debian's package: ` +
          'apt-get update && apt-get install -y --no-install-recommends chromium ' +
          '(.ci/run does this in CI), or set CHROMIUM_PATH.',
      );
    }
    testApp = await startTestApp();
    await testApp.app.listen(0, '127.0.0.1');
    baseUrl = `http://127.0.0.1:${(testApp.server.address() as AddressInfo).port}`;
    screenshotDir = await mkdtemp(join(tmpdir(), 'wps-screenshots-'));
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
    });
    page = await browser.newPage({ viewport: PHONE });
  });

  afterAll(async () => {
    await browser?.close();
    await testApp?.close();
    if (screenshotDir) console.log(`Screenshots: ${screenshotDir}`);
  });

  /** The element is rendered with a non-empty box lying wholly inside the viewport. */
  async function expectVisibleInViewport(locator: Locator): Promise<void> {
    await locator.waitFor({ state: 'visible' });
    const box = await locator.boundingBox();
    expect(box).not.toBeNull();
    if (box === null) return;
    expect(box.width).toBeGreaterThan(0);
    expect(box.height).toBeGreaterThan(0);
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.y).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(PHONE.width);
    expect(box.y + box.height).toBeLessThanOrEqual(PHONE.height);
  }

  it("shows a Published pass's holder page with both wallet buttons", async () => {
    const owner = await OwnerSession.start(testApp.server);
    const uploadInfoList = [];
    for (const fileName of ['logo.png', 'icon.png', 'strip.png']) {
      const png = makePng({ width: 8, height: 8, rgba: [26, 43, 60, 255] });
      uploadInfoList.push({ fileName, uploadKey: await owner.upload(png, fileName) });
    }
    const created = await request(testApp.server)
      .post('/v1/wallet-pass')
      .set(owner.auth)
      .send({
        passName: 'Browser card',
        passMetadata: { description: 'Loyalty card', organizationName: 'Brand Ltd' },
        status: 'Published',
        uploadInfoList,
      })
      .expect(201);
    const { slug } = created.body as { slug: string };

    const response = await page.goto(`${baseUrl}/p/${slug}`);
    expect(response?.status()).toBe(200);
    await expect(page.getByRole('heading', { name: 'Browser card' }).isVisible()).resolves.toBe(
      true,
    );
    await expectVisibleInViewport(page.getByText('Add to WalletA', { exact: true }));
    await expectVisibleInViewport(page.getByText('Add to WalletB', { exact: true }));
    const path = join(screenshotDir, 'holder-page.png');
    await page.screenshot({ path, fullPage: true });
    console.log(`Holder page screenshot: ${path}`);
  });

  it('renders Swagger UI with its operations list', async () => {
    const response = await page.goto(`${baseUrl}/docs`);
    expect(response?.status()).toBe(200);
    await page.locator('.opblock').first().waitFor({ state: 'visible' });
    expect(await page.locator('.opblock').count()).toBeGreaterThan(20);
    await expect(
      page.locator('.opblock-summary-path', { hasText: '/v1/wallet-pass' }).first().isVisible(),
    ).resolves.toBe(true);
    const path = join(screenshotDir, 'swagger-ui.png');
    await page.screenshot({ path });
    console.log(`Swagger UI screenshot: ${path}`);
  });
});
