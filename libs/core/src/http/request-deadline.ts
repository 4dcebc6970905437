import type { NextFunction, Request, Response } from 'express';
import type { Server } from 'node:http';
import { RequestTimeoutError } from '../errors/domain-errors';
import { errorBody } from './all-exceptions.filter';
import { ERROR_STATUS } from '../errors/error-codes';
import { hasBody } from './request-body';
import type { AppRequest } from './request-context';

/**
 * A request whose body has not fully arrived `deadlineMs` after its headers is answered 408
 * and its connection closed. A client trickling a body a byte at a time (slowloris) would
 * otherwise hold a socket and a parser for Node's default `requestTimeout` of 300 s, and many
 * such clients exhaust the server. Node's own timeout is checked only every 30 s, too coarse
 * to rely on alone; it stays as a backstop ({@link applyServerTimeouts}).
 */
export function requestDeadlineMiddleware(deadlineMs: number) {
  return (request: Request, response: Response, next: NextFunction): void => {
    // A request without Content-Length or Transfer-Encoding has no body (RFC 9112 §6.3), so
    // it is complete once its headers are: no timer and listeners for it (most GETs), which
    // Node has not yet marked `complete` when the middleware runs.
    if (request.complete || !hasBody(request)) return next();
    const timer = setTimeout(() => {
      if (request.complete || response.headersSent) return;
      const error = new RequestTimeoutError(deadlineMs);
      response.setHeader('Connection', 'close');
      response
        .status(ERROR_STATUS[error.code])
        .json(errorBody((request as AppRequest).requestId ?? 'unknown', error));
      // Whatever is still reading the body (a guard, multer) gets an aborted stream.
      response.once('finish', () => request.destroy());
    }, deadlineMs);
    const clear = () => clearTimeout(timer);
    request.once('end', clear);
    response.once('close', clear);
    next();
  };
}

/**
 * Node's server timeouts, tightened from defaults meant for any server: headers must arrive
 * within 20 s, a whole request within twice our deadline (the backstop of the middleware
 * above), and idle keep-alive sockets close after 5 s (below a load balancer's 60 s idle
 * timeout is what matters there; set the balancer lower, as usual).
 */
export function applyServerTimeouts(server: Server, deadlineMs: number): void {
  server.headersTimeout = Math.min(20_000, deadlineMs);
  server.requestTimeout = 2 * deadlineMs;
  server.keepAliveTimeout = 5_000;
}
