import { displayText } from '@app/core';
import { createHash } from 'node:crypto';

export interface HolderPageModel {
  passName: string;
  organizationName: string;
  description: string;
  backgroundColor: string;
  textColor: string;
  logoUrl: string | null;
  /** Null: the pass is no longer valid (a voided holder): the page says so, with no buttons. */
  walletAUrl: string | null;
  walletBUrl: string | null;
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
 * that matches it (a nonce would have to change with every response). No script runs; the
 * logo may come only from where its signed URL points (this service, or S3).
 */
function contentSecurityPolicy(style: string, logoUrl: string | null): string {
  const styleHash = createHash('sha256').update(style, 'utf8').digest('base64');
  const logoOrigin = logoUrl === null ? null : new URL(logoUrl).origin;
  return [
    "default-src 'none'",
    `style-src 'sha256-${styleHash}'`,
    `img-src ${logoOrigin ?? "'none'"}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** The holder's landing page: name, logo, and the two "add to wallet" buttons. */
export function renderHolderPage(model: HolderPageModel): HolderPage {
  const logo = model.logoUrl
    ? `<img class="logo" src="${escape(model.logoUrl)}" alt="${escape(model.organizationName)} logo">`
    : '';
  const walletB = model.walletBUrl
    ? `<a class="button walletb" href="${escape(model.walletBUrl)}">Add to WalletB</a>`
    : `<span class="button walletb disabled" aria-disabled="true" title="WalletB is not set up for this pass">Add to WalletB</span>`;
  const style = `
  :root { color-scheme: light; }
  body { margin: 0; font-family: -apple-system, system-ui, "Segoe UI", Roboto, sans-serif; background: #f2f2f7; }
  main { max-width: 28rem; margin: 0 auto; padding: 1.5rem 1rem; }
  .card { background: ${model.backgroundColor}; color: ${model.textColor}; border-radius: 1rem; padding: 1.5rem; box-shadow: 0 4px 16px rgba(0,0,0,.12); }
  .logo { max-height: 3rem; max-width: 60%; display: block; margin-bottom: 1rem; }
  h1 { font-size: 1.4rem; margin: 0 0 .25rem; }
  p { margin: 0; opacity: .85; }
  .actions { display: flex; flex-direction: column; gap: .75rem; margin-top: 1.5rem; }
  .button { display: block; text-align: center; padding: .9rem 1rem; border-radius: .75rem; font-weight: 600; text-decoration: none; font-size: 1rem; }
  .walleta { background: #000; color: #fff; }
  .walletb { background: #1a73e8; color: #fff; }
  .disabled { background: #c7c7cc; color: #3a3a3c; cursor: not-allowed; }
`;
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(model.passName)}</title>
<style>${style}</style>
</head>
<body>
<main>
  <section class="card">
    ${logo}
    <h1>${escape(model.passName)}</h1>
    <p>${escape(model.organizationName)} · ${escape(model.description)}</p>
  </section>
  ${
    model.walletAUrl === null
      ? '<p class="actions">This pass is no longer valid.</p>'
      : `<nav class="actions">
    <a class="button walleta" href="${escape(model.walletAUrl)}">Add to WalletA</a>
    ${walletB}
  </nav>`
  }
</main>
</body>
</html>`;
  return { html, contentSecurityPolicy: contentSecurityPolicy(style, model.logoUrl) };
}
