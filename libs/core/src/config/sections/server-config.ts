import type { EnvReader } from '../env-reader';

/** How the HTTP server listens, the address it hands out and who may call it. */
export interface ServerConfig {
  port: number;
  publicBaseUrl: string;
  /**
   * Browser origins allowed to call the API cross-origin (CORS): exact origins, or `'*'` for
   * any. Empty: no CORS headers at all, so browsers keep other sites' scripts out.
   */
  corsOrigins: string[] | '*';
  /** Proxy hops in front of the service whose X-Forwarded-For is trusted (for client IPs). */
  trustProxyHops: number;
  /** Time a client has to send a whole request, body included, after its headers. */
  requestDeadlineMs: number;
}

/** `PORT`, `PUBLIC_BASE_URL`, `CORS_ORIGINS`, `TRUST_PROXY_HOPS`, `HTTP_REQUEST_TIMEOUT_MS`. */
export function readServerConfig(read: EnvReader): ServerConfig {
  const port = read.int('PORT', 3000, 0, 65535);
  return {
    port,
    trustProxyHops: read.int('TRUST_PROXY_HOPS', 0, 0, 10),
    requestDeadlineMs: read.int('HTTP_REQUEST_TIMEOUT_MS', 60_000, 100, 10 * 60_000),
    // The links handed out must reach this process when nothing else is configured, so the
    // default follows PORT.
    publicBaseUrl: read.urlOr('PUBLIC_BASE_URL', `http://localhost:${port}`, ['http:', 'https:']),
    corsOrigins: readCorsOrigins(read),
  };
}

/**
 * `CORS_ORIGINS`: a comma-separated list of exact origins (`scheme://host[:port]`, as browsers
 * send them in `Origin`), or `*` alone. A path, a trailing slash or a wildcard inside a name
 * would never equal an `Origin` header, so those are configuration errors rather than silently
 * allowing nothing.
 */
function isExactOrigin(value: string): boolean {
  try {
    const parsed = new URL(value);
    return ['http:', 'https:'].includes(parsed.protocol) && parsed.origin === value;
  } catch {
    return false;
  }
}

function readCorsOrigins(read: EnvReader): string[] | '*' {
  const origins = read.list('CORS_ORIGINS', []);
  if (origins.includes('*')) {
    if (origins.length > 1) read.problems.push('CORS_ORIGINS: "*" must stand alone');
    return '*';
  }
  for (const origin of origins) {
    if (!isExactOrigin(origin)) {
      read.problems.push(
        `CORS_ORIGINS entries must be origins such as https://app.example.com, without path or trailing slash (got "${origin}")`,
      );
    }
  }
  return origins;
}
