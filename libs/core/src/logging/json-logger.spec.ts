import { PassThrough } from 'node:stream';
import { JsonLogger, logDestination } from './json-logger';

/** A stdout stand-in: a terminal or not, keeping what was written. */
function fakeStdout(isTTY: boolean): { stream: NodeJS.WriteStream; text: () => string } {
  const stream = new PassThrough();
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  Object.assign(stream, { isTTY });
  return {
    stream: stream as unknown as NodeJS.WriteStream,
    text: () => Buffer.concat(chunks).toString('utf8'),
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('logDestination', () => {
  it('writes JSON lines when stdout is not a terminal, or when asked to', () => {
    expect(logDestination('auto', fakeStdout(false).stream)).toBeUndefined();
    expect(logDestination('json', fakeStdout(true).stream)).toBeUndefined();
  });

  it('writes readable lines on a terminal: level, message and fields, no JSON', async () => {
    const stdout = fakeStdout(true);
    const logger = new JsonLogger('info', logDestination('auto', stdout.stream));
    logger.log({ passId: 'p-1' }, 'Pass published', 'PassesService');
    await settle();
    const text = stdout.text();
    expect(text).toContain('INFO');
    expect(text).toContain('Pass published');
    expect(text).toContain('passId');
    expect(() => JSON.parse(text.trim()) as unknown).toThrow();
  });

  it('writes readable lines without colours into a pipe when asked to', async () => {
    const stdout = fakeStdout(false);
    const logger = new JsonLogger('info', logDestination('pretty', stdout.stream));
    logger.warn('Disk almost full');
    await settle();
    expect(stdout.text()).toContain('WARN');
    expect(stdout.text()).toContain('Disk almost full');
    // eslint-disable-next-line no-control-regex
    expect(stdout.text()).not.toMatch(/\u001b\[/);
  });
});
