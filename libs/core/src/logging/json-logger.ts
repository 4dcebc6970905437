import type { LoggerService } from '@nestjs/common';
import pino, { Logger as Pino } from 'pino';
import pretty from 'pino-pretty';
import type { LogFormat, LogLevel } from '../config/app-config';
import { currentRequestId } from '../http/request-context';

type PinoLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

/**
 * Where log lines go: stdout as one JSON object a line (what log collectors read), or, for
 * `pretty` and for `auto` when stdout is a terminal, the same lines made readable by
 * pino-pretty (time, level, message, then the fields). Written synchronously either way, so a
 * process that exits does not lose its last lines.
 */
export function logDestination(
  format: LogFormat,
  stdout: NodeJS.WriteStream = process.stdout,
): pino.DestinationStream | undefined {
  const readable = format === 'pretty' || (format === 'auto' && stdout.isTTY === true);
  if (!readable) return undefined;
  return pretty({
    destination: stdout,
    sync: true,
    colorize: stdout.isTTY === true,
    translateTime: 'SYS:HH:MM:ss.l',
    // Nest's context (the class that logged) leads the message, as Nest's own logger shows it.
    messageFormat: '{if context}[{context}] {end}{msg}',
    ignore: 'pid,hostname,context',
  });
}

/**
 * Nest's logger interface over pino: one JSON object a line on stdout, each carrying the
 * request id of the request it belongs to (from AsyncLocalStorage), so a log line can be
 * matched to the `txId` a client reports.
 */
export class JsonLogger implements LoggerService {
  readonly pino: Pino;

  constructor(level: LogLevel, destination?: pino.DestinationStream) {
    this.pino = pino(
      {
        level,
        base: undefined,
        timestamp: pino.stdTimeFunctions.isoTime,
        formatters: { level: (label) => ({ level: label }) },
        mixin: () => {
          const requestId = currentRequestId();
          return requestId === undefined ? {} : { requestId };
        },
      },
      destination,
    );
  }

  log(message: unknown, ...params: unknown[]): void {
    this.write('info', message, params);
  }
  error(message: unknown, ...params: unknown[]): void {
    this.write('error', message, params);
  }
  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }
  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }
  verbose(message: unknown, ...params: unknown[]): void {
    this.write('trace', message, params);
  }
  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, params);
  }

  /**
   * Nest calls `(message, ...params, context)`: the context is the last string, and for
   * errors Nest's own code passes a stack string before it.
   */
  private write(level: PinoLevel, message: unknown, params: unknown[]): void {
    if (!this.pino.isLevelEnabled(level)) return;
    const rest = [...params];
    const context =
      rest.length > 0 && typeof rest[rest.length - 1] === 'string' ? rest.pop() : undefined;
    const fields: Record<string, unknown> = context === undefined ? {} : { context };
    let text: string | undefined;

    if (message instanceof Error) {
      fields.err = message;
    } else if (typeof message === 'object' && message !== null) {
      Object.assign(fields, message);
    } else {
      text = String(message);
    }
    for (const param of rest) {
      if (typeof param === 'string' && /\n\s+at /.test(param)) fields.stack = param;
      else if (typeof param === 'string' && text === undefined) text = param;
      else if (param instanceof Error) fields.err = param;
    }
    this.pino[level](fields, text);
  }
}
