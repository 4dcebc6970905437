import { Webhook } from 'standardwebhooks';
import { newWebhookSecret, signWebhook, webhookHeaders } from './signature';

describe('Webhook signatures (Standard Webhooks)', () => {
  const body = JSON.stringify({ id: 'msg_1', type: 'holder.created', data: { name: 'Zoë ✓' } });

  it('makes secrets of 32 random bytes after whsec_', () => {
    const secret = newWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
    expect(newWebhookSecret()).not.toBe(secret);
  });

  it("signs exactly as the specification's own library does", () => {
    const secret = newWebhookSecret();
    const at = new Date('2026-11-24T12:00:00Z');
    const ours = signWebhook(secret, 'msg_2', Math.floor(at.getTime() / 1000), body);
    expect(ours).toBe(new Webhook(secret).sign('msg_2', at, body));
  });

  it('sends headers the library verifies, and that fail for another body or secret', () => {
    const secret = newWebhookSecret();
    const headers = webhookHeaders(secret, 'msg_3', body, new Date());
    expect(headers['content-type']).toBe('application/json');
    expect(headers['webhook-id']).toBe('msg_3');
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(secret).verify(`${body} `, headers)).toThrow();
    expect(() => new Webhook(newWebhookSecret()).verify(body, headers)).toThrow();
  });
});
