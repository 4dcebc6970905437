import {
  foreignRootKey,
  GoogleCallbackSigner,
  spkiBase64,
} from '../../../../test/support/google-callbacks';
import {
  CallbackVerificationError,
  lengthPrefixed,
  verifyCallback,
  type RootSigningKey,
} from './ecv2-signing-only';

const ISSUER = '3388000000012345678';
const event = {
  classId: `${ISSUER}.pass-1`,
  objectId: `${ISSUER}.pass-1-abc`,
  eventType: 'save' as const,
  nonce: 'nonce-1',
};

describe('ECv2SigningOnly callback verification', () => {
  const signer = new GoogleCallbackSigner();
  const rootKeys: RootSigningKey[] = signer.rootKeys().keys;
  const verify = (body: unknown, keys = rootKeys, now = Date.now()) =>
    verifyCallback(body, { rootKeys: keys, recipientId: ISSUER, now });
  const failure = (body: unknown, keys = rootKeys, now?: number) => {
    try {
      verify(body, keys, now);
    } catch (error) {
      if (error instanceof CallbackVerificationError) return error;
      throw error;
    }
    throw new Error('verified, but should not have');
  };

  it('builds the signed strings with 4-byte little-endian lengths', () => {
    expect(lengthPrefixed('ab', 'é').toString('hex')).toBe('020000006162' + '02000000c3a9');
  });

  it('accepts a callback signed as Google signs them and returns its event', () => {
    const body = signer.build(event, { recipientId: ISSUER });
    expect(verify(body)).toEqual({ ...event, expTimeMillis: expect.any(Number) });
  });

  it('accepts a body that went through JSON (as it arrives over HTTP)', () => {
    const body = JSON.parse(JSON.stringify(signer.build(event, { recipientId: ISSUER })));
    expect(verify(body).nonce).toBe('nonce-1');
  });

  it('refuses an intermediate key signed by a root key Google did not publish', () => {
    const body = signer.build(event, { recipientId: ISSUER, rootPrivateKey: foreignRootKey() });
    const error = failure(body);
    expect(error.message).toMatch(/not signed by a current root key/);
    expect(error.rootKey).toBe(true);
  });

  it('refuses when the only root key has expired or is of another protocol version', () => {
    const body = signer.build(event, { recipientId: ISSUER });
    expect(failure(body, signer.rootKeys(Date.now() - 1000).keys).rootKey).toBe(true);
    const ecv1 = [{ ...rootKeys[0], protocolVersion: 'ECv1' }];
    expect(failure(body, ecv1).message).toMatch(/no current root signing key/);
    const noExpiry = [
      { keyValue: spkiBase64(signer.root.publicKey), protocolVersion: 'ECv2SigningOnly' },
    ];
    expect(failure(body, noExpiry).rootKey).toBe(true);
  });

  it('refuses an expired intermediate key', () => {
    const body = signer.build(event, {
      recipientId: ISSUER,
      intermediateExpiration: Date.now() - 1,
    });
    expect(failure(body).message).toMatch(/intermediate signing key has expired/);
  });

  it('refuses a message changed after signing', () => {
    const body = signer.build(event, { recipientId: ISSUER, tamperMessage: true });
    expect(failure(body).message).toMatch(/message signature does not verify/);
  });

  it('refuses a message signed for another recipient (issuer id)', () => {
    const body = signer.build(event, { recipientId: '3388000000099999999' });
    expect(failure(body).message).toMatch(/message signature does not verify/);
  });

  it('refuses a message from another sender', () => {
    const body = signer.build(event, { recipientId: ISSUER, senderId: 'Google' });
    expect(failure(body).rootKey).toBe(true);
  });

  it('refuses an expired message', () => {
    const body = signer.build({ ...event, expTimeMillis: Date.now() - 1 }, { recipientId: ISSUER });
    expect(failure(body).message).toMatch(/message has expired/);
  });

  it('refuses bodies that are not exactly the four fields, or of another protocol', () => {
    const body = signer.build(event, { recipientId: ISSUER });
    expect(failure({ ...body, extra: 1 }).message).toMatch(/exactly/);
    expect(failure({ ...body, protocolVersion: 'ECv2' }).message).toMatch(/not ECv2SigningOnly/);
    expect(failure('not json').message).toMatch(/not a JSON object/);
    expect(
      failure({ ...body, intermediateSigningKey: { ...body.intermediateSigningKey, x: 1 } })
        .message,
    ).toMatch(/exactly signedKey, signatures/);
  });
});
