import {
  constants,
  createHash,
  createPrivateKey,
  privateEncrypt,
  type KeyObject,
} from 'node:crypto';
import forge from 'node-forge';
import { ZipFile } from 'yazl';
import type { SigningMaterial } from '../signing/signing-material';

/** The parsed signing material, kept so that each package costs one signature, not a parse. */
export interface PassSigner {
  wwdr: forge.pki.Certificate;
  certificate: forge.pki.Certificate;
  /** The pass certificate's key, for Node's own RSA (see {@link nativeRsaKey}). */
  key: KeyObject;
}

export function passSigner(material: SigningMaterial): PassSigner {
  return {
    wwdr: forge.pki.certificateFromPem(material.wwdrPem),
    certificate: forge.pki.certificateFromPem(material.certPem),
    key: createPrivateKey(material.keyPem),
  };
}

/** The DER of PKCS #1's DigestInfo for SHA-1, up to the digest itself (RFC 8017, 9.2). */
const SHA1_DIGEST_INFO_PREFIX = Buffer.from('3021300906052b0e03021a05000414', 'hex');

/**
 * The key as node-forge's PKCS #7 signer uses it (`key.sign(md)`: RSASSA-PKCS1-v1_5 over the
 * signed attributes' digest), signing with Node's crypto instead of forge's JavaScript big
 * integers. Those cost 25 ms a signature on Node 20; on Node 21 and later, whose global
 * `navigator` sends forge's jsbn down its browser arithmetic, a second under load.
 */
function nativeRsaKey(key: KeyObject): forge.pki.rsa.PrivateKey {
  const sign = (md: forge.md.MessageDigest): string => {
    if (md.algorithm !== 'sha1') throw new Error(`unexpected digest ${md.algorithm}`);
    const digest = Buffer.from(md.digest().getBytes(), 'binary');
    const digestInfo = Buffer.concat([SHA1_DIGEST_INFO_PREFIX, digest]);
    // PKCS #1 v1.5 padding of type 1 over the DigestInfo: the signature RSASSA-PKCS1-v1_5 makes.
    return privateEncrypt({ key, padding: constants.RSA_PKCS1_PADDING }, digestInfo).toString(
      'binary',
    );
  };
  // forge's signer calls nothing of the key but `sign`.
  return { sign } as unknown as forge.pki.rsa.PrivateKey;
}

/**
 * `manifest.json`: the SHA-1 of every file, which the signature covers. Hashed natively: a
 * JavaScript SHA-1 over megabytes of images would hold the event loop.
 */
export function passManifest(files: ReadonlyMap<string, Buffer>): Buffer {
  const manifest: Record<string, string> = {};
  for (const [name, content] of files) {
    manifest[name] = createHash('sha1').update(content).digest('hex');
  }
  return Buffer.from(JSON.stringify(manifest));
}

/**
 * `signature`: a detached PKCS #7 signature of the manifest by the pass certificate, carrying
 * the WWDR intermediate, with the signing time Wallet requires (Apple, "Building a pass").
 */
export function signManifest(manifest: Buffer, signer: PassSigner): Buffer {
  const signed = forge.pkcs7.createSignedData();
  signed.content = forge.util.createBuffer(manifest.toString('binary'));
  signed.addCertificate(signer.wwdr);
  signed.addCertificate(signer.certificate);
  signed.addSigner({
    key: nativeRsaKey(signer.key),
    certificate: signer.certificate,
    digestAlgorithm: forge.pki.oids.sha1,
    authenticatedAttributes: [
      { type: forge.pki.oids.contentType, value: forge.pki.oids.data },
      { type: forge.pki.oids.messageDigest },
      { type: forge.pki.oids.signingTime },
    ],
  });
  signed.sign({ detached: true });
  return Buffer.from(forge.asn1.toDer(signed.toAsn1()).getBytes(), 'binary');
}

/**
 * The .pkpass: the files, their manifest and its signature in one zip. Entries are stored, not
 * deflated: PNGs do not shrink and the JSON is a few KB, so compressing would cost CPU and save
 * nothing.
 */
export async function writePkpass(
  files: ReadonlyMap<string, Buffer>,
  signer: PassSigner,
  modified: Date,
): Promise<Buffer> {
  const manifest = passManifest(files);
  const entries = new Map(files);
  entries.set('manifest.json', manifest);
  entries.set('signature', signManifest(manifest, signer));
  return storedZip(entries, modified);
}

/**
 * A `.pkpasses` bundle of passes (Apple, "Distributing and updating a pass": a zip of the
 * passes' `.pkpass` files, at most 10 passes and 150 MB): each signed package as it is, by its
 * file name, at the top of the archive, stored (a package is a zip already).
 */
export function writePkpasses(
  packages: Iterable<[string, Buffer]>,
  modified: Date,
): Promise<Buffer> {
  return storedZip(packages, modified);
}

/** A zip of the entries in order, stored. yazl writes each entry once into a stream. */
async function storedZip(entries: Iterable<[string, Buffer]>, modified: Date): Promise<Buffer> {
  const zip = new ZipFile();
  for (const [name, content] of entries) {
    zip.addBuffer(content, name, { mtime: modified, compress: false });
  }
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}
