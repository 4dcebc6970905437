import { urlQrSvg } from '@app/wallet-a/holder/qr-svg';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import {
  chromium,
  type Browser,
  type BrowserContextOptions,
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
/** Kept by CI as artifacts (docs/testing.md, "Contract, golden and browser tests"): look at them after a change to the pages. */
const SCREENSHOTS = join(__dirname, '..', 'artifacts', 'screenshots');

/** A phone (touch, no hover: Chromium's mobile emulation) and a desktop browser. */
const DEVICES = {
  phone: { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true },
  desktop: { viewport: { width: 1280, height: 800 } },
} satisfies Record<string, BrowserContextOptions>;
type Device = keyof typeof DEVICES;

/** What the brand and the holder wrote: the page must show it as text, never run it. */
const HOSTILE = '<script>document.title="pwned"</script> & <b>Gold</b>';

/** Without a browser the suite is skipped, and its title says why (`.ci/run` installs one). */
const hasChromium = existsSync(CHROMIUM);
const describeWithChromium = hasChromium ? describe : describe.skip;
const skipNote = hasChromium
  ? ''
  : ` (skipped: no Chromium at ${CHROMIUM}; apt-get install chromium, or set CHROMIUM_PATH)`;

/** The holder's pages and Swagger UI, rendered by headless Chromium on a phone and a desktop. */
describeWithChromium(`pages in a browser${skipNote}`, () => {
  let testApp: TestApp;
  let baseUrl: string;
  let browser: Browser;
  const pages = {} as Record<Device, Page>;
  /** Console messages about the Content-Security-Policy, by device, since the last load. */
  const consoleCsp: Record<Device, string[]> = { phone: [], desktop: [] };

  beforeAll(async () => {
    // The links the page hands out (its own URL in the phone code) must reach this server, so
    // its port is chosen before the app is configured.
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    testApp = await startTestApp({ PUBLIC_BASE_URL: baseUrl });
    await testApp.app.listen(port, '127.0.0.1');
    await mkdir(SCREENSHOTS, { recursive: true });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
    });
    for (const device of Object.keys(DEVICES) as Device[]) {
      const context = await browser.newContext(DEVICES[device]);
      // Runs before any script of the page, outside its CSP (Playwright injects it through the
      // DevTools protocol), so it sees every violation, of styles and images too.
      // A string: the test is compiled without the DOM's types.
      await context.addInitScript({
        content: `
        const seen = [];
        Object.defineProperty(window, '__cspViolations', { value: seen });
        document.addEventListener('securitypolicyviolation', (event) => {
          seen.push(event.effectiveDirective + ' blocked ' + (event.blockedURI || 'inline'));
        });`,
      });
      const page = await context.newPage();
      page.on('console', (message: ConsoleMessage) => {
        if (message.text().includes('Content Security Policy')) {
          consoleCsp[device].push(message.text());
        }
      });
      pages[device] = page;
    }
  });

  afterAll(async () => {
    await browser?.close();
    await testApp?.close();
    console.log(`Screenshots: ${SCREENSHOTS}`);
  });

  const violations = (device: Device) =>
    pages[device].evaluate<string[]>('[...window.__cspViolations]');

  /** Opens the URL on that device; nothing the page does may break its policy. */
  async function open(device: Device, url: string): Promise<Page> {
    const page = pages[device];
    consoleCsp[device] = [];
    const response = await page.goto(url);
    expect(response?.status()).toBe(200);
    const policy = response?.headers()['content-security-policy'] ?? '';
    expect(policy).toContain("default-src 'none'");
    expect(policy).toMatch(/style-src 'sha256-[A-Za-z0-9+/]+={0,2}'/);
    expect(policy).not.toContain('unsafe-inline');
    expect(policy).toContain("img-src 'self'");
    await page.waitForLoadState('load');
    expect(await violations(device)).toEqual([]);
    expect(consoleCsp[device]).toEqual([]);
    return page;
  }

  /** The element is rendered with a non-empty box lying wholly inside the viewport. */
  async function expectVisibleInViewport(device: Device, locator: Locator): Promise<void> {
    await locator.waitFor({ state: 'visible' });
    const box = await locator.boundingBox();
    expect(box).not.toBeNull();
    if (box === null) return;
    const { width, height } = DEVICES[device].viewport;
    expect(box.width).toBeGreaterThan(0);
    expect(box.height).toBeGreaterThan(0);
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.y).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(width);
    expect(box.y + box.height).toBeLessThanOrEqual(height);
  }

  /** The label and value the page shows for a field (rendered text, as the holder reads it). */
  async function fieldText(page: Page, key: string): Promise<[string, string]> {
    const field = page.locator(`.card .field[data-key="${key}"]`);
    await field.waitFor({ state: 'visible' });
    return [await field.locator('.label').innerText(), await field.locator('.value').innerText()];
  }

  /** The natural width of the page's image (0: not loaded, e.g. refused by the policy). */
  const naturalWidth = (page: Page, selector: string) =>
    page.evaluate<number>(`document.querySelector('${selector}').naturalWidth`);

  /** A computed style of the first element the selector finds. */
  const computed = (page: Page, selector: string, property: string) =>
    page.evaluate<string>(`getComputedStyle(document.querySelector('${selector}')).${property}`);

  /** The pass's barcode is drawn (an SVG with modules) and is of this message. */
  async function expectBarcode(page: Page, message: string, caption: string): Promise<void> {
    const barcode = page.locator('.card .barcode');
    await barcode.waitFor({ state: 'visible' });
    expect(await barcode.getAttribute('data-barcode-message')).toBe(message);
    const box = await barcode.locator('svg').boundingBox();
    expect(box?.width).toBeGreaterThan(100);
    expect(box?.height).toBeCloseTo(box?.width ?? 0, 0);
    expect(await barcode.locator('svg path').count()).toBe(2);
    expect(await barcode.locator('figcaption').innerText()).toBe(caption);
  }

  /**
   * On a desktop, the "Open on your phone" block shows the library's QR code of the page's own
   * URL (`PUBLIC_BASE_URL` + path); a phone does not show it.
   */
  async function expectPhoneCode(device: Device, page: Page, url: string): Promise<void> {
    const handoff = page.locator('aside.handoff');
    if (device === 'phone') {
      expect(await handoff.isHidden()).toBe(true);
      return;
    }
    await expectVisibleInViewport(device, handoff.getByText('Open on your phone'));
    await expectVisibleInViewport(device, handoff.locator('.qr svg'));
    expect(await handoff.locator('.qr').getAttribute('data-url')).toBe(url);
    // The markup served is the library's drawing of that URL, byte for byte.
    const served = await request(testApp.server).get(new URL(url).pathname).expect(200);
    expect(served.text).toContain(await urlQrSvg(url));
  }

  async function screenshot(page: Page, name: string): Promise<void> {
    const path = join(SCREENSHOTS, `${name}.png`);
    await page.screenshot({ path, fullPage: true });
    console.log(`Screenshot: ${path}`);
  }

  /** A Published pass with a logo, an icon and a strip, its fields and its barcode. */
  async function publishPass(passName: string): Promise<{ id: string; slug: string }> {
    const owner = await OwnerSession.start(testApp.server);
    const images: [string, Buffer][] = [
      ['logo.png', makePng({ width: 160, height: 50, rgba: [255, 204, 102, 255] })],
      ['icon.png', makePng({ width: 29, height: 29, rgba: [255, 204, 102, 255] })],
      [
        'strip.png',
        makePng({
          width: 375,
          height: 123,
          rgba: [214, 93, 48, 255],
          gradientTo: [126, 34, 92, 255],
        }),
      ],
    ];
    const uploadInfoList = [];
    for (const [fileName, png] of images) {
      uploadInfoList.push({ fileName, uploadKey: await owner.upload(png, fileName) });
    }
    const created = await request(testApp.server)
      .post('/v1/wallet-pass')
      .set(owner.auth)
      .send({
        passName,
        passMetadata: {
          description: 'Loyalty card',
          organizationName: 'Brand Ltd',
          backgroundColor: '#1A2B3C',
          displayTextColor: '#FFFFFF',
          topField: { key: 'points', label: 'Points', value: '0' },
          secondaryFields: [
            { key: 'member', label: 'Member', value: 'Guest' },
            { key: 'tier', label: 'Tier', value: 'Silver' },
          ],
          qrUrl: 'https://brand.example/join',
          qrText: 'Scan to join',
        },
        status: 'Published',
        uploadInfoList,
      })
      .expect(201);
    const pass = created.body as { id: string; slug: string };
    const holder = await request(testApp.server)
      .post(`/v1/wallet-pass/${pass.id}/holders`)
      .set(owner.auth)
      .send({
        externalId: 'member-10442',
        fieldValues: { points: '1200', member: 'Ada Lovelace' },
        barcodeValue: 'https://brand.example/member/10442',
        barcodeText: 'Member 10442',
      })
      .expect(201);
    holders.set(pass.id, holder.body as { downloadUrl: string });
    return pass;
  }
  const holders = new Map<string, { downloadUrl: string }>();

  let shared: { id: string; slug: string };
  beforeAll(async () => {
    shared = await publishPass('Browser card');
  });

  it.each(Object.keys(DEVICES) as Device[])(
    "shows a Published pass's shared page as Wallet does, with both buttons (%s)",
    async (device) => {
      const url = `${baseUrl}/p/${shared.slug}`;
      const page = await open(device, url);
      await expect(page.getByRole('heading', { name: 'Browser card' }).isVisible()).resolves.toBe(
        true,
      );
      // The pass's images come from the page's own image route, allowed and really shown.
      expect(await naturalWidth(page, 'img.logo')).toBe(160);
      expect(await naturalWidth(page, 'img.strip-image')).toBe(375);
      expect(await fieldText(page, 'points')).toEqual(['POINTS', '0']);
      expect(await fieldText(page, 'member')).toEqual(['MEMBER', 'Guest']);
      expect(await fieldText(page, 'tier')).toEqual(['TIER', 'Silver']);
      // The card in the pass's colours.
      expect(await computed(page, '.card', 'backgroundColor')).toBe('rgb(26, 43, 60)');
      expect(await computed(page, '.card .value', 'color')).toBe('rgb(255, 255, 255)');
      expect(await computed(page, '.card .label', 'color')).toBe('rgb(255, 255, 255)');
      await expectBarcode(page, 'https://brand.example/join', 'Scan to join');
      if (device === 'phone') {
        await expectVisibleInViewport(device, page.getByText('Add to WalletA', { exact: true }));
        await expectVisibleInViewport(device, page.getByText('Add to WalletB', { exact: true }));
      } else {
        await expectVisibleInViewport(device, page.getByText('Add to WalletA', { exact: true }));
      }
      expect(await page.getByText('Add to WalletA').getAttribute('href')).toBe(
        `${url}/pass.pkpass`,
      );
      await expectPhoneCode(device, page, url);
      await screenshot(page, `holder-page-shared-${device}`);

      // The listener works: a style the policy does not name is refused and reported.
      await page.evaluate(`{
      const injected = document.createElement('style');
      injected.textContent = 'body { background: red; }';
      document.head.append(injected);
    }`);
      await page.waitForFunction('window.__cspViolations.length > 0');
      expect(await violations(device)).toEqual([
        expect.stringMatching(/^style-src(-elem)? blocked inline$/),
      ]);
    },
  );

  it.each(Object.keys(DEVICES) as Device[])(
    "shows a personal holder's page with the holder's values and barcode (%s)",
    async (device) => {
      const { downloadUrl } = holders.get(shared.id) ?? { downloadUrl: '' };
      expect(downloadUrl).toMatch(new RegExp(`^${baseUrl}/p/${shared.slug}/h/[A-Za-z0-9_-]+$`));
      const page = await open(device, downloadUrl);
      expect(await fieldText(page, 'points')).toEqual(['POINTS', '1200']);
      expect(await fieldText(page, 'member')).toEqual(['MEMBER', 'Ada Lovelace']);
      // No value of the holder's own: the pass's.
      expect(await fieldText(page, 'tier')).toEqual(['TIER', 'Silver']);
      await expectBarcode(page, 'https://brand.example/member/10442', 'Member 10442');
      await expectVisibleInViewport(device, page.getByText('Add to WalletA', { exact: true }));
      expect(await page.getByText('Add to WalletA').getAttribute('href')).toBe(
        `${downloadUrl}/pass.pkpass`,
      );
      await expectPhoneCode(device, page, downloadUrl);
      await screenshot(page, `holder-page-personal-${device}`);
    },
  );

  let family: Promise<{ pageUrl: string; walletAUrl: string }> | undefined;
  /** A bundle of three holders of the shared pass, made once: a family's cards. */
  const familyBundle = () => (family ??= makeFamilyBundle());
  async function makeFamilyBundle(): Promise<{ pageUrl: string; walletAUrl: string }> {
    const owner = await OwnerSession.start(testApp.server);
    const holders = `/v1/wallet-pass/${shared.id}/holders`;
    const ids: string[] = [];
    for (const [externalId, member, points] of [
      ['family-1', 'Grace Hopper', '300'],
      ['family-2', 'Alan Turing', '80'],
      ['family-3', 'Ada Byron', '15'],
    ]) {
      const holder = await request(testApp.server)
        .post(holders)
        .set(owner.auth)
        .send({
          externalId,
          fieldValues: { points, member },
          barcodeValue: `https://brand.example/member/${externalId}`,
          barcodeText: member,
        })
        .expect(201);
      ids.push((holder.body as { id: string }).id);
    }
    const made = await request(testApp.server)
      .post(`${holders}/bundle`)
      .set(owner.auth)
      .send({ holderIds: ids })
      .expect(201);
    return made.body as { pageUrl: string; walletAUrl: string };
  }

  it.each(Object.keys(DEVICES) as Device[])(
    "shows a bundle's page with every holder's pass and both buttons (%s)",
    async (device) => {
      const made = await familyBundle();
      expect(made.pageUrl).toMatch(new RegExp(`^${baseUrl}/p/${shared.slug}/b/[A-Za-z0-9_-]+$`));
      const page = await open(device, made.pageUrl);
      await expect(page.locator('.card').count()).resolves.toBe(3);
      const members = await page
        .locator('.card .field[data-key="member"] .value')
        .evaluateAll((nodes) => nodes.map((node) => node.textContent));
      expect(members).toEqual(['Grace Hopper', 'Alan Turing', 'Ada Byron']);
      const codes = await page
        .locator('.card .barcode')
        .evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-barcode-message')));
      expect(codes).toEqual(
        ['family-1', 'family-2', 'family-3'].map((id) => `https://brand.example/member/${id}`),
      );
      expect(await computed(page, '.card', 'backgroundColor')).toBe('rgb(26, 43, 60)');
      const walletA = page.getByText('Add to WalletA', { exact: true });
      const walletB = page.getByText('Add to WalletB', { exact: true });
      expect(await walletA.getAttribute('href')).toBe(made.walletAUrl);
      // Above the cards, on the first screen: one tap adds them all.
      await expectVisibleInViewport(device, walletA);
      await expectVisibleInViewport(device, walletB);
      await expectPhoneCode(device, page, made.pageUrl);
      await screenshot(page, `bundle-page-${device}`);
    },
  );

  /** A Published pass of one kind, with the logo, icon and strip of every pass here. */
  async function publishKind(
    owner: OwnerSession,
    passName: string,
    passMetadata: object,
  ): Promise<{ id: string; slug: string }> {
    const uploadInfoList = [];
    for (const [fileName, png] of [
      ['logo.png', makePng({ width: 160, height: 50, rgba: [255, 255, 255, 255] })],
      ['icon.png', makePng({ width: 29, height: 29, rgba: [255, 255, 255, 255] })],
      [
        'strip.png',
        makePng({
          width: 375,
          height: 123,
          rgba: [40, 60, 120, 255],
          gradientTo: [90, 30, 90, 255],
        }),
      ],
    ] as const) {
      uploadInfoList.push({ fileName, uploadKey: await owner.upload(png, fileName) });
    }
    const created = await request(testApp.server)
      .post('/v1/wallet-pass')
      .set(owner.auth)
      .send({ passName, passMetadata, status: 'Published', uploadInfoList })
      .expect(201);
    return created.body as { id: string; slug: string };
  }

  /** The kind section's heading, route, then each row's label and value, as the page shows them. */
  async function kindText(page: Page): Promise<string[]> {
    return page
      .locator('.kind h2, .kind .code, .kind dt, .kind dd')
      .evaluateAll((nodes) =>
        nodes.map((node) => (node.textContent ?? '').replace(/\s+/g, ' ').trim()),
      );
  }

  it('shows each kind of pass as what it is, personal copies with their own values', async () => {
    const owner = await OwnerSession.start(testApp.server);
    const base = {
      organizationName: 'Brand Ltd',
      backgroundColor: '#1A2B3C',
      displayTextColor: '#FFFFFF',
    };
    const ticket = await publishKind(owner, 'Summer Gala ticket', {
      ...base,
      description: 'Event ticket',
      passType: 'eventTicket',
      event: {
        name: 'Summer Gala',
        venueName: 'Riverside Hall',
        venueAddress: '1 River Street, Springfield',
        startTime: '2026-07-04T19:30:00+02:00',
        doorsOpen: '2026-07-04T18:45:00+02:00',
      },
      primaryFields: [{ key: 'event', label: 'Event', value: 'Summer Gala' }],
      secondaryFields: [
        { key: 'seat', label: 'Seat', value: '—' },
        { key: 'row', label: 'Row', value: '—' },
      ],
      barcodeFormat: 'PDF417',
      qrUrl: 'TICKET-0000',
    });
    const coupon = await publishKind(owner, 'Summer coupon', {
      ...base,
      description: 'Coupon',
      passType: 'coupon',
      offer: {
        title: '20 % off your next visit',
        provider: 'Brand Ltd',
        redemptionChannel: 'instore',
        finePrint: 'One per customer.',
      },
      primaryFields: [{ key: 'offer', label: 'Offer', value: '20 % off' }],
      barcodeFormat: 'Code128',
      qrUrl: 'SUMMER20',
    });
    const shuttle = await publishKind(owner, 'Airport shuttle', {
      ...base,
      description: 'Boarding pass',
      passType: 'boardingPass',
      transit: {
        transitType: 'bus',
        carrier: 'Brand Shuttle',
        number: 'S7',
        origin: { code: 'APT', name: 'Airport Terminal 2' },
        destination: { code: 'CTR', name: 'City Centre' },
        departureTime: '2026-07-04T08:00:00+02:00',
        arrivalTime: '2026-07-04T08:45:00+02:00',
      },
      primaryFields: [
        { key: 'from', label: 'Airport', value: 'APT' },
        { key: 'to', label: 'City', value: 'CTR' },
      ],
      auxiliaryFields: [{ key: 'passenger', label: 'Passenger', value: '—' }],
      qrUrl: 'SHUTTLE-0000',
    });
    const generic = await publishKind(owner, 'Staff ID', {
      ...base,
      description: 'Staff card',
      passType: 'generic',
      primaryFields: [{ key: 'name', label: 'Name', value: 'Staff' }],
      qrUrl: 'https://brand.example/staff',
    });

    const ticketHolder = await request(testApp.server)
      .post(`/v1/wallet-pass/${ticket.id}/holders`)
      .set(owner.auth)
      .send({
        externalId: 'ticket-1',
        fieldValues: { seat: '14', row: 'F' },
        barcodeValue: 'TICKET-0014F',
      })
      .expect(201);
    const page = await open('phone', (ticketHolder.body as { downloadUrl: string }).downloadUrl);
    expect(await kindText(page)).toEqual([
      'Summer Gala',
      'Date',
      'Sat 4 July 2026, 19:30',
      'Doors',
      '18:45',
      'Venue',
      'Riverside Hall 1 River Street, Springfield',
    ]);
    expect(await fieldText(page, 'seat')).toEqual(['SEAT', '14']);
    expect(await fieldText(page, 'row')).toEqual(['ROW', 'F']);
    // The ticket's own PDF417 code, drawn.
    await expect(page.locator('.card .barcode').getAttribute('data-barcode-format')).resolves.toBe(
      'PKBarcodeFormatPDF417',
    );
    await expectVisibleInViewport('phone', page.locator('.card .barcode svg'));
    await screenshot(page, 'holder-page-event-ticket-personal-phone');

    const couponPage = await open('phone', `${baseUrl}/p/${coupon.slug}`);
    expect(await kindText(couponPage)).toEqual([
      '20 % off your next visit',
      'From',
      'Brand Ltd',
      'Redeem',
      'In store',
      'Terms',
      'One per customer.',
    ]);
    await expect(couponPage.locator('.card .barcode figcaption').innerText()).resolves.toBe(
      'SUMMER20',
    );
    expect(await couponPage.locator('.card .barcode svg path').count()).toBeGreaterThan(0);
    await screenshot(couponPage, 'holder-page-coupon-phone');

    const shuttlePage = await open('phone', `${baseUrl}/p/${shuttle.slug}`);
    expect(await kindText(shuttlePage)).toEqual([
      'APT',
      'CTR',
      'Bus Brand Shuttle S7',
      'Departs',
      'Sat 4 July 2026, 08:00',
      'Arrives',
      'Sat 4 July 2026, 08:45',
    ]);
    await screenshot(shuttlePage, 'holder-page-boarding-pass-phone');

    // A flight by carrier and number: its code and number in the heading, the
    // holder's passenger, and times at each airport's clock whatever offset they were sent in.
    const flight = await publishKind(owner, 'Flight LX318', {
      ...base,
      description: 'Boarding pass',
      passType: 'boardingPass',
      transit: {
        transitType: 'air',
        carrier: 'LX',
        number: '318',
        origin: { code: 'ZRH', name: 'Zurich', timeZone: 'Europe/Zurich' },
        destination: { code: 'JFK', name: 'New York', timeZone: 'America/New_York' },
        boardingTime: '2026-05-01T12:25:00+02:00',
        departureTime: '2026-05-01T11:05:00Z',
        arrivalTime: '2026-05-01T15:55:00-04:00',
      },
      auxiliaryFields: [{ key: 'seat', label: 'Seat', value: '-' }],
      barcodeFormat: 'PDF417',
      qrUrl: 'M1RIVERA/MAYA EABC123 ZRHJFKLX 0318',
    });
    const flightHolder = await request(testApp.server)
      .post(`/v1/wallet-pass/${flight.id}/holders`)
      .set(owner.auth)
      .send({
        externalId: 'flight-1',
        fieldValues: { seat: '3A' },
        passengerName: { givenName: 'Maya', familyName: 'Rivera' },
      })
      .expect(201);
    const flightPage = await open(
      'phone',
      (flightHolder.body as { downloadUrl: string }).downloadUrl,
    );
    expect(await kindText(flightPage)).toEqual([
      'ZRH',
      'JFK',
      'Flight LX318',
      'Passenger',
      'Maya Rivera',
      'Boards',
      'Fri 1 May 2026, 12:25',
      'Departs',
      'Fri 1 May 2026, 13:05',
      'Arrives',
      'Fri 1 May 2026, 15:55',
    ]);
    expect(await fieldText(flightPage, 'seat')).toEqual(['SEAT', '3A']);
    await screenshot(flightPage, 'holder-page-flight-personal-phone');

    const genericPage = await open('phone', `${baseUrl}/p/${generic.slug}`);
    await expect(genericPage.locator('.kind').count()).resolves.toBe(0);
    expect(await fieldText(genericPage, 'name')).toEqual(['NAME', 'Staff']);
    await screenshot(genericPage, 'holder-page-generic-phone');
    // The pages keep today's policy: nothing was refused.
    expect(await violations('phone')).toEqual([]);
  });

  it.each([
    ['QR', 'https://brand.example/member/10442', 'QR code'],
    ['PDF417', 'M1RIVERA/MAYA ABC123 LHRSFOBA 0123', 'PDF417 code'],
    ['Aztec', 'TICKET-10442', 'Aztec code'],
    ['Code128', 'MEMBER-10442', 'Code 128 barcode'],
    ['EAN13', '4006381333931', 'EAN-13 barcode'],
    ['Code39', 'STAFF-0042', 'Code 39 barcode'],
    ['Codabar', 'A40156B', 'Codabar barcode'],
    ['ITF', '15400141288763', 'Interleaved 2 of 5 barcode'],
  ])('draws a %s barcode on the holder page', async (barcodeFormat, qrUrl, name) => {
    const owner = await OwnerSession.start(testApp.server);
    const pass = await publishKind(owner, `${barcodeFormat} card`, {
      description: 'Member card',
      organizationName: 'Brand Ltd',
      backgroundColor: '#1A2B3C',
      displayTextColor: '#FFFFFF',
      topField: { key: 'points', label: 'Points', value: '120' },
      barcodeFormat,
      qrUrl,
    });
    const page = await open('phone', `${baseUrl}/p/${pass.slug}`);
    const barcode = page.locator('.card .barcode');
    await expectVisibleInViewport('phone', barcode.locator('svg'));
    expect(await barcode.getAttribute('aria-label')).toBe(name);
    expect(await barcode.getAttribute('data-barcode-message')).toBe(qrUrl);
    expect(await barcode.locator('svg path').count()).toBeGreaterThan(0);
    const box = await barcode.locator('svg').boundingBox();
    expect(box?.width).toBeGreaterThan(100);
    if (barcodeFormat === 'QR' || barcodeFormat === 'Aztec') {
      expect(box?.height).toBeCloseTo(box?.width ?? 0, 0);
    } else {
      expect(box?.width).toBeGreaterThan(box?.height ?? Infinity);
    }
    // The 2D codes show no caption here (no alternative text); the linear ones their message.
    const linear = !['QR', 'PDF417', 'Aztec'].includes(barcodeFormat);
    expect(await barcode.locator('figcaption').count()).toBe(linear ? 1 : 0);
    if (linear) expect(await barcode.locator('figcaption').innerText()).toBe(qrUrl);
    await screenshot(page, `holder-page-barcode-${barcodeFormat.toLowerCase()}-phone`);
  });

  it("lists a festival's upcoming events in order, on a phone and a desktop", async () => {
    const owner = await OwnerSession.start(testApp.server);
    const festival = await publishKind(owner, 'Riverside Festival', {
      organizationName: 'Brand Ltd',
      backgroundColor: '#1A2B3C',
      displayTextColor: '#FFFFFF',
      description: 'Weekend pass',
      passType: 'eventTicket',
      event: {
        name: 'Riverside Festival',
        venueName: 'Riverside Park',
        venueAddress: '1 Park Road, Springfield',
        startTime: '2026-07-10T16:00:00+02:00',
        endTime: '2026-07-12T23:30:00+02:00',
        upcoming: [
          {
            identifier: 'day-1',
            name: 'Opening night',
            startTime: '2026-07-10T18:00:00+02:00',
            endTime: '2026-07-10T23:30:00+02:00',
            venueName: 'Main Stage',
          },
          {
            identifier: 'day-2',
            name: 'Jazz afternoon',
            startTime: '2026-07-11T14:00:00+02:00',
            endTime: '2026-07-11T18:00:00+02:00',
          },
          // Past midnight at the venue: both dates.
          {
            identifier: 'day-3',
            name: 'Closing concert',
            startTime: '2026-07-12T22:00:00+02:00',
            endTime: '2026-07-13T01:00:00+02:00',
            venueName: 'Lakeside Stage',
          },
        ],
      },
      primaryFields: [{ key: 'event', label: 'Event', value: 'Riverside Festival' }],
      secondaryFields: [{ key: 'pass', label: 'Pass', value: 'Weekend' }],
      qrUrl: 'FESTIVAL-0001',
    });
    const url = `${baseUrl}/p/${festival.slug}`;
    for (const device of Object.keys(DEVICES) as Device[]) {
      const page = await open(device, url);
      const list = page.locator('.kind ol.upcoming');
      await list.waitFor({ state: 'visible' });
      await expect(page.locator('#upcoming-title').innerText()).resolves.toMatch(
        /^upcoming events$/i,
      );
      const events = await list.locator('li.event').evaluateAll((items) =>
        items.map((item) => ({
          id: item.getAttribute('data-identifier'),
          when: item.querySelector('time')?.textContent,
          datetime: item.querySelector('time')?.getAttribute('datetime'),
          name: item.querySelector('.event-name')?.textContent,
          venue: item.querySelector('.event-venue')?.textContent,
        })),
      );
      expect(events).toEqual([
        {
          id: 'day-1',
          when: 'Fri 10 July 2026, 18:00–23:30',
          datetime: '2026-07-10T18:00:00+02:00',
          name: 'Opening night',
          venue: 'Main Stage',
        },
        {
          id: 'day-2',
          when: 'Sat 11 July 2026, 14:00–18:00',
          datetime: '2026-07-11T14:00:00+02:00',
          name: 'Jazz afternoon',
          venue: 'Riverside Park',
        },
        {
          id: 'day-3',
          when: 'Sun 12 July 2026, 22:00 – Mon 13 July 2026, 01:00',
          datetime: '2026-07-12T22:00:00+02:00',
          name: 'Closing concert',
          venue: 'Lakeside Stage',
        },
      ]);
      // Each event is laid out inside the page, none wider than the window.
      const width = DEVICES[device].viewport.width;
      for (const box of await list
        .locator('li.event')
        .evaluateAll((items) => items.map((item) => item.getBoundingClientRect().right))) {
        expect(box).toBeLessThanOrEqual(width);
      }
      // The ticket's own rows are there as before, above the list.
      expect(await kindText(page)).toEqual([
        'Riverside Festival',
        'Date',
        'Fri 10 July 2026, 16:00',
        'Ends',
        'Sun 12 July 2026, 23:30',
        'Venue',
        'Riverside Park 1 Park Road, Springfield',
      ]);
      await screenshot(page, `holder-page-festival-${device}`);
    }
    expect(await violations('phone')).toEqual([]);
    expect(await violations('desktop')).toEqual([]);
  });

  it('shows what the brand and the holder wrote as text, running none of it', async () => {
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
        passName: HOSTILE,
        passMetadata: {
          description: HOSTILE,
          organizationName: `"><img src=x>`,
          secondaryFields: [{ key: 'tier', label: HOSTILE, value: 'Basic' }],
          qrText: HOSTILE,
        },
        status: 'Published',
        uploadInfoList,
      })
      .expect(201);
    const holder = await request(testApp.server)
      .post(`/v1/wallet-pass/${(created.body as { id: string }).id}/holders`)
      .set(owner.auth)
      .send({ externalId: 'hostile-1', fieldValues: { tier: HOSTILE }, barcodeValue: HOSTILE })
      .expect(201);
    const page = await open('phone', (holder.body as { downloadUrl: string }).downloadUrl);
    expect(await page.getByRole('heading').first().innerText()).toBe(HOSTILE);
    expect(await fieldText(page, 'tier')).toEqual([HOSTILE.toUpperCase(), HOSTILE]);
    expect(await page.locator('.card .barcode figcaption').innerText()).toBe(HOSTILE);
    expect(await page.evaluate<number>('document.scripts.length')).toBe(0);
    expect(
      await page.evaluate<number>(
        'document.querySelectorAll("b, img:not(.logo):not(.strip-image)").length',
      ),
    ).toBe(0);
    expect(await page.title()).toBe(HOSTILE);
  });

  it('renders Swagger UI with its operations list, within its Content-Security-Policy', async () => {
    const page = pages.phone;
    consoleCsp.phone = [];
    const response = await page.goto(`${baseUrl}/docs`);
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).toContain("script-src 'self';");
    await page.locator('.opblock').first().waitFor({ state: 'visible' });
    expect(await violations('phone')).toEqual([]);
    expect(consoleCsp.phone).toEqual([]);
    expect(await page.locator('.opblock').count()).toBeGreaterThan(20);
    await expect(
      page.locator('.opblock-summary-path', { hasText: '/v1/wallet-pass' }).first().isVisible(),
    ).resolves.toBe(true);
    const path = join(SCREENSHOTS, 'swagger-ui.png');
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
