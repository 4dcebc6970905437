import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import type { Response } from 'superagent';

export interface OpenedPackage {
  files: Record<string, Buffer>;
  passJson: Record<string, unknown>;
  manifest: Record<string, string>;
  /** `openssl smime -verify` of the detached signature over manifest.json against the CA. */
  signatureVerifies: boolean;
}

/** Unzips a .pkpass with the system's unzip and checks it the way a device would. */
export function openPackage(pkpass: Buffer, caPem: string): OpenedPackage {
  const dir = mkdtempSync(join(tmpdir(), 'pkpass-'));
  try {
    writeFileSync(join(dir, 'pass.pkpass'), pkpass);
    writeFileSync(join(dir, 'ca.pem'), caPem);
    execFileSync('unzip', ['-q', join(dir, 'pass.pkpass'), '-d', join(dir, 'content')]);
    // Every file by its path in the archive (`de.lproj/pass.strings`).
    const files: Record<string, Buffer> = {};
    for (const entry of readdirSync(join(dir, 'content'), {
      recursive: true,
      withFileTypes: true,
    })) {
      if (!entry.isFile()) continue;
      const path = join(entry.parentPath, entry.name);
      files[relative(join(dir, 'content'), path)] = readFileSync(path);
    }
    let signatureVerifies = true;
    try {
      execFileSync(
        'openssl',
        [
          'smime',
          '-verify',
          '-binary',
          '-inform',
          'DER',
          '-in',
          join(dir, 'content', 'signature'),
          '-content',
          join(dir, 'content', 'manifest.json'),
          '-CAfile',
          join(dir, 'ca.pem'),
          '-purpose',
          'any',
          '-out',
          '/dev/null',
        ],
        { stdio: 'pipe' },
      );
    } catch {
      signatureVerifies = false;
    }
    return {
      files,
      passJson: JSON.parse(files['pass.json'].toString('utf8')) as Record<string, unknown>,
      manifest: JSON.parse(files['manifest.json'].toString('utf8')) as Record<string, string>,
      signatureVerifies,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The entries of a `.pkpasses` bundle, in archive order, read with the system's unzip: by
 * name, with their bytes (each a `.pkpass` to open with {@link openPackage}).
 */
export function openBundle(pkpasses: Buffer): { name: string; content: Buffer }[] {
  const dir = mkdtempSync(join(tmpdir(), 'pkpasses-'));
  try {
    const archive = join(dir, 'passes.pkpasses');
    writeFileSync(archive, pkpasses);
    const names = execFileSync('unzip', ['-Z1', archive], { encoding: 'utf8' })
      .split('\n')
      .filter((name) => name !== '');
    execFileSync('unzip', ['-q', archive, '-d', join(dir, 'content')]);
    return names.map((name) => ({ name, content: readFileSync(join(dir, 'content', name)) }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const sha1 = (content: Buffer): string => createHash('sha1').update(content).digest('hex');

/** A supertest parser that keeps a binary body (a .pkpass, an image) as one Buffer. */
export function binaryBody(
  response: Response,
  done: (error: Error | null, body: Buffer) => void,
): void {
  const chunks: Buffer[] = [];
  response.on('data', (chunk: Buffer) => chunks.push(chunk));
  response.on('end', () => done(null, Buffer.concat(chunks)));
}
