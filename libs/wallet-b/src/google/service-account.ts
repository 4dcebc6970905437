import { createPrivateKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** The parts of a Google service-account key file (JSON) that the WalletB provider uses. */
export interface ServiceAccount {
  clientEmail: string;
  privateKey: KeyObject;
  privateKeyId: string | undefined;
  /** Where access tokens are asked for; Google's files say `https://oauth2.googleapis.com/token`. */
  tokenUri: string;
}

/** Injection token of the parsed WALLET_B_SERVICE_ACCOUNT file (null when it is not set). */
export const WALLET_B_SERVICE_ACCOUNT = Symbol('WALLET_B_SERVICE_ACCOUNT');

export const DEFAULT_TOKEN_URI = 'https://oauth2.googleapis.com/token';

/** A service-account file that cannot be used; the message names the variable to fix. */
export class ServiceAccountError extends Error {
  constructor(path: string, problem: string) {
    super(`WALLET_B_SERVICE_ACCOUNT (${path}): ${problem}`);
    this.name = 'ServiceAccountError';
  }
}

function text(json: Record<string, unknown>, field: string): string | undefined {
  const value = json[field];
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

/** Parses a service-account key file's content: `client_email`, `private_key`, `token_uri`. */
export function parseServiceAccount(content: string, path: string): ServiceAccount {
  let json: unknown;
  try {
    json = JSON.parse(content);
  } catch {
    throw new ServiceAccountError(path, 'is not JSON');
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new ServiceAccountError(path, 'is not a JSON object');
  }
  const fields = json as Record<string, unknown>;
  const clientEmail = text(fields, 'client_email');
  const privateKeyPem = text(fields, 'private_key');
  if (clientEmail === undefined) throw new ServiceAccountError(path, 'has no client_email');
  if (privateKeyPem === undefined) throw new ServiceAccountError(path, 'has no private_key');
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(privateKeyPem);
  } catch {
    throw new ServiceAccountError(path, 'private_key is not a PEM private key');
  }
  if (privateKey.asymmetricKeyType !== 'rsa') {
    throw new ServiceAccountError(path, 'private_key is not an RSA key (RS256 needs one)');
  }
  const tokenUri = text(fields, 'token_uri') ?? DEFAULT_TOKEN_URI;
  try {
    const url = new URL(tokenUri);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error('protocol');
  } catch {
    throw new ServiceAccountError(path, `token_uri is not an http(s) URL (${tokenUri})`);
  }
  return {
    clientEmail,
    privateKey,
    privateKeyId: text(fields, 'private_key_id'),
    tokenUri,
  };
}

/** Reads the file named by WALLET_B_SERVICE_ACCOUNT; a missing or bad file stops start-up. */
export function loadServiceAccount(path: string): ServiceAccount {
  let content: string;
  try {
    content = readFileSync(path, 'utf8');
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ServiceAccountError(path, `cannot be read (${reason})`);
  }
  return parseServiceAccount(content, path);
}
