import { spawn } from 'node:child_process';
import {
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { GOOGLE_SAVE_URL_PREFIX } from '@app/wallet-b';
import request from 'supertest';
import { GoogleWalletFake, verifyRs256Jwt } from './fakes/google-wallet-fake';
import { openBundle, openPackage } from './support/pkpass';
import { startTestApp, type TestApp } from './support/test-app';

/**
 * The walk-throughs of docs/guides/, run as a reader runs them: their bash blocks pasted into
 * a terminal, guide after guide, top to bottom, against a real service listening on a port. A
 * change that breaks a documented call breaks this test, on each database the suite runs on.
 *
 * Which blocks run: a fenced `bash` block right after the HTML comment
 * `<!-- walkthrough: NAME -->`. Consecutive blocks of one NAME in one guide make one
 * walk-through; the guides run in the order of their file names (01-sign-in.md first), their
 * walk-throughs in the order they appear, each in one `bash` process with `set -euo pipefail`
 * that starts from the shell the one before left (its variables, such as TOKEN, API, PASS_ID,
 * and its functions, such as `json`), as one reader's terminal would. All run in one folder
 * holding the repository's `examples/` (the guides run them from the repository's folder),
 * so what they write (holders.csv, the packages they download) stays out of the repository.
 *
 * What the reader sets by hand, the test sets: the lines `BASE=…` (the service's address) and
 * `PASSWORD=…` (the owner's, from the log) get this service's. The service gets what the guides
 * tell a newcomer to set: BOOTSTRAP_ADMIN_EMAIL and BOOTSTRAP_ADMIN_PASSWORD for the owner,
 * PUBLIC_BASE_URL, and WALLET_A_DEV_CERT_DIR, where it generates the development certificate
 * that signs packages when Apple's are not configured; WalletB is set up against a fake of
 * Google's API, so that what the walk-throughs say of WalletB (Smart Tap) can be checked.
 *
 * Rules for the guides, checked here: every guide has a walk-through, and every `bash` block
 * of a guide runs;
 * every curl's first option is `-f…` (`-fsS`), so an HTTP error fails the run; only `BASE`
 * names the service's address; every variable a walk-through assigns holds a value when it
 * ends (not empty, not the `undefined` of a field an answer no longer has). Then each
 * walk-through's key outputs are checked: the packages it downloads, the redirect it shows.
 */

const ROOT = join(__dirname, '..');
const GUIDES_DIR = join(ROOT, 'docs', 'guides');

interface Guide {
  /** The guide's path from the repository's root, for messages: docs/guides/02-pass.md. */
  path: string;
  markdown: string;
}

/** Every guide of docs/guides/, in the order of their file names: the order a reader runs them. */
const GUIDES: Guide[] = readdirSync(GUIDES_DIR)
  .filter((file) => file.endsWith('.md'))
  .sort()
  .map((file) => ({
    path: relative(ROOT, join(GUIDES_DIR, file)),
    markdown: readFileSync(join(GUIDES_DIR, file), 'utf8'),
  }));

/** The issuer of the WalletB the walk-throughs run against (a fake of Google's API). */
const WALLET_B_ISSUER = '3388000000077778888';

/** The owner's password: the sign-in guide has the reader paste it from the log. */
const OWNER_PASSWORD = 'walk-through-password-1';

interface Block {
  /** Where the block's first code line is: the guide's path and its 1-based line. */
  at: string;
  code: string;
}

interface Walkthrough {
  name: string;
  /** The guide it is in. */
  guide: string;
  blocks: Block[];
}

const MARKER = /^<!-- walkthrough: ([a-z0-9-]+) -->$/;

/** The marked blocks of the guides, as walk-throughs in the guides' order. */
function parseWalkthroughs(guides: Guide[]): Walkthrough[] {
  const found: Walkthrough[] = [];
  for (const guide of guides) found.push(...parseGuide(guide, found));
  return found;
}

/** The marked blocks of one guide; `before` are the walk-throughs of the guides before it. */
function parseGuide({ path, markdown }: Guide, before: Walkthrough[]): Walkthrough[] {
  const lines = markdown.split('\n');
  const found: Walkthrough[] = [];
  for (let i = 0; i < lines.length; i++) {
    const marker = MARKER.exec(lines[i]);
    if (!marker) continue;
    const name = marker[1];
    let start = i + 1;
    while (start < lines.length && lines[start].trim() === '') start++;
    if (!/^```(bash|sh)$/.test(lines[start] ?? '')) {
      throw new Error(`${path}:${i + 1}: "${lines[i]}" is not followed by a bash block`);
    }
    const end = lines.indexOf('```', start + 1);
    if (end < 0) throw new Error(`${path}:${start + 1}: the block never ends`);
    const block = { at: `${path}:${start + 2}`, code: lines.slice(start + 1, end).join('\n') };
    const last = found.at(-1);
    if (last?.name === name) {
      last.blocks.push(block);
    } else if ([...before, ...found].some((walkthrough) => walkthrough.name === name)) {
      throw new Error(`${path}:${i + 1}: ${name} has blocks apart; give this one a new name`);
    } else {
      found.push({ name, guide: path, blocks: [block] });
    }
    i = end;
  }
  return found;
}

/** The bash blocks of a guide, where each starts, and whether a marker precedes each. */
function guideBlocks({ path, markdown }: Guide): { at: string; marked: boolean }[] {
  const lines = markdown.split('\n');
  const blocks: { at: string; marked: boolean }[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (/^```(bash|sh)$/.test(lines[i])) {
      let before = i - 1;
      while (before >= 0 && lines[before].trim() === '') before--;
      blocks.push({ at: `${path}:${i + 1}`, marked: MARKER.test(lines[before] ?? '') });
    }
    if (/^```/.test(lines[i])) {
      const end = lines.indexOf('```', i + 1);
      i = end < 0 ? lines.length : end;
    }
  }
  return blocks;
}

/** Names the blocks assign (`NAME=…` at the start of a line): what a later walk-through uses. */
function assignedNames(walkthrough: Walkthrough): string[] {
  const code = walkthrough.blocks.map((block) => block.code).join('\n');
  return [...new Set([...code.matchAll(/^([A-Z_][A-Z0-9_]*)=/gm)].map((match) => match[1]))];
}

/** The rules of the header comment; each of the reader's own values is set once. */
function checkRules(walkthroughs: Walkthrough[], supplied: string[]): void {
  const code = walkthroughs
    .flatMap((walkthrough) => walkthrough.blocks.map((block) => block.code))
    .join('\n');
  for (const name of supplied) {
    const count = code.match(new RegExp(`^${name}=`, 'gm'))?.length ?? 0;
    if (count !== 1) throw new Error(`The walk-throughs set ${name} ${count} times, not once`);
  }
  for (const line of code.split('\n')) {
    if (line.trim().startsWith('#')) continue;
    if (/localhost|127\.0\.0\.1|:3000\b/.test(line) && !line.startsWith('BASE=')) {
      throw new Error(`Only BASE may name the service's address: ${line}`);
    }
    for (const call of line.matchAll(/\bcurl\b(\s+\S+)?/g)) {
      if (!/^\s+(-[A-Za-z]*f[A-Za-z]*|--fail(-with-body)?)$/.test(call[1] ?? '')) {
        throw new Error(`A curl without -f (an HTTP error would pass unseen): ${line}`);
      }
    }
  }
}

/**
 * The script of one walk-through: the shell state the one before left (`previous`: its
 * variables and functions, in `.state-PREVIOUS`), its blocks with the reader's own values
 * replaced by `supplied`, then its own state for the next one and the values of `names` (the
 * variables assigned so far) in `.outputs-NAME`.
 */
function script(
  walkthrough: Walkthrough,
  previous: string | undefined,
  names: string[],
  supplied: Record<string, string>,
): string {
  let code = walkthrough.blocks.map((block) => `# ${block.at}\n${block.code}`).join('\n\n');
  for (const [name, value] of Object.entries(supplied)) {
    code = code.replace(new RegExp(`^${name}=.*$`, 'm'), `${name}='${value}'`);
  }
  return [
    'set -euo pipefail',
    previous === undefined ? '' : `source .state-${previous}`,
    // The trace goes to stderr, which a failure shows: its last command is the one that failed.
    'set -x',
    code,
    'set +x',
    `{ declare -p ${names.join(' ')}; declare -f; } > .state-${walkthrough.name}`,
    `for name in ${names.join(' ')}; do printf '%s=%s\\n' "$name" "\${!name-}"; done \\`,
    `  > .outputs-${walkthrough.name}`,
    '',
  ].join('\n');
}

interface Run {
  stdout: string;
  outputs: Record<string, string>;
}

/** Runs `bash script` in `dir`; rejects with the end of its trace when it fails. */
function runBash(dir: string, source: string, name: string): Promise<Run> {
  const path = join(dir, `${name}.sh`);
  writeFileSync(path, source);
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [path], {
      cwd: dir,
      // HOME in the run's folder: a developer's ~/.curlrc must not change what curl does.
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, LANG: 'C.UTF-8' },
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 30_000,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (status, signal) => {
      if (status !== 0) {
        const tail = stderr.trimEnd().split('\n').slice(-25).join('\n');
        reject(
          new Error(
            `The walk-through "${name}" failed (${signal ?? `exit ${status}`}); run it again ` +
              `with: (cd ${dir} && bash ${path})\n--- the end of its trace:\n${tail}`,
          ),
        );
        return;
      }
      const outputs: Record<string, string> = {};
      for (const line of readFileSync(join(dir, `.outputs-${name}`), 'utf8').split('\n')) {
        const at = line.indexOf('=');
        if (at > 0) outputs[line.slice(0, at)] = line.slice(at + 1);
      }
      resolve({ stdout, outputs });
    });
  });
}

/** A port nobody listens on right now (the kernel's choice for port 0). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

const walkthroughs = parseWalkthroughs(GUIDES);

describe('The walk-throughs of docs/guides/', () => {
  let testApp: TestApp;
  let google: GoogleWalletFake;
  let base: string;
  let certDir: string;
  /** The reader's folder: the repository's examples/, and what the walk-throughs write. */
  let workDir: string;
  const runs = new Map<string, Run>();

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    certDir = mkdtempSync(join(tmpdir(), 'wps-walkthrough-cert-'));
    workDir = mkdtempSync(join(tmpdir(), 'wps-walkthrough-'));
    symlinkSync(join(ROOT, 'examples'), join(workDir, 'examples'));
    google = await GoogleWalletFake.start({ issuerId: WALLET_B_ISSUER });
    testApp = await startTestApp({
      ...google.serviceEnv(),
      BOOTSTRAP_ADMIN_EMAIL: 'admin@example.com',
      BOOTSTRAP_ADMIN_PASSWORD: OWNER_PASSWORD,
      PUBLIC_BASE_URL: base,
      WALLET_A_DEV_CERT_DIR: certDir,
    });
    await testApp.app.listen(port, '127.0.0.1');
  });

  afterAll(async () => {
    await testApp?.close();
    await google?.close();
    rmSync(certDir, { recursive: true, force: true });
    // A failed run's folder stays, for its rerun command.
    if (runs.size === walkthroughs.length) rmSync(workDir, { recursive: true, force: true });
  });

  it('keep the rules and run every bash block of every guide', () => {
    checkRules(walkthroughs, ['BASE', 'PASSWORD']);
    expect(GUIDES.length).toBeGreaterThan(0);
    const withoutWalkthrough = GUIDES.filter(
      (guide) => !walkthroughs.some((walkthrough) => walkthrough.guide === guide.path),
    );
    expect(withoutWalkthrough.map((guide) => guide.path)).toEqual([]);
    const unmarked = GUIDES.flatMap(guideBlocks).filter((block) => !block.marked);
    expect(unmarked.map((block) => block.at)).toEqual([]);
  });

  it.each(walkthroughs.map((walkthrough, index) => ({ ...walkthrough, index })))(
    '$name runs',
    async (walkthrough) => {
      const previous = walkthroughs[walkthrough.index - 1]?.name;
      if (previous !== undefined && !runs.has(previous)) {
        throw new Error(`It starts where ${previous} ended, and ${previous} failed`);
      }
      const names = [
        ...new Set(walkthroughs.slice(0, walkthrough.index + 1).flatMap(assignedNames)),
      ];
      const supplied = { BASE: base, PASSWORD: OWNER_PASSWORD };
      const source = script(walkthrough, previous, names, supplied);
      const run = await runBash(workDir, source, walkthrough.name);
      const unset = Object.entries(run.outputs).filter(([, value]) =>
        /^(|undefined|null)$/.test(value),
      );
      expect(unset).toEqual([]);
      runs.set(walkthrough.name, run);
    },
  );

  /** Checks of each walk-through's key outputs, once it ran. */
  const ran = (name: string): Run => {
    const run = runs.get(name);
    if (!run) throw new Error(`The walk-through "${name}" did not run`);
    return run;
  };
  const caPem = () => readFileSync(join(certDir, 'dev-ca.pem'), 'utf8');

  it('sign-in: a bearer token and an API key', () => {
    const { outputs } = ran('sign-in');
    expect(outputs.TOKEN.split('.')).toHaveLength(3);
    expect(outputs.KEY).toMatch(/^wpk\./);
  });

  it('pass: the signed package of the pass, with its images', () => {
    const { outputs } = ran('pass');
    expect(outputs.DOWNLOAD_URL.startsWith(`${base}/p/`)).toBe(true);
    const opened = openPackage(readFileSync(join(workDir, 'pass.pkpass')), caPem());
    expect(opened.signatureVerifies).toBe(true);
    // What the walk-through sent, published: the design, the location, the images.
    expect(opened.passJson).toMatchObject({
      serialNumber: outputs.PASS_ID,
      backgroundColor: 'rgb(26, 43, 60)',
      barcodes: [{ message: 'https://brand.example/member/123' }],
      locations: [{ relevantText: 'Show your card at the till' }],
      storeCard: { headerFields: [{ key: 'points', value: '120' }] },
    });
    expect(Object.keys(opened.files)).toEqual(
      expect.arrayContaining(['pass.json', 'manifest.json', 'signature']),
    );
    for (const image of ['logo', 'icon', 'strip']) {
      expect(Object.keys(opened.files).some((file) => file.startsWith(image))).toBe(true);
    }
  });

  it("personal-passes: the member's own package, and the import's counts", () => {
    const { outputs, stdout } = ran('personal-passes');
    expect(outputs.MEMBER_URL.startsWith(`${base}/p/`)).toBe(true);
    const opened = openPackage(readFileSync(join(workDir, 'member-10442.pkpass')), caPem());
    expect(opened.signatureVerifies).toBe(true);
    expect(opened.passJson).toMatchObject({
      barcodes: [{ message: 'https://brand.example/member/10442', altText: 'Member 10442' }],
      storeCard: {
        headerFields: [{ key: 'points', value: '1200' }],
        secondaryFields: [{ key: 'tier', value: 'Silver' }],
      },
    });
    expect(stdout).toContain('{"created":1,"updated":1}');
  });

  it('audiences: tagged on import, the segment sized, notified and given 100 points in bulk', () => {
    const { outputs, stdout } = ran('audiences');
    expect(stdout).toContain('{"created":3,"updated":0}');
    expect(stdout).toContain('{"holders":1,"walletADevices":0,"walletBObjects":0}');
    expect(outputs.BULK_STATUS).toBe('Done');
    expect(stdout).toMatch(/"matched":1,"updated":1,"skipped":0/);
    expect(stdout).toMatch(/"fieldValues":\{"points":"1300","tier":"Gold"\}/);
  });

  it("event-ticket: the guest's ticket, its event, their seat and the German labels", () => {
    const { outputs } = ran('event-ticket');
    expect(outputs.GUEST_URL.startsWith(`${base}/p/`)).toBe(true);
    const opened = openPackage(readFileSync(join(workDir, 'guest-0042.pkpass')), caPem());
    expect(opened.signatureVerifies).toBe(true);
    expect(opened.passJson).toMatchObject({
      barcodes: [{ format: 'PKBarcodeFormatPDF417', message: 'GALA-2026-F14' }],
      relevantDate: '2026-07-04T19:30:00+02:00',
      semantics: { eventName: 'Riverside Gala', venueName: 'Riverside Hall' },
      eventTicket: {
        primaryFields: [{ key: 'event.name', value: 'Riverside Gala' }],
        auxiliaryFields: [
          { key: 'row', value: 'F' },
          { key: 'seat', value: '14' },
        ],
      },
    });
    const german = opened.files['de.lproj/pass.strings'].subarray(2).toString('utf16le');
    expect(german).toContain('"Seat" = "Platz";');
  });

  it('family-tickets: one .pkpasses of the three signed tickets, and their page', () => {
    const { outputs } = ran('family-tickets');
    expect(outputs.FAMILY_URL.startsWith(`${base}/p/`)).toBe(true);
    expect(outputs.FAMILY_URL).toMatch(/\/b\/[A-Za-z0-9_-]{32}$/);
    const entries = openBundle(readFileSync(join(workDir, 'family.pkpasses')));
    expect(entries.map((entry) => entry.name)).toEqual([
      expect.stringMatching(/^[0-9a-f]{32}\.pkpass$/),
      expect.stringMatching(/^[0-9a-f]{32}\.pkpass$/),
      expect.stringMatching(/^[0-9a-f]{32}\.pkpass$/),
    ]);
    ['1', '2', '3'].forEach((seat, index) => {
      const ticket = openPackage(entries[index].content, caPem());
      expect(ticket.signatureVerifies).toBe(true);
      expect(ticket.passJson).toMatchObject({
        barcodes: [{ message: `GALA-2026-G${seat}` }],
        eventTicket: {
          auxiliaryFields: [
            { key: 'row', value: 'G' },
            { key: 'seat', value: seat },
          ],
        },
      });
    });
    const page = readFileSync(join(workDir, 'family.html'), 'utf8');
    expect(page.match(/<article class="card"/g)).toHaveLength(3);
    expect(page).toContain(`href="${outputs.FAMILY_URL}/passes.pkpasses">Add to WalletA</a>`);
    expect(page).toContain('Add to WalletB');
  });

  it('coupon: the offer, its Code128 code and its end', () => {
    const opened = openPackage(readFileSync(join(workDir, 'coupon.pkpass')), caPem());
    expect(opened.signatureVerifies).toBe(true);
    expect(opened.passJson).toMatchObject({
      barcodes: [{ format: 'PKBarcodeFormatCode128', message: 'SUMMER20' }],
      expirationDate: '2026-07-31T23:59:00+02:00',
      coupon: { primaryFields: [{ key: 'offer.title', value: '20 % off your next visit' }] },
    });
  });

  it("nfc-card: the member's own message in pass.json, and Smart Tap on WalletB", async () => {
    const { outputs } = ran('nfc-card');
    const opened = openPackage(readFileSync(join(workDir, 'member-20001.pkpass')), caPem());
    expect(opened.signatureVerifies).toBe(true);
    expect(opened.passJson.nfc).toEqual({
      message: 'MEMBER-20001',
      encryptionPublicKey: expect.stringMatching(/^MFkw/),
      requiresAuthentication: false,
    });
    const classId = `${WALLET_B_ISSUER}.${outputs.NFC_PASS_ID}`;
    for (let tries = 0; !google.classes.has(classId) && tries < 100; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(google.classes.get(classId)).toMatchObject({
      enableSmartTap: true,
      redemptionIssuers: [WALLET_B_ISSUER],
    });
    const saveLink = await request(testApp.server)
      .get(`${new URL(outputs.NFC_MEMBER_URL).pathname}/wallet-b`)
      .expect(302);
    const url = saveLink.headers.location;
    const jwt = verifyRs256Jwt(url.slice(GOOGLE_SAVE_URL_PREFIX.length), google.publicKey);
    const payload = jwt.claims.payload as { loyaltyObjects: Record<string, unknown>[] };
    expect(payload.loyaltyObjects[0]).toMatchObject({ smartTapRedemptionValue: 'MEMBER-20001' });
  });

  it("short-links: the pass's link redirects with its utm_source", () => {
    const { stdout } = ran('short-links');
    expect(stdout).toMatch(/^HTTP\/1\.1 302 Found\r?$/m);
    expect(stdout).toMatch(/^location: https:\/\/brand\.example\/stores\?utm_source=wallet\r?$/im);
  });
});
