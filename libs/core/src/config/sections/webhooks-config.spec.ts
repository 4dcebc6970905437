import { readSection } from '../env-reader';
import { readWebhooksConfig } from './webhooks-config';

describe('readWebhooksConfig', () => {
  it('keeps webhooks to public https addresses unless told otherwise', () => {
    expect(readSection({}, readWebhooksConfig).value).toEqual({
      allowHttp: false,
      allowPrivate: false,
      timeoutMs: 10_000,
      retryBaseMs: 10_000,
      retryForMs: 24 * 3600 * 1000,
    });
    const open = readSection(
      { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_TIMEOUT_MS: '500' },
      readWebhooksConfig,
    ).value;
    expect(open).toMatchObject({ allowHttp: true, allowPrivate: true, timeoutMs: 500 });
    expect(
      readSection({ WEBHOOK_ALLOW_PRIVATE: 'maybe', WEBHOOK_TIMEOUT_MS: '0' }, readWebhooksConfig)
        .problems,
    ).toEqual([
      expect.stringContaining('WEBHOOK_ALLOW_PRIVATE must be true or false'),
      expect.stringContaining('WEBHOOK_TIMEOUT_MS must be an integer'),
    ]);
  });
});
