import type { AppConfig } from '@app/core';
import type { LoggerService } from '@nestjs/common';
import { readFileSync } from 'node:fs';
import { ApnsClient } from './apns-client';
import type { ApnsAuth, ApnsClientOptions } from './apns.types';

/** The pass type ID certificate and key (the same that sign pass packages). */
export interface ApnsSigningMaterial {
  certPem: string;
  keyPem: string;
  /** The generated development certificate, which APNs does not accept. */
  development?: boolean;
}

export type ApnsClientTuning = Pick<
  ApnsClientOptions,
  | 'maxConcurrentStreams'
  | 'connections'
  | 'requestTimeoutMs'
  | 'pingTimeoutMs'
  | 'retry'
  | 'clock'
  | 'random'
>;

/**
 * The APNs client for WalletA pass updates, topic = the pass type identifier:
 * - with WALLET_A_APNS_KEY and WALLET_A_APNS_KEY_ID: provider-token (JWT) authentication with
 *   that .p8 key and WALLET_A_TEAM_ID;
 * - otherwise TLS client authentication with the pass type ID certificate, as Apple documents
 *   for Wallet;
 * - with only the generated development certificate and a real (https) APNs, every push fails
 *   at once with a clear reason instead of being tried against a server that will refuse it.
 */
export function createApnsClient(
  config: AppConfig,
  signing: ApnsSigningMaterial,
  logger?: LoggerService,
  tuning: ApnsClientTuning = {},
): ApnsClient {
  const { apnsUrl, apnsKeyPath, apnsKeyId, teamId, passTypeId } = config.walletA;
  let auth: ApnsAuth;
  if (apnsKeyPath !== undefined && apnsKeyId !== undefined) {
    let keyPem: string;
    try {
      keyPem = readFileSync(apnsKeyPath, 'utf8');
    } catch (error) {
      throw new Error(
        `WALLET_A_APNS_KEY: cannot read ${apnsKeyPath}: ${(error as Error).message}`,
        {
          cause: error,
        },
      );
    }
    auth = { kind: 'token', keyPem, keyId: apnsKeyId, teamId };
  } else if (signing.development === true && new URL(apnsUrl).protocol === 'https:') {
    auth = {
      kind: 'unavailable',
      reason:
        'NoApnsCredentials: APNs needs WALLET_A_APNS_KEY/WALLET_A_APNS_KEY_ID or an Apple-issued pass certificate (WALLET_A_CERT/WALLET_A_KEY)',
    };
    logger?.warn(
      'WalletA pushes are disabled: no APNs key and only the development pass certificate',
    );
  } else {
    auth = { kind: 'certificate', certPem: signing.certPem, keyPem: signing.keyPem };
  }
  return new ApnsClient({ ...tuning, url: apnsUrl, topic: passTypeId, auth, logger });
}
