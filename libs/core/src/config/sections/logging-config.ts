import type { EnvReader } from '../env-reader';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
export type LogFormat = 'auto' | 'json' | 'pretty';

export interface LoggingConfig {
  logLevel: LogLevel;
  /** `auto`: readable lines on a terminal, JSON otherwise (a file, a pipe, a log collector). */
  logFormat: LogFormat;
}

const LOG_LEVELS: readonly LogLevel[] = [
  'fatal',
  'error',
  'warn',
  'info',
  'debug',
  'trace',
  'silent',
];

/** `LOG_LEVEL`, `LOG_FORMAT`. */
export function readLoggingConfig(read: EnvReader): LoggingConfig {
  return {
    logLevel: read.oneOf('LOG_LEVEL', LOG_LEVELS, 'info'),
    logFormat: read.oneOf('LOG_FORMAT', ['auto', 'json', 'pretty'] as const, 'auto'),
  };
}
