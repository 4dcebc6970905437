import type { Pass } from '@app/passes';
import { createHash } from 'node:crypto';
import QRCode from 'qrcode';
import { buildPassFace } from '../package/pass-json';
import {
  renderBundlePage,
  renderHolderPage,
  type BundlePageModel,
  type HolderPageModel,
} from './holder-page';
import { barcodeSvg, urlQrSvg } from './qr-svg';

const HOSTILE = '<script>alert(1)</script>';

const pass = {
  id: 'pass-1',
  slug: 'gold-card',
  deletedTime: null,
  passName: 'Gold card',
  passMetadata: {
    organizationName: 'Brand & Co',
    description: 'Loyalty card',
    backgroundColor: '#1A2B3C',
    displayTextColor: '#F0E0D0',
    topField: { key: 'points', label: 'Points', value: '0' },
    secondaryFields: [
      { key: 'tier', label: 'Tier', value: 'Basic' },
      { key: 'city', label: 'City', value: 'Paris' },
    ],
    qrUrl: 'https://brand.example/q',
    qrText: 'Member',
  },
} as unknown as Pass;

function model(overrides: Partial<HolderPageModel> = {}): HolderPageModel {
  return {
    language: 'en',
    passName: pass.passName,
    organizationName: pass.passMetadata.organizationName,
    description: pass.passMetadata.description,
    face: buildPassFace(pass),
    kind: null,
    logo: { src: '/p/gold-card/images/logo-key', srcset: '' },
    strip: {
      src: '/p/gold-card/images/strip-key',
      srcset: '/p/gold-card/images/strip-key 1x, /p/gold-card/images/strip2-key 2x',
    },
    pageUrl: 'https://wallet.test/p/gold-card',
    personal: false,
    walletAUrl: 'https://wallet.test/p/gold-card/pass.pkpass',
    walletBUrl: null,
    ...overrides,
  };
}

/** The text of the field with this key: `<dt>` label and `<dd>` value. */
function field(html: string, key: string): { label: string; value: string } | undefined {
  const match = new RegExp(
    `data-key="${key}">\\s*<dt class="label">([^<]*)</dt>\\s*<dd class="value">([^<]*)</dd>`,
  ).exec(html);
  return match ? { label: match[1], value: match[2] } : undefined;
}

describe('the holder page', () => {
  it('shows the pass as Wallet does: colours, logo, strip, fields, barcode, buttons', async () => {
    const { html, contentSecurityPolicy } = await renderHolderPage(model());
    const style = /<style>([\s\S]*?)<\/style>/.exec(html)?.[1] ?? '';
    expect(style).toContain('--pass-bg: #1A2B3C; --pass-fg: #F0E0D0; --pass-label: #F0E0D0;');
    const hash = createHash('sha256').update(style, 'utf8').digest('base64');
    expect(contentSecurityPolicy).toBe(
      `default-src 'none'; style-src 'sha256-${hash}'; img-src 'self'; base-uri 'none'; ` +
        "form-action 'none'; frame-ancestors 'none'",
    );
    expect(html).toContain(
      '<img class="logo" src="/p/gold-card/images/logo-key" alt="Brand &#38; Co logo">',
    );
    expect(html).toContain(
      'srcset="/p/gold-card/images/strip-key 1x, /p/gold-card/images/strip2-key 2x"',
    );
    expect(field(html, 'points')).toEqual({ label: 'Points', value: '0' });
    expect(field(html, 'tier')).toEqual({ label: 'Tier', value: 'Basic' });
    expect(html).toContain(await barcodeSvg(barcode()));
    expect(html).toContain('<figcaption>Member</figcaption>');
    expect(html).toContain('href="https://wallet.test/p/gold-card/pass.pkpass">Add to WalletA</a>');
    expect(html).toContain('walletb disabled');
    expect(html).not.toContain('<script');
    expect(html).not.toMatch(/ style=/);
  });

  it("shows a holder's own values and barcode, the pass's where the holder has none", async () => {
    const face = buildPassFace(pass, {
      fieldValues: { points: '1200', city: 'Lyon' },
      barcodeValue: 'member-7',
      barcodeText: null,
    });
    const { html } = await renderHolderPage(model({ face, personal: true }));
    expect(field(html, 'points')?.value).toBe('1200');
    expect(field(html, 'tier')?.value).toBe('Basic');
    expect(field(html, 'city')?.value).toBe('Lyon');
    expect(html).toContain('data-barcode-message="member-7"');
    expect(html).toContain(
      await barcodeSvg({
        format: 'PKBarcodeFormatQR',
        message: 'member-7',
        messageEncoding: 'iso-8859-1',
      }),
    );
    // Barcode text not set: the pass's.
    expect(html).toContain('<figcaption>Member</figcaption>');
    expect(html).toContain('This pass is yours alone');
  });

  it('escapes every value the brand or the holder wrote', async () => {
    const hostilePass = {
      ...pass,
      passName: HOSTILE,
      passMetadata: {
        ...pass.passMetadata,
        organizationName: `"><img src=x onerror=alert(1)>`,
        description: HOSTILE,
        topField: { key: 'points', label: HOSTILE, value: '0' },
        qrText: HOSTILE,
      },
    } as unknown as Pass;
    const face = buildPassFace(hostilePass, {
      fieldValues: { points: HOSTILE, tier: 'a\u202Egnp.exe' },
      barcodeValue: `x"><script>`,
      barcodeText: null,
    });
    const { html } = await renderHolderPage(
      model({
        passName: HOSTILE,
        organizationName: hostilePass.passMetadata.organizationName,
        description: HOSTILE,
        face,
        walletBUrl: 'https://pay.example/save?a=1&b="2"',
      }),
    );
    expect(html).not.toContain('<script');
    expect(html).not.toContain('<img src=x');
    expect(html).toContain('&#60;script&#62;alert(1)&#60;/script&#62;');
    expect(field(html, 'points')).toEqual({
      label: '&#60;script&#62;alert(1)&#60;/script&#62;',
      value: '&#60;script&#62;alert(1)&#60;/script&#62;',
    });
    expect(field(html, 'tier')?.value).toBe('agnp.exe');
    expect(html).toContain('data-barcode-message="x&#34;&#62;&#60;script&#62;"');
    expect(html).toContain('href="https://pay.example/save?a=1&#38;b=&#34;2&#34;"');
  });

  it('keeps a colour that is not #RRGGBB out of the style sheet', async () => {
    const face = { ...buildPassFace(pass), backgroundColor: 'red; } body { display: none' };
    const { html } = await renderHolderPage(model({ face }));
    expect(html).toContain('--pass-bg: #ffffff;');
    expect(html).not.toContain('display: none }');
  });

  it('offers a desktop browser a QR code of its own URL, in a block phones hide', async () => {
    const pageUrl = 'https://wallet.test/p/gold-card/h/abcdefghijklmnopqrstuvwxyz012345';
    const { html } = await renderHolderPage(model({ pageUrl, personal: true }));
    expect(html).toContain('<h2 id="handoff-title">Open on your phone</h2>');
    expect(html).toContain(`data-url="${pageUrl}"`);
    const svg = await urlQrSvg(pageUrl);
    expect(html).toContain(svg);
    // The library's own drawing of the URL, byte for byte.
    expect(svg).toBe(await QRCode.toString(pageUrl, { type: 'svg', margin: 2 }));
    expect(html).toMatch(
      /\.handoff \{ display: none; \}[\s\S]*@media \(hover: hover\) and \(pointer: fine\) and \(min-width: 48rem\) \{[\s\S]*\.handoff \{ display: block;/,
    );
  });

  it('shows a voided pass without barcode, buttons or phone code', async () => {
    const { html, contentSecurityPolicy } = await renderHolderPage(
      model({ walletAUrl: null, walletBUrl: null, logo: null, strip: null }),
    );
    expect(html).toContain('This pass is no longer valid.');
    expect(html).not.toContain('Add to WalletA');
    expect(html).not.toContain('data-barcode-message');
    expect(html).not.toContain('class="handoff"');
    expect(html).toContain('<span class="logo-text">Brand &#38; Co</span>');
    expect(contentSecurityPolicy).toContain("img-src 'none'");
  });
  it("shows a kind's details as text: route, heading, rows with their times", async () => {
    const { html } = await renderHolderPage(
      model({
        kind: {
          heading: `Flight ${HOSTILE}`,
          route: {
            from: { code: 'LHR', name: 'London Heathrow' },
            to: { code: 'SFO', name: 'San Francisco' },
          },
          rows: [
            {
              label: 'Departs',
              value: 'Fri 1 May 2026, 08:00',
              dateTime: '2026-05-01T08:00:00+01:00',
            },
            { label: 'Gate', value: HOSTILE },
          ],
        },
      }),
    );
    expect(html).not.toContain('<script>');
    expect(html).toMatch(
      /<span class="code">LHR<\/span>[\s\S]*→[\s\S]*<span class="code">SFO<\/span>/,
    );
    expect(html).toContain(
      '<h2 id="kind-title">Flight &#60;script&#62;alert(1)&#60;/script&#62;</h2>',
    );
    expect(html).toContain(
      '<dt>Departs</dt><dd><time datetime="2026-05-01T08:00:00+01:00">Fri 1 May 2026, 08:00</time></dd>',
    );
    expect(html).toContain('<dt>Gate</dt><dd>&#60;script&#62;alert(1)&#60;/script&#62;</dd>');
    expect((await renderHolderPage(model())).html).not.toContain('class="kind"');
  });

  it("lists a festival's upcoming events in order, as text, each with its time", async () => {
    const event = (identifier: string, name: string) => ({
      identifier,
      name,
      when: 'Fri 10 July 2026, 18:00–23:30',
      dateTime: '2026-07-10T18:00:00+02:00',
      venue: 'Main Stage',
    });
    const { html } = await renderHolderPage(
      model({
        kind: {
          heading: 'Riverside Festival',
          route: null,
          rows: [],
          upcoming: [event('day-1', 'Opening night'), event('day-2', HOSTILE)],
        },
      }),
    );
    expect(html).not.toContain('<script>');
    expect(html).toContain('<h3 id="upcoming-title">Upcoming events</h3>');
    expect(html).toMatch(
      /<ol class="upcoming" aria-labelledby="upcoming-title">\s*<li class="event" data-identifier="day-1">\s*<time datetime="2026-07-10T18:00:00\+02:00">Fri 10 July 2026, 18:00–23:30<\/time>\s*<span class="event-name">Opening night<\/span>\s*<span class="event-venue">Main Stage<\/span>/,
    );
    expect(html).toContain(
      '<span class="event-name">&#60;script&#62;alert(1)&#60;/script&#62;</span>',
    );
    // A ticket without events lists none.
    const plain = await renderHolderPage(
      model({ kind: { heading: 'Summer Gala', route: null, rows: [] } }),
    );
    expect(plain.html).not.toContain('class="upcoming"');
  });
});

describe("the page's barcode", () => {
  const pageOf = async (barcodeFormat: string, qrUrl: string, qrText?: string) => {
    const metadata = { ...pass.passMetadata, barcodeFormat, qrUrl, qrText };
    const face = buildPassFace({ ...pass, passMetadata: metadata } as unknown as Pass);
    return (await renderHolderPage(model({ face }))).html;
  };
  const figure = (html: string) => /<figure class="barcode[^]*?<\/figure>/.exec(html)![0];

  it.each([
    ['PDF417', 'M1PASSENGER/BRAND', 'PDF417 code', false],
    ['Aztec', 'TICKET-1', 'Aztec code', false],
    ['Code128', 'MEMBER-1', 'Code 128 barcode', true],
    ['EAN13', '4006381333931', 'EAN-13 barcode', true],
    ['Code39', 'STAFF-0042', 'Code 39 barcode', true],
    ['Codabar', 'A40156B', 'Codabar barcode', true],
    ['ITF', '15400141288763', 'Interleaved 2 of 5 barcode', true],
  ])('draws a %s code as SVG, with its text under it', async (format, message, name, linear) => {
    const html = figure(await pageOf(format, message));
    expect(html).toContain(`role="img" aria-label="${name}"`);
    expect(html).toContain(`data-barcode-message="${message}"`);
    expect(html).toMatch(/<svg [^>]*viewBox=/);
    expect(html).toContain(linear ? 'class="barcode linear"' : 'class="barcode"');
    // A linear code's message is printed under it, as on paper; a 2D code shows its alt text.
    expect(html.includes(`<figcaption>${message}</figcaption>`)).toBe(linear);
    expect(figure(await pageOf(format, message, 'Seat 12'))).toContain(
      '<figcaption>Seat 12</figcaption>',
    );
  });

  it('shows a message its format cannot draw as text instead of failing the page', async () => {
    // A holder's own value written before the pass became a Code128 pass, too long for it.
    const html = figure(await pageOf('Code128', 'x'.repeat(2048)));
    expect(html).toContain('class="barcode barcode-text"');
    expect(html).toContain(`<code>${'x'.repeat(2048)}</code>`);
    expect(html).not.toContain('<svg');
  });

  it("draws an iOS 27 holder's value that does not fit its format in the fallback", async () => {
    const metadata = { ...pass.passMetadata, barcodeFormat: 'EAN13', qrUrl: '4006381333931' };
    const face = buildPassFace({ ...pass, passMetadata: metadata } as unknown as Pass, {
      fieldValues: {},
      barcodeValue: 'member-7',
      barcodeText: null,
    });
    const html = figure((await renderHolderPage(model({ face }))).html);
    expect(html).toContain('aria-label="QR code"');
    expect(html).toContain('data-barcode-format="PKBarcodeFormatQR"');
  });
});

describe("a bundle's page", () => {
  const seat = (value: string, barcodeValue: string) =>
    buildPassFace(pass, { fieldValues: { city: value }, barcodeValue, barcodeText: null });
  const event = {
    heading: 'Summer Gala',
    route: null,
    rows: [{ label: 'Venue', value: 'Riverside Hall' }],
  };

  function bundleModel(overrides: Partial<BundlePageModel> = {}): BundlePageModel {
    const pageUrl = 'https://wallet.test/p/gold-card/b/abcdefghijklmnopqrstuvwxyz012345';
    const { language, passName, organizationName, description, logo, strip } = model();
    return {
      language,
      passName,
      organizationName,
      description,
      logo,
      strip,
      pageUrl,
      walletAUrl: `${pageUrl}/passes.pkpasses`,
      walletBUrl: 'https://pay.example/save/jwt',
      colours: buildPassFace(pass),
      cards: [
        { face: seat('Lyon', 'member-1'), kind: event },
        { face: seat('Nice', 'member-2'), kind: event },
      ],
      ...overrides,
    };
  }

  it("shows every holder's pass, the kind they share once, and buttons that add them all", async () => {
    const { html, contentSecurityPolicy } = await renderBundlePage(bundleModel());
    expect(html.match(/<article class="card"/g)).toHaveLength(2);
    expect(html).toContain('aria-label="Gold card (1 of 2)"');
    expect(html).toContain('aria-label="Gold card (2 of 2)"');
    expect(html).toContain('data-barcode-message="member-1"');
    expect(html).toContain('data-barcode-message="member-2"');
    expect(html).toContain('<p class="count">2 passes</p>');
    expect(html.match(/<section class="kind"/g)).toHaveLength(1);
    expect(html).toContain('<h2 id="kind-title">Summer Gala</h2>');
    expect(html).toContain(
      'href="https://wallet.test/p/gold-card/b/abcdefghijklmnopqrstuvwxyz012345/passes.pkpasses">Add to WalletA</a>',
    );
    expect(html).toContain('href="https://pay.example/save/jwt">Add to WalletB</a>');
    // One tap, before the cards: ten cards would push the buttons far down a phone's screen.
    expect(html.indexOf('class="actions"')).toBeLessThan(html.indexOf('<article'));
    expect(html).toContain('These passes are yours alone');
    // The holder page's policy: its one style by hash, images from its own origin.
    const style = /<style>([\s\S]*?)<\/style>/.exec(html)?.[1] ?? '';
    const hash = createHash('sha256').update(style, 'utf8').digest('base64');
    expect(contentSecurityPolicy).toBe(
      `default-src 'none'; style-src 'sha256-${hash}'; img-src 'self'; base-uri 'none'; ` +
        "form-action 'none'; frame-ancestors 'none'",
    );
    expect(html).not.toContain('<script');
  });

  it("shows what each kind adds under its own pass when they differ (a holder's own day)", async () => {
    const other = { ...event, rows: [{ label: 'Date', value: 'Sun 5 July 2026' }] };
    const { html } = await renderBundlePage(
      bundleModel({
        cards: [
          { face: seat('Lyon', 'member-1'), kind: event },
          { face: seat('Nice', 'member-2'), kind: other },
        ],
      }),
    );
    expect(html).toMatch(
      /member-1[\s\S]*id="kind-title-1"[\s\S]*member-2[\s\S]*id="kind-title-2"[\s\S]*Sun 5 July 2026/,
    );
  });

  it('says the passes are no longer valid when none is left, showing none of them', async () => {
    const { html } = await renderBundlePage(
      bundleModel({ cards: [], walletAUrl: null, walletBUrl: null }),
    );
    expect(html).toContain('These passes are no longer valid.');
    expect(html).not.toContain('<article');
    expect(html).not.toContain('Add to WalletA');
    expect(html).not.toContain('class="handoff"');
    expect(html).not.toContain('class="count"');
    expect(html).toContain('--pass-bg: #1A2B3C;');
  });
});

describe('the barcode drawing', () => {
  it('encodes the message as the package declares it (ISO-8859-1), UTF-8 where it cannot', async () => {
    const latin = await barcodeSvg({ ...barcode(), message: 'Café 10442' });
    expect(latin).toBe(await bytesSvg(Buffer.from('Café 10442', 'latin1')));
    expect(latin).not.toBe(await bytesSvg(Buffer.from('Café 10442', 'utf8')));
    const wide = await barcodeSvg({ ...barcode(), message: 'Member 😀' });
    expect(wide).toBe(await bytesSvg(Buffer.from('Member 😀', 'utf8')));
  });
});

function barcode() {
  return {
    format: 'PKBarcodeFormatQR',
    message: 'https://brand.example/q',
    messageEncoding: 'iso-8859-1',
  } as const;
}

function bytesSvg(bytes: Buffer): Promise<string> {
  return QRCode.toString([{ data: bytes, mode: 'byte' }], { type: 'svg', margin: 2 });
}
