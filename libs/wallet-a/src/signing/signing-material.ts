import { APP_CONFIG, type AppConfig } from '@app/core';
import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import forge from 'node-forge';

/** PEM material that signs pass packages (and, without an APNs key, authenticates to APNs). */
export interface SigningMaterial {
  /** Apple's WWDR intermediate (or the development CA standing in for it). */
  wwdrPem: string;
  /** The pass type ID certificate. */
  certPem: string;
  keyPem: string;
  /** True when the material is the generated development set, which real devices refuse. */
  development: boolean;
}

const DEV_FILES = { ca: 'dev-ca.pem', cert: 'pass-cert.pem', key: 'pass-key.pem' };

function certificate(options: {
  subject: forge.pki.CertificateField[];
  issuer: forge.pki.CertificateField[];
  publicKeyPem: string;
  signingKeyPem: string;
  isCa: boolean;
  years: number;
}): string {
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(options.publicKeyPem);
  cert.serialNumber = `01${randomBytes(15).toString('hex')}`;
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + options.years * 365 * 24 * 3600 * 1000);
  cert.setSubject(options.subject);
  cert.setIssuer(options.issuer);
  cert.setExtensions(
    options.isCa
      ? [
          { name: 'basicConstraints', cA: true, critical: true },
          { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
        ]
      : [
          { name: 'basicConstraints', cA: false },
          { name: 'keyUsage', digitalSignature: true, critical: true },
          { name: 'extKeyUsage', clientAuth: true, emailProtection: true },
        ],
  );
  cert.sign(forge.pki.privateKeyFromPem(options.signingKeyPem), forge.md.sha256.create());
  return forge.pki.certificateToPem(cert);
}

function rsaKeyPair(): { publicKey: string; privateKey: string } {
  // Native key generation: node-forge's pure-JS RSA takes seconds.
  return generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
}

/**
 * A development CA and a pass certificate issued by it, shaped like Apple's (UID = pass type
 * identifier, OU = team identifier). Packages signed with it verify against the CA with
 * openssl, but devices only accept passes signed with Apple-issued certificates.
 */
export function generateDevelopmentMaterial(
  passTypeId: string,
  teamId: string,
): SigningMaterial & { caKeyPem: string } {
  const ca = rsaKeyPair();
  const caName = [
    { name: 'commonName', value: 'Wallet Pass Service Development CA (not Apple WWDR)' },
    { name: 'organizationName', value: 'Wallet Pass Service development' },
  ];
  const wwdrPem = certificate({
    subject: caName,
    issuer: caName,
    publicKeyPem: ca.publicKey,
    signingKeyPem: ca.privateKey,
    isCa: true,
    years: 10,
  });
  const pass = rsaKeyPair();
  const certPem = certificate({
    subject: [
      { type: '0.9.2342.19200300.100.1.1', value: passTypeId },
      { name: 'commonName', value: `Pass Type ID: ${passTypeId}` },
      { shortName: 'OU', value: teamId },
      { name: 'organizationName', value: 'Wallet Pass Service development' },
    ],
    issuer: caName,
    publicKeyPem: pass.publicKey,
    signingKeyPem: ca.privateKey,
    isCa: false,
    years: 5,
  });
  return { wwdrPem, certPem, keyPem: pass.privateKey, caKeyPem: ca.privateKey, development: true };
}

/**
 * Loads WALLET_A_CERT/KEY/WWDR, or creates the development set once and keeps it on disk. It
 * does so at start-up: creating the set takes half a second of CPU, which must not land on the
 * first holder's download while every other request waits.
 */
@Injectable()
export class SigningMaterialProvider implements OnModuleInit {
  private readonly logger = new Logger('WalletA');
  private material?: SigningMaterial;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  onModuleInit(): void {
    this.get();
  }

  get(): SigningMaterial {
    this.material ??= this.load();
    return this.material;
  }

  private load(): SigningMaterial {
    const { certPath, keyPath, wwdrPath, devCertDir, passTypeId, teamId } = this.config.walletA;
    if (certPath !== undefined && keyPath !== undefined && wwdrPath !== undefined) {
      return {
        certPem: readFileSync(certPath, 'utf8'),
        keyPem: readFileSync(keyPath, 'utf8'),
        wwdrPem: readFileSync(wwdrPath, 'utf8'),
        development: false,
      };
    }

    const paths = {
      ca: join(devCertDir, DEV_FILES.ca),
      cert: join(devCertDir, DEV_FILES.cert),
      key: join(devCertDir, DEV_FILES.key),
    };
    if (!existsSync(paths.key)) {
      mkdirSync(devCertDir, { recursive: true });
      const generated = generateDevelopmentMaterial(passTypeId, teamId);
      // Written to temporary names and renamed, so a concurrent start never reads half a file;
      // the key goes last because its presence means "complete".
      const suffix = `.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
      for (const [path, content] of [
        [paths.ca, generated.wwdrPem],
        [paths.cert, generated.certPem],
        [paths.key, generated.keyPem],
      ] as const) {
        writeFileSync(path + suffix, content, { mode: 0o600 });
        renameSync(path + suffix, path);
      }
      this.logger.warn(
        `Generated a development pass-signing certificate in ${devCertDir}. Packages verify against its CA, but real devices need Apple's certificates: set WALLET_A_CERT, WALLET_A_KEY and WALLET_A_WWDR.`,
      );
    }
    return {
      wwdrPem: readFileSync(paths.ca, 'utf8'),
      certPem: readFileSync(paths.cert, 'utf8'),
      keyPem: readFileSync(paths.key, 'utf8'),
      development: true,
    };
  }
}
