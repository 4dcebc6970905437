import type { LoggerService } from '@nestjs/common';

/** The part of `process` this needs, so a test can hand in its own. */
export interface ProcessEvents {
  on(event: 'uncaughtException' | 'unhandledRejection', listener: (error: unknown) => void): void;
  exit(code: number): never;
}

/**
 * An error nothing handled leaves the process in a state nobody knows: log it and exit with
 * status 1, so that the supervisor (systemd, Kubernetes, the container runtime) starts a fresh
 * one instead of keeping a half-working process that answers nothing. Explicit rather than
 * Node's default, which any library could replace by registering a listener of its own.
 * V8's own fatal errors (heap exhausted, invalid sizes) abort the process without reaching this.
 */
export function exitOnFatalErrors(logger: LoggerService, target: ProcessEvents = process): void {
  const exit = (kind: string) => (error: unknown) => {
    try {
      logger.fatal?.({ err: error }, `${kind}: exiting so that a supervisor restarts the process`);
    } finally {
      target.exit(1);
    }
  };
  target.on('uncaughtException', exit('Uncaught exception'));
  target.on('unhandledRejection', exit('Unhandled promise rejection'));
}
