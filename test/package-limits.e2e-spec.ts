import { readPngHeader } from '@app/uploads';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Server } from 'node:http';
import request from 'supertest';
import { binaryBody, openPackage, sha1 } from './support/pkpass';
import { makeBloatedPng, makePng } from './support/png';
import type { OwnerSession } from './support/session';
import type { TestApp } from './support/test-app';
import { WALLET_A_KINDS } from './support/wallet-a-kinds';
import { startWalletAApp, type WalletAApp } from './support/walleta-env';

const MB = 1024 * 1024;

/** Every image name a pass package can hold: eight roles at three scales. */
const ALL_IMAGE_NAMES = [
  'logo',
  'icon',
  'strip',
  'footer',
  'thumbnail',
  'background',
  'artwork',
  'primaryLogo',
].flatMap((role) => ['', '@2x', '@3x'].map((scale) => `${role}${scale}.png`));

/**
 * Polls /health while `attack` runs and reports the slowest answer: the event loop must stay
 * free for everyone else whatever one request costs.
 */
async function slowestHealthDuring<T>(
  server: Server,
  attack: Promise<T>,
): Promise<{ result: T; slowestMs: number; polls: number; longestBlockMs: number }> {
  // The longest time this process's event loop (the app's: it runs in the test process) was
  // held: the direct measure of "holding up other requests", free of the database's latency.
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  loopDelay.enable();
  let done = false;
  let slowestMs = 0;
  let polls = 0;
  const poller = (async () => {
    while (!done) {
      const started = Date.now();
      await request(server).get('/health').expect(200);
      slowestMs = Math.max(slowestMs, Date.now() - started);
      polls += 1;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  try {
    const result = await attack;
    loopDelay.disable();
    return { result, slowestMs, polls, longestBlockMs: loopDelay.max / 1e6 };
  } finally {
    loopDelay.disable();
    done = true;
    await poller;
  }
}

describe('Pass images and package limits', () => {
  let walletA: WalletAApp;
  let testApp: TestApp;
  let owner: OwnerSession;
  let counter = 0;

  beforeAll(async () => {
    walletA = await startWalletAApp();
    ({ testApp, owner } = walletA);
  });
  afterAll(() => walletA.close());

  const http = () => request(testApp.server);
  const uploadAs = (content: Buffer, fileName: string, bucket = 'pass-assets') =>
    http()
      .post('/v1/uploads/storage')
      .set(owner.auth)
      .field('bucket', bucket)
      .attach('file', content, fileName);
  const publish = (
    uploadInfoList: { fileName: string; uploadKey: string }[],
    passMetadata: object = { description: 'Card', organizationName: 'Brand' },
  ) =>
    http()
      .post('/v1/wallet-pass')
      .set(owner.auth)
      .send({
        passName: `Limits ${++counter}`,
        passMetadata,
        status: 'Published',
        uploadInfoList,
      });
  const requiredImages = async () => {
    const images = [];
    for (const fileName of ['logo.png', 'icon.png', 'strip.png']) {
      images.push({ fileName, uploadKey: await owner.upload(makePng(), fileName) });
    }
    return images;
  };

  it('refuses a 10 MB "PNG" of random bytes at upload, and /health keeps answering', async () => {
    const { result, longestBlockMs } = await slowestHealthDuring(
      testApp.server,
      uploadAs(makeBloatedPng(10 * MB - 1024), 'logo.png').then((response) => response),
    );
    expect(result.status).toBe(400);
    expect(result.body).toMatchObject({
      errorCode: 'INVALID_INPUT',
      context: { file: expect.stringMatching(/more than a 1×1 PNG needs/) },
    });
    // Checking the upload never holds the event loop (and so every other request) for long.
    expect(longestBlockMs).toBeLessThan(1000);
  });

  it('refuses a PNG larger in pixels than any pass image at upload', async () => {
    const response = await uploadAs(makeBloatedPng(64, 20_000, 20_000), 'strip.png').expect(400);
    expect(response.body.context).toEqual({
      file: expect.stringMatching(/20000×20000 pixels; a pass image is at most 1125×1344/),
    });
  });

  it('refuses one upload used for all 24 image names at publish', async () => {
    const key = await owner.upload(makePng({ width: 29, height: 29 }), 'any.png');
    const response = await publish(
      ALL_IMAGE_NAMES.map((fileName) => ({ fileName, uploadKey: key })),
    ).expect(400);
    expect(response.body.context).toEqual({
      'uploadInfoList[1].uploadKey': expect.stringMatching(
        /already the image of uploadInfoList\[0\]/,
      ),
    });
  });

  it('checks each image against its role at publish, whichever bucket it came from', async () => {
    const images = await requiredImages();
    // The campaign bucket takes any PNG; as a pass image it must still fit the role.
    const bloated = (await uploadAs(makeBloatedPng(2 * MB), 'x.png', 'campaign-assets').expect(201))
      .body as { uploadKey: string };
    const bloatedLogo = await publish([
      { fileName: 'logo.png', uploadKey: bloated.uploadKey },
      ...images.slice(1),
    ]).expect(400);
    expect(bloatedLogo.body.context).toEqual({
      'uploadInfoList[0].uploadKey': expect.stringMatching(/more than a 1×1 PNG needs/),
    });

    const hugeIcon = await owner.upload(makePng({ width: 300, height: 300 }), 'icon.png');
    const response = await publish([
      images[0],
      { fileName: 'icon.png', uploadKey: hugeIcon },
      images[2],
    ]).expect(400);
    expect(response.body.context).toEqual({
      'uploadInfoList[1].uploadKey': expect.stringMatching(
        /300×300 pixels; a icon image is at most 114×114/,
      ),
    });
  });

  it("checks a poster's primary logo against its size (126×30 points)", async () => {
    const images = await requiredImages();
    const wide = await owner.upload(makePng({ width: 400, height: 90 }), 'primaryLogo.png');
    const response = await publish([
      ...images,
      { fileName: 'primaryLogo@3x.png', uploadKey: wide },
    ]).expect(400);
    expect(response.body.context).toEqual({
      'uploadInfoList[3].uploadKey': expect.stringMatching(
        /400×90 pixels; a primaryLogo image is at most 378×90/,
      ),
    });
    const fits = await owner.upload(makePng({ width: 378, height: 90 }), 'primaryLogo.png');
    await publish([...images, { fileName: 'primaryLogo@3x.png', uploadKey: fits }]).expect(201);
  });

  it('refuses images that together exceed the package limit', async () => {
    const images = (await requiredImages()).slice(0, 2);
    // Noise does not compress: each of these is as large as an honest PNG of its size gets.
    for (const [role, width, height] of [
      ['strip', 1125, 432],
      ['background', 540, 660],
      ['thumbnail', 270, 270],
    ] as const) {
      const content = makePng({ width, height, noise: true });
      for (const scale of ['', '@2x', '@3x']) {
        const fileName = `${role}${scale}.png`;
        images.push({ fileName, uploadKey: await owner.upload(content, fileName) });
      }
    }
    const response = await publish(images).expect(400);
    expect(response.body.context).toEqual({
      uploadInfoList: expect.stringMatching(/a pass's images may have at most 10485760/),
    });
  });

  it('builds the largest package the limits allow without holding up other requests', async () => {
    const images: { fileName: string; uploadKey: string }[] = [];
    const contents = new Map<string, Buffer>();
    // A package holds the images its kind shows: the poster event ticket shows the most pixels
    // (its artwork, and the classic ticket's background and thumbnail for older devices).
    for (const [role, width, height, scales] of [
      ['logo', 480, 150, ['', '@2x', '@3x']],
      ['icon', 114, 114, ['', '@2x', '@3x']],
      ['artwork', 1074, 1344, ['@3x']],
      ['background', 540, 660, ['@2x', '@3x']],
      ['thumbnail', 270, 270, ['@3x']],
      ['primaryLogo', 378, 90, ['', '@2x', '@3x']],
    ] as const) {
      const content = makePng({ width, height, noise: true });
      for (const scale of scales) {
        const fileName = `${role}${scale}.png`;
        contents.set(fileName, content);
        images.push({ fileName, uploadKey: await owner.upload(content, fileName) });
      }
    }
    const total = [...contents.values()].reduce((sum, content) => sum + content.length, 0);
    expect(total).toBeGreaterThan(9 * MB);

    const pass = (await publish(images, WALLET_A_KINDS.eventTicket.metadata).expect(201)).body as {
      slug: string;
    };
    const started = Date.now();
    const { result, slowestMs, polls, longestBlockMs } = await slowestHealthDuring(
      testApp.server,
      http()
        .get(`/p/${pass.slug}/pass.pkpass`)
        .buffer(true)
        .parse(binaryBody)
        .then((response) => response),
    );
    const elapsedMs = Date.now() - started;
    process.stdout.write(
      `package of ${(total / MB).toFixed(1)} MB of uploads (${((result.body as Buffer).length / MB).toFixed(1)} MB with the scales made from them) built and sent in ${elapsedMs} ms; slowest /health ${slowestMs} ms over ${polls} polls; event loop held at most ${longestBlockMs.toFixed(0)} ms\n`,
    );
    expect(result.status).toBe(200);
    // Measured on the event loop itself, not by /health's latency, which on a loaded machine
    // also carries the database's. Alone it reads 140-700 ms; under the whole parallel suite on
    // two cores it has read 1,075 ms, so the bound is 2 s: building the package in one
    // synchronous piece is what it is there to catch. The figure itself is bench:download's.
    expect(longestBlockMs).toBeLessThan(2000);

    const opened = openPackage(result.body as Buffer, walletA.caPem());
    expect(opened.signatureVerifies).toBe(true);
    // Given explicit scale names, the package holds them as given, and makes each scale a role
    // lacks from its @3x: the artwork's and the thumbnail's @1x and @2x, the background's @1x.
    const made = {
      'artwork.png': [358, 448],
      'artwork@2x.png': [716, 896],
      'background.png': [180, 220],
      'thumbnail.png': [90, 90],
      'thumbnail@2x.png': [180, 180],
    };
    expect(Object.keys(opened.manifest).sort()).toEqual(
      ['pass.json', ...contents.keys(), ...Object.keys(made)].sort(),
    );
    for (const [fileName, content] of contents) {
      expect(opened.files[fileName].equals(content)).toBe(true);
      expect(opened.manifest[fileName]).toBe(sha1(content));
    }
    for (const [fileName, [width, height]] of Object.entries(made)) {
      expect(readPngHeader(opened.files[fileName])).toMatchObject({ width, height });
      expect(opened.manifest[fileName]).toBe(sha1(opened.files[fileName]));
    }
    expect(opened.manifest['pass.json']).toBe(sha1(opened.files['pass.json']));
  });
});
