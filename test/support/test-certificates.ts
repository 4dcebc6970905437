import { generateKeyPairSync, randomBytes } from 'node:crypto';
import forge from 'node-forge';

/**
 * Certificates for tests: a CA and certificates it issues (TLS servers, TLS clients such as a
 * pass type ID certificate). Keys come from node:crypto (native RSA generation is fast; forge's
 * pure-JS one takes seconds), forge builds and signs the X.509 certificates.
 */

export interface TestCertificate {
  certPem: string;
  keyPem: string;
}

export interface TestCa extends TestCertificate {
  commonName: string;
}

export interface IssueOptions {
  commonName: string;
  /** `server` adds serverAuth and subject alternative names; `client` adds clientAuth. */
  usage: 'server' | 'client';
  /** Subject UID (0.9.2342.19200300.100.1.1): Apple puts the pass type identifier there. */
  uid?: string;
  organizationalUnit?: string;
  dnsNames?: string[];
  ipAddresses?: string[];
}

const UID_OID = '0.9.2342.19200300.100.1.1';
const DAY_MS = 24 * 3600 * 1000;

function rsaKeys(): { publicKey: string; privateKey: string } {
  return generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
}

function baseCertificate(publicKeyPem: string): forge.pki.Certificate {
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(publicKeyPem);
  // A positive serial: a leading 0x01 byte keeps the DER integer from reading as negative.
  cert.serialNumber = `01${randomBytes(15).toString('hex')}`;
  cert.validity.notBefore = new Date(Date.now() - DAY_MS);
  cert.validity.notAfter = new Date(Date.now() + 365 * DAY_MS);
  return cert;
}

/** A self-signed certificate authority. */
export function createTestCa(commonName = 'Test CA'): TestCa {
  const keys = rsaKeys();
  const cert = baseCertificate(keys.publicKey);
  const name = [
    { name: 'commonName', value: commonName },
    { name: 'organizationName', value: 'Wallet Pass Service tests' },
  ];
  cert.setSubject(name);
  cert.setIssuer(name);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  cert.sign(forge.pki.privateKeyFromPem(keys.privateKey), forge.md.sha256.create());
  return { commonName, certPem: forge.pki.certificateToPem(cert), keyPem: keys.privateKey };
}

/** A certificate issued by `ca`. */
export function issueCertificate(ca: TestCa, options: IssueOptions): TestCertificate {
  const keys = rsaKeys();
  const cert = baseCertificate(keys.publicKey);
  const caCert = forge.pki.certificateFromPem(ca.certPem);
  const subject: forge.pki.CertificateField[] = [];
  if (options.uid !== undefined) subject.push({ type: UID_OID, value: options.uid });
  subject.push({ name: 'commonName', value: options.commonName });
  if (options.organizationalUnit !== undefined) {
    subject.push({ shortName: 'OU', value: options.organizationalUnit });
  }
  subject.push({ name: 'organizationName', value: 'Wallet Pass Service tests' });
  cert.setSubject(subject);
  cert.setIssuer(caCert.subject.attributes);

  const extensions: object[] = [
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    options.usage === 'server'
      ? { name: 'extKeyUsage', serverAuth: true }
      : { name: 'extKeyUsage', clientAuth: true },
  ];
  const altNames = [
    ...(options.dnsNames ?? []).map((value) => ({ type: 2, value })),
    ...(options.ipAddresses ?? []).map((ip) => ({ type: 7, ip })),
  ];
  if (altNames.length > 0) extensions.push({ name: 'subjectAltName', altNames });
  cert.setExtensions(extensions);
  cert.sign(forge.pki.privateKeyFromPem(ca.keyPem), forge.md.sha256.create());
  return { certPem: forge.pki.certificateToPem(cert), keyPem: keys.privateKey };
}

/** A server certificate for the loopback address, as the TLS fakes listen on 127.0.0.1. */
export function issueLoopbackServerCertificate(ca: TestCa): TestCertificate {
  return issueCertificate(ca, {
    commonName: 'localhost',
    usage: 'server',
    dnsNames: ['localhost'],
    ipAddresses: ['127.0.0.1'],
  });
}

/** An EC P-256 key in PKCS#8 PEM, shaped like the .p8 key Apple issues for APNs tokens. */
export function createApnsSigningKey(): { privateKeyPem: string; publicKeyPem: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', {
    namedCurve: 'P-256',
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return { privateKeyPem: privateKey, publicKeyPem: publicKey };
}
