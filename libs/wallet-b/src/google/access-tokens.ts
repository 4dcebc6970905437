import { signRs256Jwt } from './jwt';
import type { ServiceAccount } from './service-account';

/** The scope of the Google Wallet API (classes, objects, messages of the issuer). */
export const WALLET_OBJECT_ISSUER_SCOPE = 'https://www.googleapis.com/auth/wallet_object.issuer';

const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
/** Google accepts assertions that live at most an hour. */
const ASSERTION_LIFETIME_SECONDS = 3600;
/** A token is replaced this long before it expires (or at half its life, if that is shorter). */
const REFRESH_MARGIN_MS = 5 * 60 * 1000;

export type TokenResult =
  { ok: true; token: string } | { ok: false; reason: string; retryable: boolean };

export interface AccessTokenOptions {
  requestTimeoutMs: number;
  now: () => number;
}

interface CachedToken {
  token: string;
  refreshAt: number;
}

/**
 * OAuth 2.0 access tokens for the service account, by Google's JWT-bearer flow: an RS256
 * assertion `{iss: client_email, scope, aud: token_uri, iat, exp}` POSTed to the key file's
 * `token_uri`. One token is cached and shared until shortly before it expires; concurrent
 * callers wait for the same request.
 */
export class AccessTokenSource {
  private cached?: CachedToken;
  private inflight?: Promise<TokenResult>;

  constructor(
    private readonly account: ServiceAccount,
    private readonly options: AccessTokenOptions,
  ) {}

  get(): Promise<TokenResult> {
    if (this.cached !== undefined && this.options.now() < this.cached.refreshAt) {
      return Promise.resolve({ ok: true, token: this.cached.token });
    }
    this.inflight ??= this.fetchToken().finally(() => {
      this.inflight = undefined;
    });
    return this.inflight;
  }

  /** Forgets a token Google refused (401), so the next call asks for a new one. */
  invalidate(token: string): void {
    if (this.cached?.token === token) this.cached = undefined;
  }

  private assertion(nowMs: number): string {
    const iat = Math.floor(nowMs / 1000);
    return signRs256Jwt(
      {
        typ: 'JWT',
        ...(this.account.privateKeyId !== undefined ? { kid: this.account.privateKeyId } : {}),
      },
      {
        iss: this.account.clientEmail,
        scope: WALLET_OBJECT_ISSUER_SCOPE,
        aud: this.account.tokenUri,
        iat,
        exp: iat + ASSERTION_LIFETIME_SECONDS,
      },
      this.account.privateKey,
    );
  }

  private async fetchToken(): Promise<TokenResult> {
    const requestedAt = this.options.now();
    let response: Response;
    let text: string;
    try {
      response = await fetch(this.account.tokenUri, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        body: new URLSearchParams({
          grant_type: JWT_BEARER_GRANT,
          assertion: this.assertion(requestedAt),
        }).toString(),
        signal: AbortSignal.timeout(this.options.requestTimeoutMs),
      });
      text = await response.text();
    } catch (error) {
      return {
        ok: false,
        reason: `token request failed: ${describeError(error)}`,
        retryable: true,
      };
    }

    if (!response.ok) {
      const retryable = response.status === 429 || response.status >= 500;
      return {
        ok: false,
        reason: `token request refused (${response.status}${oauthError(text)})`,
        retryable,
      };
    }
    const body = parseJson(text);
    const token = body?.access_token;
    const expiresIn = body?.expires_in;
    if (typeof token !== 'string' || token === '' || typeof expiresIn !== 'number') {
      return {
        ok: false,
        reason: 'token response has no access_token/expires_in',
        retryable: true,
      };
    }
    const lifetimeMs = expiresIn * 1000;
    this.cached = {
      token,
      refreshAt: requestedAt + Math.max(lifetimeMs - REFRESH_MARGIN_MS, lifetimeMs / 2),
    };
    return { ok: true, token };
  }
}

function parseJson(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** `: invalid_grant (Invalid JWT Signature.)` from an OAuth error body, when there is one. */
function oauthError(text: string): string {
  const body = parseJson(text);
  if (body === undefined || typeof body.error !== 'string') return '';
  const description =
    typeof body.error_description === 'string' ? ` (${body.error_description})` : '';
  return `: ${body.error}${description}`;
}

export function describeError(error: unknown): string {
  // AbortSignal.timeout's DOMException, which is no Error of another realm (a test's).
  if ((error as { name?: unknown } | null)?.name === 'TimeoutError') return 'timed out';
  if (error instanceof Error) {
    const cause = (error as { cause?: unknown }).cause;
    const code =
      typeof cause === 'object' && cause !== null && 'code' in cause
        ? String(cause.code)
        : undefined;
    return code !== undefined ? `${error.message} (${code})` : error.message;
  }
  return String(error);
}
