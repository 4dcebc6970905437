import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { makePng, type PngOptions } from './support/png';
import { OwnerSession } from './support/session';
import { startTestApp, type TestApp } from './support/test-app';

const EXAMPLES = join(__dirname, '..', 'examples', 'images');

/** The images the walk-throughs (docs/guides) upload: Apple's @3x sizes, in the brand's colours. */
const IMAGES: Record<string, PngOptions> = {
  'logo.png': { width: 480, height: 150, rgba: [26, 43, 60, 255], gradientTo: [62, 110, 160, 255] },
  'icon.png': { width: 114, height: 114, rgba: [26, 43, 60, 255] },
  'strip.png': {
    width: 1125,
    height: 432,
    rgba: [255, 204, 102, 255],
    gradientTo: [230, 92, 60, 255],
  },
};

/**
 * `examples/images/` holds the PNGs a newcomer uploads in the walk-throughs, made here from
 * `IMAGES` (`npm run examples:images` writes them); this checks they are the committed bytes and
 * that the service publishes a pass with them.
 */
describe('Example images of the walk-throughs', () => {
  let testApp: TestApp;

  beforeAll(async () => {
    testApp = await startTestApp();
  });
  afterAll(() => testApp.close());

  it('are committed as made here (npm run examples:images)', () => {
    for (const [fileName, options] of Object.entries(IMAGES)) {
      const made = makePng(options);
      const path = join(EXAMPLES, fileName);
      if (process.env.EXAMPLE_IMAGES_WRITE === '1') {
        mkdirSync(EXAMPLES, { recursive: true });
        writeFileSync(path, made);
        continue;
      }
      expect(readFileSync(path).equals(made)).toBe(true);
      // Small enough to keep in the repository.
      expect(made.length).toBeLessThan(20_000);
    }
  });

  it('publish a pass', async () => {
    const owner = await OwnerSession.start(testApp.server);
    const uploadInfoList = [];
    for (const fileName of Object.keys(IMAGES)) {
      uploadInfoList.push({
        fileName,
        uploadKey: await owner.upload(readFileSync(join(EXAMPLES, fileName)), fileName),
      });
    }
    await request(testApp.server)
      .post('/v1/wallet-pass')
      .set(owner.auth)
      .send({
        passName: 'Example images',
        passMetadata: { description: 'Card', organizationName: 'Brand' },
        status: 'Published',
        uploadInfoList,
      })
      .expect(201);
  });
});
