import { APP_CONFIG, type AppConfig } from '@app/core';
import { Inject, Injectable, Optional, type OnApplicationShutdown } from '@nestjs/common';
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import {
  DELIVERY_LOOKUP_LIMITS,
  ForbiddenDestinationError,
  guardedLookup,
  literalAddressProblem,
  type DestinationRules,
  type ResolveAll,
} from './destination';

/** What one attempt came to. */
export interface SendOutcome {
  delivered: boolean;
  /** The HTTP status, when the endpoint answered. */
  statusCode: number | null;
  /** Why it was not delivered (short), or null. */
  error: string | null;
}

/** Injection token of the resolver deliveries use (the system's by default; tests stub it). */
export const WEBHOOK_RESOLVER = Symbol('WEBHOOK_RESOLVER');

/** Longest `lastError` kept. */
const MAX_ERROR_LENGTH = 255;

/**
 * POSTs one delivery. The socket connects only to addresses checked at that moment
 * ({@link guardedLookup}; an IP-literal host is checked before the request), the whole attempt
 * has WEBHOOK_TIMEOUT_MS, redirects are not followed (a 3xx is a failure) and the answer's body
 * is drained, not read. Connections are kept alive per host, so a busy endpoint is not
 * handshaken once per event.
 */
@Injectable()
export class WebhookSender implements OnApplicationShutdown {
  private readonly rules: DestinationRules;
  private readonly timeoutMs: number;
  private readonly agents: { http: HttpAgent; https: HttpsAgent };

  constructor(
    @Inject(APP_CONFIG) config: Pick<AppConfig, 'webhooks'>,
    @Optional() @Inject(WEBHOOK_RESOLVER) resolve?: ResolveAll,
  ) {
    this.rules = config.webhooks;
    this.timeoutMs = config.webhooks.timeoutMs;
    // A lookup gets at most half the attempt, so its own error (not the attempt's timeout) says
    // that DNS was what took too long.
    const lookup = guardedLookup(this.rules, resolve, {
      ...DELIVERY_LOOKUP_LIMITS,
      timeoutMs: Math.min(DELIVERY_LOOKUP_LIMITS.timeoutMs, Math.ceil(this.timeoutMs / 2)),
    });
    const options = { keepAlive: true, lookup, scheduling: 'lifo' as const };
    this.agents = { http: new HttpAgent(options), https: new HttpsAgent(options) };
  }

  send(rawUrl: string, headers: Record<string, string>, body: string): Promise<SendOutcome> {
    const url = new URL(rawUrl);
    const refused = literalAddressProblem(url, this.rules);
    if (refused !== null) return Promise.resolve(failure(null, `refused: ${refused}`));
    const https = url.protocol === 'https:';
    const payload = Buffer.from(body, 'utf8');
    return new Promise<SendOutcome>((resolve) => {
      let settled = false;
      const settle = (outcome: SendOutcome): void => {
        if (settled) return;
        settled = true;
        resolve(outcome);
      };
      const request = (https ? httpsRequest : httpRequest)(url, {
        method: 'POST',
        agent: https ? this.agents.https : this.agents.http,
        headers: {
          ...headers,
          'content-length': String(payload.length),
          'user-agent': 'wallet-pass-service-webhooks/1',
        },
      });
      // The whole attempt, connect to last header byte; a late body is cut off too.
      const timer = setTimeout(() => {
        settle(failure(null, `timed out after ${this.timeoutMs} ms`));
        request.destroy();
      }, this.timeoutMs);
      request.on('response', (response: IncomingMessage) => {
        const status = response.statusCode ?? 0;
        if (status >= 200 && status < 300) {
          settle({ delivered: true, statusCode: status, error: null });
        } else {
          const redirect = status >= 300 && status < 400 ? ' (redirects are not followed)' : '';
          settle(failure(status, `HTTP ${status}${redirect}`));
        }
        response.on('end', () => clearTimeout(timer));
        response.on('error', () => clearTimeout(timer));
        response.resume();
      });
      request.on('error', (error: Error) => {
        clearTimeout(timer);
        const refused = error instanceof ForbiddenDestinationError ? 'refused: ' : '';
        settle(failure(null, `${refused}${error.message}`));
      });
      request.end(payload);
    });
  }

  onApplicationShutdown(): void {
    this.agents.http.destroy();
    this.agents.https.destroy();
  }
}

function failure(statusCode: number | null, error: string): SendOutcome {
  return { delivered: false, statusCode, error: error.slice(0, MAX_ERROR_LENGTH) };
}
