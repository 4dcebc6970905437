import type { AppConfig } from '@app/core';
import type { CorsOptions } from '@nestjs/common/interfaces/external/cors-options.interface';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import helmet, { type HelmetOptions } from 'helmet';

/** Where Swagger UI is served (swagger.ts); its JSON at /docs-json is an ordinary response. */
const SWAGGER_UI = /^\/docs(\/|$)/;

/**
 * For everything but Swagger UI: API answers are JSON, files and packages are downloads, so
 * nothing the service sends needs to run script, load anything or be framed. Pages with markup
 * of their own (the holder page) replace this header with a policy their markup satisfies.
 */
export const API_POLICY = {
  defaultSrc: ["'none'"],
  baseUri: ["'none'"],
  formAction: ["'none'"],
  frameAncestors: ["'none'"],
};

/**
 * Swagger UI's page (from @nestjs/swagger) loads its scripts from /docs and runs none inline,
 * so scripts stay 'self'. Its template has inline `<style>` blocks and `style` attributes and
 * the UI sets styles at run time, hence 'unsafe-inline' for styles on this route only (styles
 * cannot run code). Its icons are data: URLs. "Try it out" calls the document's server,
 * PUBLIC_BASE_URL, which may be another origin than the one the browser used for /docs.
 */
function swaggerPolicy(publicBaseUrl: string): Record<string, string[]> {
  return {
    defaultSrc: ["'self'"],
    scriptSrc: ["'self'"],
    styleSrc: ["'self'", "'unsafe-inline'"],
    imgSrc: ["'self'", 'data:'],
    fontSrc: ["'self'", 'data:'],
    connectSrc: ["'self'", new URL(publicBaseUrl).origin],
    objectSrc: ["'none'"],
    baseUri: ["'self'"],
    formAction: ["'self'"],
    frameAncestors: ["'none'"],
  };
}

/** helmet's options for one CSP (exported for the test that compares the headers with helmet's). */
export function helmetOptions(directives: Record<string, string[]>): HelmetOptions {
  // helmet's other defaults stay (nosniff, frame options, HSTS, referrer and cross-origin
  // policies). Its default CSP is replaced whole, upgrade-insecure-requests included: that one
  // would send a holder on http://localhost (development) to an https:// logo that is not there.
  return { contentSecurityPolicy: { useDefaults: false, directives } };
}

/** A header helmet sets, or one it removes. */
type HeaderStep =
  | { remove: false; name: string; value: string | number | readonly string[] }
  | { remove: true; name: string };

/**
 * helmet's headers for one CSP, worked out once at start. With no directive a function of the
 * request, helmet sets the same constant headers on every response, through a chain of fourteen
 * middleware functions and a closure per call (10–15 µs per request under bench:api's load);
 * replaying its calls in the order it made them gives the same headers byte for byte
 * (test/security-headers.e2e-spec.ts compares the raw headers with helmet's own).
 */
function helmetWith(directives: Record<string, string[]>): RequestHandler {
  const steps: HeaderStep[] = [];
  const recorder = {
    setHeader(name: string, value: string | number | readonly string[]) {
      steps.push({ remove: false, name, value });
      return recorder;
    },
    removeHeader(name: string) {
      steps.push({ remove: true, name });
    },
  };
  let finished = false;
  helmet(helmetOptions(directives))({} as Request, recorder as unknown as Response, (error) => {
    finished = error === undefined || error === null;
  });
  // A helmet that needs the request, fails or answers later could not be replayed: refuse to
  // start rather than send other headers.
  if (!finished) throw new Error('helmet did not set its headers at once; they cannot be kept');
  return (_request: Request, response: Response, next: NextFunction): void => {
    for (const step of steps) {
      if (step.remove) response.removeHeader(step.name);
      else response.setHeader(step.name, step.value);
    }
    next();
  };
}

/**
 * helmet's security headers on every response (API, /p, /l, /files, /passkit, Swagger UI), with
 * the Content-Security-Policy chosen by path: one middleware, registered before every route.
 */
export function securityHeaders(config: AppConfig): RequestHandler {
  const api = helmetWith(API_POLICY);
  const swagger = helmetWith(swaggerPolicy(config.publicBaseUrl));
  return (request: Request, response: Response, next: NextFunction): void => {
    (SWAGGER_UI.test(request.path) ? swagger : api)(request, response, next);
  };
}

/**
 * CORS for browser apps on other origins, or undefined when `CORS_ORIGINS` lists none (the
 * default): then no response carries Access-Control-Allow-Origin and browsers keep other
 * sites' scripts from reading the API. Credentials travel in headers (Authorization, api-key),
 * never cookies, so `credentials` stays off and `*` is safe to allow when asked for.
 */
export function corsOptions(config: AppConfig): CorsOptions | undefined {
  if (config.corsOrigins !== '*' && config.corsOrigins.length === 0) return undefined;
  return {
    // An array: the `cors` package answers with the request's Origin only when it is listed
    // (exact string match) and adds `Vary: Origin`.
    origin: config.corsOrigins,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: ['Authorization', 'api-key', 'Content-Type', 'x-workspace-id'],
    exposedHeaders: [
      'x-request-id',
      'Retry-After',
      'RateLimit-Limit',
      'RateLimit-Remaining',
      'RateLimit-Reset',
      'Content-Disposition',
    ],
    maxAge: 600,
  };
}
