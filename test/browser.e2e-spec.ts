import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  chromium,
  type Browser,
  type ConsoleMessage,
  type Locator,
  type Page,
} from 'playwright-core';
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
    // The links the page hands out (the logo's signed URL) must reach this server, so its port
    // is chosen before the app is configured.
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    testApp = await startTestApp({ PUBLIC_BASE_URL: baseUrl });
    await testApp.app.listen(port, '127.0.0.1');
    screenshotDir = await mkdtemp(join(tmpdir(), 'wps-screenshots-'));
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
    });
    page = await browser.newPage({ viewport: PHONE });
    // Runs before any script of the page, outside its CSP (Playwright injects it through the
    // DevTools protocol), so it sees every violation, of styles and images too.
    // A string: the test is compiled without the DOM's types.
    await page.addInitScript({
      content: `
        const seen = [];
        Object.defineProperty(window, '__cspViolations', { value: seen });
        document.addEventListener('securitypolicyviolation', (event) => {
          seen.push(event.effectiveDirective + ' blocked ' + (event.blockedURI || 'inline'));
        });`,
    });
    page.on('console', (message: ConsoleMessage) => {
      if (message.text().includes('Content Security Policy')) consoleCsp.push(message.text());
    });
  });

  /** Console messages about the Content-Security-Policy since the last page load. */
  let consoleCsp: string[] = [];
  const violations = () => page.evaluate<string[]>('[...window.__cspViolations]');

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

    consoleCsp = [];
    const response = await page.goto(`${baseUrl}/p/${slug}`);
    expect(response?.status()).toBe(200);
    const policy = response?.headers()['content-security-policy'] ?? '';
    expect(policy).toContain("default-src 'none'");
    expect(policy).toMatch(/style-src 'sha256-[A-Za-z0-9+/]+={0,2}'/);
    expect(policy).not.toContain('unsafe-inline');
    expect(policy).toContain(`img-src ${baseUrl}`);
    // The logo (a signed /files URL) is allowed and really shown.
    await page.waitForLoadState('load');
    const logoWidth = await page.evaluate<number>(
      "document.querySelector('img.logo').naturalWidth",
    );
    expect(logoWidth).toBe(8);
    expect(await violations()).toEqual([]);
    expect(consoleCsp).toEqual([]);
    // The listener works: a style the policy does not name is refused and reported.
    await page.evaluate(`{
      const injected = document.createElement('style');
      injected.textContent = 'body { background: red; }';
      document.head.append(injected);
    }`);
    await page.waitForFunction('window.__cspViolations.length > 0');
    expect(await violations()).toEqual([
      expect.stringMatching(/^style-src(-elem)? blocked inline$/),
    ]);
    await expect(page.getByRole('heading', { name: 'Browser card' }).isVisible()).resolves.toBe(
      true,
    );
    await expectVisibleInViewport(page.getByText('Add to WalletA', { exact: true }));
    await expectVisibleInViewport(page.getByText('Add to WalletB', { exact: true }));
    const path = join(screenshotDir, 'holder-page.png');
    await page.screenshot({ path, fullPage: true });
    console.log(`Holder page screenshot: ${path}`);
  });

  it("shows a personal holder's page within its own Content-Security-Policy", async () => {
    const owner = await OwnerSession.start(testApp.server);
    const uploadInfoList = [];
    for (const fileName of ['logo.png', 'icon.png', 'strip.png']) {
      const png = makePng({ width: 8, height: 8, rgba: [60, 43, 26, 255] });
      uploadInfoList.push({ fileName, uploadKey: await owner.upload(png, fileName) });
    }
    const created = await request(testApp.server)
      .post('/v1/wallet-pass')
      .set(owner.auth)
      .send({
        passName: 'Personal card',
        passMetadata: { description: 'Member card', organizationName: 'Brand Ltd' },
        status: 'Published',
        uploadInfoList,
      })
      .expect(201);
    const holder = await request(testApp.server)
      .post(`/v1/wallet-pass/${(created.body as { id: string }).id}/holders`)
      .set(owner.auth)
      .send({ externalId: 'browser-1' })
      .expect(201);
    const { downloadUrl } = holder.body as { downloadUrl: string };

    consoleCsp = [];
    const response = await page.goto(downloadUrl);
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).toMatch(
      /style-src 'sha256-[A-Za-z0-9+/]+={0,2}'/,
    );
    await page.waitForLoadState('load');
    expect(await violations()).toEqual([]);
    expect(consoleCsp).toEqual([]);
    await expectVisibleInViewport(page.getByText('Add to WalletA', { exact: true }));
  });

  it('renders Swagger UI with its operations list, within its Content-Security-Policy', async () => {
    consoleCsp = [];
    const response = await page.goto(`${baseUrl}/docs`);
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).toContain("script-src 'self';");
    await page.locator('.opblock').first().waitFor({ state: 'visible' });
    expect(await violations()).toEqual([]);
    expect(consoleCsp).toEqual([]);
    expect(await page.locator('.opblock').count()).toBeGreaterThan(20);
    await expect(
      page.locator('.opblock-summary-path', { hasText: '/v1/wallet-pass' }).first().isVisible(),
    ).resolves.toBe(true);
    const path = join(screenshotDir, 'swagger-ui.png');
    await page.screenshot({ path });
    console.log(`Swagger UI screenshot: ${path}`);
  });
});

/** A port nobody listens on right now (the kernel's choice for port 0). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
