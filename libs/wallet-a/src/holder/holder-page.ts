import { displayText } from '@app/core';
import { createHash } from 'node:crypto';
import type { PassBarcode, PassFace, PassJsonField } from '../package/pass-json';
import type { KindDetails } from './kind-details';
import { drawBarcode } from './barcode-svg';
import { urlQrSvg } from './qr-svg';

/** One of the pass's images, served by the holder page's image route (same origin). */
export interface PageImage {
  /** The 1x file (or the smallest there is). */
  src: string;
  /** `url 1x, url 2x, …` when there are @2x/@3x files; empty when there is one file. */
  srcset: string;
}

/** One pass a page shows, as its holder sees it. */
export interface PageCard {
  /** Colours, front fields, barcode (the package's own rule). */
  face: PassFace;
  /** What the pass's kind adds (a ticket's event, a coupon's offer, a trip); null: none. */
  kind: KindDetails | null;
}

/** The pass's colours (of its face, which are the pass's for every holder). */
type PassColours = Pick<PassFace, 'backgroundColor' | 'foregroundColor' | 'labelColor'>;

/** What a page shows around the passes: the pass's texts and images, its links. */
interface PageFrame {
  /** The BCP 47 tag of the texts the page shows (its `lang`). */
  language: string;
  passName: string;
  organizationName: string;
  description: string;
  logo: PageImage | null;
  strip: PageImage | null;
  /** The page's own address (`PUBLIC_BASE_URL` + path): the "open on your phone" code. */
  pageUrl: string;
  /** Null: no longer valid (a voided holder, a bundle with none left): said, with no buttons. */
  walletAUrl: string | null;
  walletBUrl: string | null;
}

/** The page of the shared pass (`/p/{slug}`) or of one holder's copy (`/p/{slug}/h/{token}`). */
export interface HolderPageModel extends PageFrame, PageCard {
  /** A personal holder's page: its link is theirs alone, and the page says so. */
  personal: boolean;
}

/**
 * A bundle's page (`/p/{slug}/b/{token}`): several holders' passes, their
 * buttons adding them all (the `.pkpasses` bundle, the grouped WalletB link). Personal, like a
 * holder's page.
 */
export interface BundlePageModel extends PageFrame {
  /** The holders' passes still valid, in the bundle's order; none: no longer valid. */
  cards: PageCard[];
  /** The colours of every card, and of the page when none is left. */
  colours: PassColours;
}

/** What the page renderer reads: one card or several. */
interface PageModel extends PageFrame {
  cards: PageCard[];
  colours: PassColours;
  personal: boolean;
  bundle: boolean;
}

/** HTML-escaped, and without the characters no holder should see ({@link displayText}). */
function escape(text: string): string {
  return displayText(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The page and the Content-Security-Policy its own markup satisfies (and nothing more). */
export interface HolderPage {
  html: string;
  contentSecurityPolicy: string;
}

/**
 * The page's one inline `<style>` is allowed by its SHA-256, not by 'unsafe-inline': the card's
 * colours come from the pass, so the hash is computed per page, and a cached page keeps a policy
 * that matches it (a nonce would have to change with every response). No script runs; images
 * come only from this origin (the page's image route); the QR codes are inline SVG markup.
 */
function contentSecurityPolicy(style: string, hasImages: boolean): string {
  const styleHash = createHash('sha256').update(style, 'utf8').digest('base64');
  return [
    "default-src 'none'",
    `style-src 'sha256-${styleHash}'`,
    `img-src ${hasImages ? "'self'" : "'none'"}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

const HEX_COLOUR = /^#[0-9A-Fa-f]{6}$/;

/**
 * A colour for the style sheet. The API accepts only `#RRGGBB`; anything else (a row written
 * before that rule) falls back rather than reaching CSS unchecked.
 */
function colour(value: string | null, fallback: string): string {
  return value !== null && HEX_COLOUR.test(value) ? value : fallback;
}

function image(className: string, source: PageImage, alt: string): string {
  const srcset = source.srcset ? ` srcset="${escape(source.srcset)}"` : '';
  return `<img class="${className}" src="${escape(source.src)}"${srcset} alt="${escape(alt)}">`;
}

function fields(className: string, list: PassJsonField[]): string {
  if (list.length === 0) return '';
  const items = list
    .map(
      (field) => `<div class="field" data-key="${escape(field.key)}">
          <dt class="label">${escape(field.label ?? '')}</dt>
          <dd class="value">${escape(field.value)}</dd>
        </div>`,
    )
    .join('\n        ');
  return `<dl class="fields ${className}">
        ${items}
      </dl>`;
}

/**
 * The pass's kind as what it is: a boarding pass's origin → destination, then the event, offer
 * or trip with its dates (each in a `<time>` with the ISO value) and place.
 */
function kindSection(kind: KindDetails | null, titleId: string): string {
  if (kind === null) return '';
  const stop = (end: 'from' | 'to', { code, name }: { code: string; name: string }) =>
    `<div class="stop ${end}"><span class="code">${escape(code)}</span><span class="name">${escape(name)}</span></div>`;
  const route = kind.route
    ? `<div class="route" aria-label="${escape(`${kind.route.from.name} to ${kind.route.to.name}`)}">
        ${stop('from', kind.route.from)}
        <span class="arrow" aria-hidden="true">→</span>
        ${stop('to', kind.route.to)}
      </div>`
    : '';
  const rows = kind.rows
    .map((row) => {
      const value = row.dateTime
        ? `<time datetime="${escape(row.dateTime)}">${escape(row.value)}</time>`
        : escape(row.value);
      return `<div class="detail"><dt>${escape(row.label)}</dt><dd>${value}</dd></div>`;
    })
    .join('\n        ');
  return `<section class="kind" aria-labelledby="${titleId}">
      ${route}
      <h2 id="${titleId}">${escape(kind.heading)}</h2>
      <dl class="details">
        ${rows}
      </dl>${upcomingList(kind.upcoming, titleId.replace('kind-title', 'upcoming-title'))}
    </section>`;
}

/** A festival's or a season ticket's events, in order: when (a `<time>`), what and where. */
function upcomingList(upcoming: KindDetails['upcoming'], titleId: string): string {
  if (upcoming === undefined || upcoming.length === 0) return '';
  const items = upcoming
    .map(
      (event) => `<li class="event" data-identifier="${escape(event.identifier)}">
          <time datetime="${escape(event.dateTime)}">${escape(event.when)}</time>
          <span class="event-name">${escape(event.name)}</span>
          <span class="event-venue">${escape(event.venue)}</span>
        </li>`,
    )
    .join('\n        ');
  return `
      <h3 id="${titleId}">Upcoming events</h3>
      <ol class="upcoming" aria-labelledby="${titleId}">
        ${items}
      </ol>`;
}

/**
 * Wallet's look on a phone: system font, rounded card in the pass's colours, labels small and
 * upper-case in the label colour. The "open on your phone" block shows only where a fine
 * pointer that hovers meets a wide window (a desktop browser): phones and tablets match neither
 * `(pointer: fine)` nor, in portrait, the width; no user-agent sniffing.
 */
function styleSheet(face: PassColours): string {
  const background = colour(face.backgroundColor, '#ffffff');
  const foreground = colour(face.foregroundColor, '#000000');
  const label = colour(face.labelColor, foreground);
  return `
  :root { color-scheme: light; --ink: #1c1c1e; --muted: #6e6e73; }
  * { box-sizing: border-box; }
  body { margin: 0; font-family: -apple-system, BlinkMacSystemFont, system-ui, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; background: #f2f2f7; color: var(--ink); -webkit-font-smoothing: antialiased; }
  main { max-width: 24rem; margin: 0 auto; padding: 1.5rem 1rem 2.5rem; }
  .intro { margin: 0 .25rem 1.25rem; }
  .issuer { margin: 0 0 .25rem; font-size: .8rem; font-weight: 600; letter-spacing: .06em; text-transform: uppercase; color: var(--muted); }
  h1 { font-size: 1.6rem; line-height: 1.2; margin: 0; }
  .description { margin: .35rem 0 0; color: var(--muted); }
  .count { margin: .35rem 0 0; font-weight: 600; }
  .pass > .card + .card, .pass > .kind + .card { margin-top: 1.25rem; }
  .card { --pass-bg: ${background}; --pass-fg: ${foreground}; --pass-label: ${label}; background: var(--pass-bg); color: var(--pass-fg); border-radius: 14px; overflow: hidden; box-shadow: 0 1px 2px rgba(0,0,0,.08), 0 12px 32px rgba(0,0,0,.16); }
  .card-top { display: flex; align-items: center; justify-content: space-between; gap: 1rem; min-height: 3.5rem; padding: .75rem 1rem; }
  .logo { display: block; max-height: 2.5rem; max-width: 55%; object-fit: contain; object-position: left center; }
  .logo-text { font-weight: 600; font-size: 1.05rem; }
  .strip { position: relative; }
  .strip-image { display: block; width: 100%; aspect-ratio: 375 / 123; object-fit: cover; }
  .strip .primary { position: absolute; left: 1rem; bottom: .75rem; margin: 0; }
  .fields { display: flex; flex-wrap: wrap; gap: .75rem 1.5rem; margin: 0; padding: .75rem 1rem; }
  .header { padding: 0; text-align: right; flex-wrap: nowrap; }
  .field { min-width: 0; }
  .secondary .field, .auxiliary .field { flex: 1 1 0; }
  .secondary .field:last-child:not(:first-child), .auxiliary .field:last-child:not(:first-child) { text-align: right; }
  .label { margin: 0; font-size: .68rem; font-weight: 600; letter-spacing: .04em; text-transform: uppercase; color: var(--pass-label); }
  .value { margin: .1rem 0 0; font-size: 1.1rem; line-height: 1.25; white-space: pre-line; overflow-wrap: anywhere; }
  .primary .value { font-size: 2rem; font-weight: 300; }
  .header .value { font-size: 1.25rem; }
  .barcode { margin: .5rem auto 1.25rem; width: 11rem; background: #fff; color: #000; border-radius: 8px; padding: .5rem .5rem .4rem; text-align: center; }
  .barcode.linear { width: 16rem; max-width: 100%; }
  .barcode svg, .qr svg { display: block; width: 100%; height: auto; }
  .barcode figcaption { font-size: .75rem; margin-top: .2rem; overflow-wrap: anywhere; }
  .barcode-text code { display: block; font-size: .9rem; overflow-wrap: anywhere; }
  .no-barcode { height: 1rem; }
  .kind { margin-top: 1.25rem; padding: 1rem; border-radius: 14px; background: #fff; }
  .kind h2 { font-size: 1.1rem; margin: 0 0 .5rem; }
  .route { display: flex; align-items: center; justify-content: space-between; gap: .75rem; margin-bottom: .75rem; }
  .stop { display: flex; flex-direction: column; min-width: 0; }
  .stop.to { text-align: right; }
  .stop .code { font-size: 2rem; font-weight: 300; line-height: 1.1; }
  .stop .name { font-size: .8rem; color: var(--muted); overflow-wrap: anywhere; }
  .arrow { font-size: 1.5rem; color: var(--muted); }
  .details { margin: 0; display: grid; gap: .5rem; }
  .detail { display: grid; grid-template-columns: 5.5rem 1fr; gap: .75rem; }
  .detail dt { margin: 0; font-size: .75rem; font-weight: 600; letter-spacing: .04em; text-transform: uppercase; color: var(--muted); padding-top: .15rem; }
  .detail dd { margin: 0; white-space: pre-line; overflow-wrap: anywhere; }
  .kind h3 { font-size: .75rem; font-weight: 600; letter-spacing: .04em; text-transform: uppercase; color: var(--muted); margin: 1rem 0 .5rem; }
  .upcoming { list-style: none; margin: 0; padding: 0; display: grid; gap: .6rem; }
  .upcoming .event { display: grid; gap: .1rem; padding-left: .75rem; border-left: 3px solid ${background}; }
  .upcoming time { font-size: .8rem; color: var(--muted); }
  .upcoming .event-name { font-weight: 600; overflow-wrap: anywhere; }
  .upcoming .event-venue { font-size: .85rem; color: var(--muted); overflow-wrap: anywhere; }
  .voided { filter: grayscale(1); opacity: .6; }
  .actions { display: flex; flex-direction: column; gap: .75rem; margin-top: 1.5rem; }
  .pass > .actions:first-child { margin: 0 0 1.25rem; }
  .button { display: block; text-align: center; padding: .95rem 1rem; border-radius: 12px; font-weight: 600; text-decoration: none; font-size: 1rem; }
  .walleta { background: #000; color: #fff; }
  .walletb { background: #1a73e8; color: #fff; }
  .disabled { background: #d1d1d6; color: #3a3a3c; cursor: not-allowed; }
  .notice { margin: 1.5rem 0 0; padding: 1rem; border-radius: 12px; background: #fff; text-align: center; font-weight: 600; }
  .handoff { display: none; }
  @media (hover: hover) and (pointer: fine) and (min-width: 48rem) {
    main { max-width: 50rem; padding-top: 4rem; display: grid; grid-template-columns: minmax(0, 24rem) 17rem; grid-template-areas: "intro intro" "pass handoff"; column-gap: 4rem; justify-content: center; align-items: start; }
    .intro { grid-area: intro; }
    .pass { grid-area: pass; }
    .handoff { display: block; grid-area: handoff; position: sticky; top: 2rem; background: #fff; border-radius: 14px; padding: 1.5rem; text-align: center; box-shadow: 0 1px 2px rgba(0,0,0,.06), 0 8px 24px rgba(0,0,0,.08); }
    .handoff h2 { font-size: 1.15rem; margin: 0 0 .5rem; }
    .handoff p { margin: 0 0 1rem; color: var(--muted); font-size: .9rem; line-height: 1.4; }
    .handoff .qr { margin: 0 auto; width: 12rem; }
    .handoff .private { margin: 1rem 0 0; font-size: .8rem; }
  }
`;
}

/**
 * The pass's barcode in its own format (`drawBarcode`), as current phones show it, with its text
 * under it: the alternative text, else a linear code's message, as printed under such codes. A
 * message the format cannot draw is shown as text.
 */
async function barcodeFigure(barcode: PassBarcode): Promise<string> {
  const message = escape(barcode.message);
  const data = `data-barcode-format="${barcode.format}" data-barcode-message="${message}"`;
  const drawn = await drawBarcode(barcode);
  if (drawn === null) {
    return `<figure class="barcode barcode-text" ${data}>
      <code>${message}</code>
      ${barcode.altText ? `<figcaption>${escape(barcode.altText)}</figcaption>` : ''}
    </figure>`;
  }
  const caption = barcode.altText ?? (drawn.linear ? barcode.message : undefined);
  return `<figure class="barcode${drawn.linear ? ' linear' : ''}" role="img" aria-label="${drawn.name}" ${data}>
      ${drawn.svg}
      ${caption ? `<figcaption>${escape(caption)}</figcaption>` : ''}
    </figure>`;
}

/**
 * The holder's landing page: the pass as Wallet shows it (logo, header field, strip, fields,
 * barcode), then the two "add to wallet" buttons; on a desktop browser, a QR code of the page's
 * own URL to open it on the phone where the wallet is.
 */
export function renderHolderPage(model: HolderPageModel): Promise<HolderPage> {
  const { face, kind, ...frame } = model;
  return renderPage({ ...frame, cards: [{ face, kind }], colours: face, bundle: false });
}

/**
 * A bundle's page: the same page with each holder's pass, one under the other, and buttons that
 * add them all, above the passes (up to ten cards would push them far down a phone's screen).
 * What the passes' kind adds is shown once when it is the same for all of them (a family's
 * tickets to one event), else under each pass.
 */
export function renderBundlePage(model: BundlePageModel): Promise<HolderPage> {
  return renderPage({ ...model, personal: true, bundle: true });
}

/** One pass as Wallet shows it; `label` names it among the page's passes. */
async function renderCard(
  model: PageModel,
  { face }: PageCard,
  label: string,
  valid: boolean,
): Promise<string> {
  const logo = model.logo
    ? image('logo', model.logo, `${model.organizationName} logo`)
    : `<span class="logo-text">${escape(model.organizationName)}</span>`;
  const strip = model.strip
    ? `<div class="strip">
      ${image('strip-image', model.strip, '')}
      ${fields('primary', face.primaryFields)}
    </div>`
    : fields('primary', face.primaryFields);
  // A voided pass shows no barcode: it must not be scanned any more.
  const barcode =
    valid && face.barcode ? await barcodeFigure(face.barcode) : '<div class="no-barcode"></div>';
  return `<article class="card${valid ? '' : ' voided'}" aria-label="${escape(label)}">
      <div class="card-top">
        ${logo}
        ${fields('header', face.headerFields)}
      </div>
      ${strip}
      ${fields('secondary', face.secondaryFields)}
      ${fields('auxiliary', face.auxiliaryFields)}
      ${barcode}
    </article>`;
}

async function renderPage(model: PageModel): Promise<HolderPage> {
  const { cards } = model;
  const valid = model.walletAUrl !== null;
  const style = styleSheet(model.colours);
  const [first] = cards;
  const sharedKind = cards.every(
    (card) => JSON.stringify(card.kind) === JSON.stringify(first.kind),
  );
  const passes: string[] = [];
  for (const [index, card] of cards.entries()) {
    const label =
      cards.length > 1 ? `${model.passName} (${index + 1} of ${cards.length})` : model.passName;
    passes.push(await renderCard(model, card, label, valid));
    if (!sharedKind) passes.push(kindSection(card.kind, `kind-title-${index + 1}`));
  }
  if (sharedKind && first !== undefined) passes.push(kindSection(first.kind, 'kind-title'));
  const theseAre = model.bundle ? 'These passes are' : 'This pass is';
  const walletB = model.walletBUrl
    ? `<a class="button walletb" href="${escape(model.walletBUrl)}">Add to WalletB</a>`
    : `<span class="button walletb disabled" aria-disabled="true" title="WalletB is not set up for this pass">Add to WalletB</span>`;
  const actions = valid
    ? `<nav class="actions">
      <a class="button walleta" href="${escape(model.walletAUrl ?? '')}">Add to WalletA</a>
      ${walletB}
    </nav>`
    : `<p class="notice">${theseAre} no longer valid.</p>`;
  const handoff = valid
    ? `<aside class="handoff" aria-labelledby="handoff-title">
    <h2 id="handoff-title">Open on your phone</h2>
    <p>Wallet passes live on your phone. Scan this code with its camera to open this page there.</p>
    <figure class="qr" data-url="${escape(model.pageUrl)}">
      ${await urlQrSvg(model.pageUrl)}
    </figure>
    ${model.personal ? `<p class="private">${theseAre} yours alone: keep the code to yourself.</p>` : ''}
  </aside>`
    : '';
  const count =
    model.bundle && cards.length > 0 ? `\n    <p class="count">${cards.length} passes</p>` : '';
  const html = `<!doctype html>
<html lang="${escape(model.language)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escape(model.passName)}</title>
<style>${style}</style>
</head>
<body>
<main>
  <header class="intro">
    <p class="issuer">${escape(model.organizationName)}</p>
    <h1>${escape(model.passName)}</h1>
    <p class="description">${escape(model.description)}</p>${count}
  </header>
  <div class="pass">
    ${(model.bundle && valid ? [actions, ...passes] : [...passes, actions]).join('\n    ')}
  </div>
  ${handoff}
</main>
</body>
</html>`;
  return {
    html,
    contentSecurityPolicy: contentSecurityPolicy(
      style,
      model.logo !== null || model.strip !== null,
    ),
  };
}
