import type { LoggerService } from '@nestjs/common';
import { exitOnFatalErrors, type ProcessEvents } from './fatal-errors';

describe('exitOnFatalErrors', () => {
  function fakeProcess() {
    const listeners = new Map<string, (error: unknown) => void>();
    const exits: number[] = [];
    const target: ProcessEvents = {
      on: (event, listener) => void listeners.set(event, listener),
      exit: ((code: number) => {
        exits.push(code);
      }) as ProcessEvents['exit'],
    };
    return { target, listeners, exits };
  }

  it.each(['uncaughtException', 'unhandledRejection'])(
    'logs a %s at fatal level and exits with status 1',
    (event) => {
      const { target, listeners, exits } = fakeProcess();
      const fatal = jest.fn();
      exitOnFatalErrors({ fatal } as unknown as LoggerService, target);
      const error = new RangeError('Array buffer allocation failed');
      listeners.get(event)?.(error);
      expect(fatal).toHaveBeenCalledWith({ err: error }, expect.stringMatching(/exiting/));
      expect(exits).toEqual([1]);
    },
  );

  it('exits even when logging fails', () => {
    const { target, listeners, exits } = fakeProcess();
    const fatal = () => {
      throw new Error('stdout closed');
    };
    exitOnFatalErrors({ fatal } as unknown as LoggerService, target);
    expect(() => listeners.get('uncaughtException')?.(new Error('boom'))).toThrow('stdout closed');
    expect(exits).toEqual([1]);
  });
});
