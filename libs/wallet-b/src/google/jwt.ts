import { createSign, type KeyObject } from 'node:crypto';

/** Base64url of a JSON value, as JWT segments are written (RFC 7515, no padding). */
export function base64UrlJson(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
}

/** A compact RS256 JWT: `header.claims.signature`, signed with the service account's key. */
export function signRs256Jwt(
  header: Record<string, unknown>,
  claims: Record<string, unknown>,
  privateKey: KeyObject,
): string {
  const signingInput = `${base64UrlJson({ ...header, alg: 'RS256' })}.${base64UrlJson(claims)}`;
  const signature = createSign('RSA-SHA256').update(signingInput).sign(privateKey);
  return `${signingInput}.${signature.toString('base64url')}`;
}
