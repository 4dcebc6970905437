import { readSection } from '../env-reader';
import { readLoggingConfig } from './logging-config';

describe('readLoggingConfig', () => {
  it('logs at info, readable on a terminal and JSON elsewhere, by default', () => {
    expect(readSection({}, readLoggingConfig).value).toEqual({
      logLevel: 'info',
      logFormat: 'auto',
    });
  });

  it('refuses a level pino does not have', () => {
    expect(readSection({ LOG_LEVEL: 'verbose' }, readLoggingConfig).problems).toEqual([
      'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "verbose")',
    ]);
  });
});
