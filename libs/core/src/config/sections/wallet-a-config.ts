import type { EnvReader } from '../env-reader';

export interface WalletAConfig {
  passTypeId: string;
  teamId: string;
  certPath?: string;
  keyPath?: string;
  wwdrPath?: string;
  /** Where the generated development CA and pass certificate are kept when none is configured. */
  devCertDir: string;
  /**
   * What devices post to the web service's `/log`, kept per pass: at most `perPass` distinct
   * messages (the least recently seen go), at most `perSourcePerHour` new ones a client IP
   * adds to one pass an hour (more are dropped).
   */
  deviceLogs: { perPass: number; perSourcePerHour: number };
  apnsUrl: string;
  apnsKeyPath?: string;
  apnsKeyId?: string;
  /**
   * What bounds Apple's web service without refusing real devices (docs/decisions.md, "PassKit
   * registrations"): active registrations one source (a client IPv4 address, an IPv6 /64) keeps
   * of one shared pass, and one holder's copy keeps; newer ones replace the oldest.
   */
  devicesPerSource: number;
  devicesPerHolder: number;
  /** Refused `ApplePass` credentials a client IP may send a minute before it gets 429. */
  refusedPerIpPerMinute: number;
  /** Record which version each device fetched (`appleConfirmedCount`, `/delivery`). */
  fetchConfirmations: boolean;
}

/** `WALLET_A_*` (pass signing, APNs) and `PASSKIT_*` (the web service's bounds). */
export function readWalletAConfig(read: EnvReader): WalletAConfig {
  const walletA: WalletAConfig = {
    passTypeId: read.string('WALLET_A_PASS_TYPE_ID', 'pass.com.example.wallet-pass-service'),
    teamId: read.string('WALLET_A_TEAM_ID', 'DEVTEAM000'),
    certPath: read.optional('WALLET_A_CERT'),
    keyPath: read.optional('WALLET_A_KEY'),
    wwdrPath: read.optional('WALLET_A_WWDR'),
    devCertDir: read.string('WALLET_A_DEV_CERT_DIR', './data/wallet-a'),
    deviceLogs: {
      perPass: read.int('PASSKIT_DEVICE_LOGS_PER_PASS', 200, 1, 10_000),
      perSourcePerHour: read.int('PASSKIT_DEVICE_LOGS_PER_SOURCE_PER_HOUR', 20, 1, 1_000_000),
    },
    apnsUrl: read.urlOr('WALLET_A_APNS_URL', 'https://api.push.apple.com', ['http:', 'https:']),
    apnsKeyPath: read.optional('WALLET_A_APNS_KEY'),
    apnsKeyId: read.optional('WALLET_A_APNS_KEY_ID'),
    devicesPerSource: read.int('PASSKIT_DEVICES_PER_SOURCE', 5000, 1, 10_000_000),
    devicesPerHolder: read.int('PASSKIT_DEVICES_PER_HOLDER', 10, 1, 1000),
    refusedPerIpPerMinute: read.int('PASSKIT_REFUSED_PER_IP_PER_MINUTE', 60, 1, 1_000_000),
    fetchConfirmations: read.bool('PASSKIT_FETCH_CONFIRMATIONS', true),
  };
  const signingFiles = [walletA.certPath, walletA.keyPath, walletA.wwdrPath];
  if (
    signingFiles.some((path) => path !== undefined) &&
    signingFiles.some((path) => path === undefined)
  ) {
    read.problems.push('WALLET_A_CERT, WALLET_A_KEY and WALLET_A_WWDR must be set together');
  }
  if ((walletA.apnsKeyPath === undefined) !== (walletA.apnsKeyId === undefined)) {
    read.problems.push('WALLET_A_APNS_KEY and WALLET_A_APNS_KEY_ID must be set together');
  }
  return walletA;
}
