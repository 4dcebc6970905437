import { UploadsService } from '@app/uploads';
import { createHash } from 'node:crypto';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { binaryBody } from './support/pkpass';
import { makeJpegLikeBytes, makePng } from './support/png';
import { OwnerSession } from './support/session';
import { bearer, startTestApp, type TestApp } from './support/test-app';

const MAX_BYTES = 1024;
const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The path and query of an absolute signed URL, for supertest. */
function pathOf(url: string): string {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
}

function expectErrorBody(body: Record<string, unknown>, errorCode: string): void {
  expect(body).toMatchObject({
    txId: expect.any(String),
    timestamp: expect.any(String),
    errorCode,
  });
}

describe('Uploads', () => {
  let testApp: TestApp;
  let owner: OwnerSession;
  let storageDir: string;
  const png = makePng({ width: 3, height: 2, rgba: [10, 20, 30, 255] });

  beforeAll(async () => {
    storageDir = mkdtempSync(join(tmpdir(), 'wps-uploads-e2e-'));
    testApp = await startTestApp({
      UPLOAD_MAX_BYTES: String(MAX_BYTES),
      STORAGE_DIR: storageDir,
      PUBLIC_BASE_URL: 'https://wallet.test.example',
    });
    owner = await OwnerSession.start(testApp.server);
  });
  afterAll(async () => {
    await testApp.close();
    rmSync(storageDir, { recursive: true, force: true });
  });

  const http = () => request(testApp.server);
  const service = () => testApp.app.get(UploadsService);

  describe('POST /v1/uploads/storage', () => {
    it('takes a multipart PNG and answers with every field', async () => {
      const response = await http()
        .post('/v1/uploads/storage')
        .set(owner.auth)
        .field('bucket', 'pass-assets')
        .attach('file', png, { filename: 'logo.png', contentType: 'image/png' })
        .expect(201);
      expect(response.body).toEqual({
        msg: 'File uploaded',
        uploadKey: expect.stringMatching(UUID_V7),
        fileName: 'logo.png',
        bucket: 'pass-assets',
        size: png.length,
        contentType: 'image/png',
      });
      const upload = await service().getForWorkspace(
        owner.defaultWorkspaceId,
        response.body.uploadKey,
      );
      expect(upload).toMatchObject({
        workspaceId: owner.defaultWorkspaceId,
        storageKey: `pass-assets/${owner.defaultWorkspaceId}/${response.body.uploadKey}/logo.png`,
        sha256: createHash('sha256').update(png).digest('hex'),
        size: png.length,
      });
    });

    it('takes the JSON form with the file base64-encoded', async () => {
      const response = await http()
        .post('/v1/uploads/storage')
        .set(owner.auth)
        .send({ file: png.toString('base64'), fileName: 'icon.png', bucket: 'pass-assets' })
        .expect(201);
      expect(response.body).toMatchObject({
        msg: 'File uploaded',
        uploadKey: expect.stringMatching(UUID_V7),
        fileName: 'icon.png',
        bucket: 'pass-assets',
        size: png.length,
        contentType: 'image/png',
      });
    });

    it('puts a file without a bucket into pass-assets, in either form', async () => {
      const multipart = await http()
        .post('/v1/uploads/storage')
        .set(owner.auth)
        .attach('file', png, 'strip.png')
        .expect(201);
      expect(multipart.body.bucket).toBe('pass-assets');
      const json = await http()
        .post('/v1/uploads/storage')
        .set(owner.auth)
        .send({ file: png.toString('base64'), fileName: 'strip.png' })
        .expect(201);
      expect(json.body.bucket).toBe('pass-assets');
    });

    it('answers a bucket outside UPLOAD_BUCKETS with 400 and context.bucket', async () => {
      const response = await http()
        .post('/v1/uploads/storage')
        .set(owner.auth)
        .field('bucket', 'secrets')
        .attach('file', png, 'logo.png')
        .expect(400);
      expectErrorBody(response.body, 'INVALID_INPUT');
      expect(response.body.errorMessage).toBeUndefined();
      expect(response.body.context).toEqual({
        bucket: 'must be one of pass-assets, campaign-assets',
      });
    });

    it('refuses JPEG bytes named .png for pass-assets with 415', async () => {
      const response = await http()
        .post('/v1/uploads/storage')
        .set(owner.auth)
        .attach('file', makeJpegLikeBytes(), { filename: 'logo.png', contentType: 'image/png' })
        .expect(415);
      expectErrorBody(response.body, 'UNSUPPORTED_MEDIA_TYPE');
      expect(response.body.errorMessage).toEqual(expect.any(String));
      expect(response.body.context).toEqual({ bucket: 'pass-assets', contentType: 'image/jpeg' });
    });

    it('takes JPEG and CSV into campaign-assets, and refuses unknown bytes there', async () => {
      const jpeg = await http()
        .post('/v1/uploads/storage')
        .set(owner.auth)
        .field('bucket', 'campaign-assets')
        .attach('file', makeJpegLikeBytes(), 'poster.png')
        .expect(201);
      expect(jpeg.body).toMatchObject({ contentType: 'image/jpeg', fileName: 'poster.png' });

      const csv = Buffer.from('platform,views\nSocialA,100\n', 'utf8');
      const text = await http()
        .post('/v1/uploads/storage')
        .set(owner.auth)
        .send({ file: csv.toString('base64'), fileName: 'views.csv', bucket: 'campaign-assets' })
        .expect(201);
      expect(text.body).toMatchObject({ contentType: 'text/csv', size: csv.length });

      const unknown = await http()
        .post('/v1/uploads/storage')
        .set(owner.auth)
        .field('bucket', 'campaign-assets')
        .attach('file', Buffer.from([0, 1, 2, 3, 4, 5]), 'data.csv')
        .expect(415);
      expectErrorBody(unknown.body, 'UNSUPPORTED_MEDIA_TYPE');
    });

    it('answers a file one byte over UPLOAD_MAX_BYTES with 413, in either form', async () => {
      const tooBig = Buffer.alloc(MAX_BYTES + 1, 1);
      const multipart = await http()
        .post('/v1/uploads/storage')
        .set(owner.auth)
        .attach('file', tooBig, 'big.png')
        .expect(413);
      expectErrorBody(multipart.body, 'PAYLOAD_TOO_LARGE');
      expect(multipart.body.context).toEqual({ limitBytes: MAX_BYTES });

      const json = await http()
        .post('/v1/uploads/storage')
        .set(owner.auth)
        .send({ file: tooBig.toString('base64'), fileName: 'big.png' })
        .expect(413);
      expectErrorBody(json.body, 'PAYLOAD_TOO_LARGE');
      expect(json.body.context).toEqual({ limitBytes: MAX_BYTES });

      const exactly = makePng({ width: 1, height: 1 });
      await http()
        .post('/v1/uploads/storage')
        .set(owner.auth)
        .attach('file', Buffer.concat([exactly, Buffer.alloc(MAX_BYTES - exactly.length)]), 'x.png')
        .expect(201);
    });

    it('sanitises the file name', async () => {
      const response = await http()
        .post('/v1/uploads/storage')
        .set(owner.auth)
        .send({ file: png.toString('base64'), fileName: '../../etc/Résumé (final)?.png' })
        .expect(201);
      expect(response.body.fileName).toBe('Resume_final_.png');

      const multipart = await http()
        .post('/v1/uploads/storage')
        .set(owner.auth)
        .attach('file', png, 'Café Crème.png')
        .expect(201);
      expect(multipart.body.fileName).toBe('Cafe_Creme.png');
    });

    it('checks the JSON form field by field', async () => {
      const missing = await http().post('/v1/uploads/storage').set(owner.auth).send({}).expect(400);
      expect(missing.body.context).toEqual({
        file: 'must not be null',
        fileName: 'must not be null',
      });

      const malformed = await http()
        .post('/v1/uploads/storage')
        .set(owner.auth)
        .send({ file: 'not base64!', fileName: 'x'.repeat(256), colour: 'red' })
        .expect(400);
      expect(malformed.body.context).toEqual({
        file: 'must be base64-encoded',
        fileName: 'must be shorter than or equal to 255 characters',
        colour: 'is not a known field',
      });

      const empty = await http()
        .post('/v1/uploads/storage')
        .set(owner.auth)
        .send({ file: '', fileName: 'a.png' })
        .expect(400);
      expect(empty.body.context).toEqual({ file: 'must not be empty' });
    });

    it('needs the file part in a multipart form', async () => {
      const response = await http()
        .post('/v1/uploads/storage')
        .set(owner.auth)
        .field('bucket', 'pass-assets')
        .expect(400);
      expect(response.body.context).toEqual({ file: 'must not be null' });
    });

    it('answers 503 UNAVAILABLE when file storage fails, and works again once it is back', async () => {
      const aside = `${storageDir}.aside`;
      renameSync(storageDir, aside);
      writeFileSync(storageDir, 'not a directory');
      try {
        const response = await http()
          .post('/v1/uploads/storage')
          .set(owner.auth)
          .attach('file', png, 'logo.png')
          .expect(503);
        expectErrorBody(response.body, 'UNAVAILABLE');
        expect(response.headers['retry-after']).toBe('5');
      } finally {
        rmSync(storageDir);
        renameSync(aside, storageDir);
      }
      await http()
        .post('/v1/uploads/storage')
        .set(owner.auth)
        .attach('file', png, 'logo.png')
        .expect(201);
    });

    it('answers without credentials with 401', async () => {
      const response = await http()
        .post('/v1/uploads/storage')
        .attach('file', png, 'logo.png')
        .expect(401);
      expectErrorBody(response.body, 'UNAUTHORIZED');
    });

    it('answers a text/plain body with 415', async () => {
      const response = await http()
        .post('/v1/uploads/storage')
        .set(owner.auth)
        .set('Content-Type', 'text/plain')
        .send('hello')
        .expect(415);
      expectErrorBody(response.body, 'UNSUPPORTED_MEDIA_TYPE');
    });

    it('answers x-workspace-id of a workspace the caller is not in with 403', async () => {
      const member = await owner.addMember('member', [owner.defaultWorkspaceId]);
      const elsewhere = await owner.createWorkspace();
      const response = await http()
        .post('/v1/uploads/storage')
        .set(bearer(member.token))
        .set('x-workspace-id', elsewhere)
        .attach('file', png, 'logo.png')
        .expect(403);
      expectErrorBody(response.body, 'FORBIDDEN');
    });

    it('stores the upload in the workspace named by x-workspace-id', async () => {
      const workspaceId = await owner.createWorkspace();
      const response = await http()
        .post('/v1/uploads/storage')
        .set(owner.auth)
        .set('x-workspace-id', workspaceId)
        .attach('file', png, 'logo.png')
        .expect(201);
      const upload = await service().getForWorkspace(workspaceId, response.body.uploadKey);
      expect(upload.workspaceId).toBe(workspaceId);
      await expect(
        service().getForWorkspace(owner.defaultWorkspaceId, response.body.uploadKey),
      ).rejects.toMatchObject({ code: 'NOT_FOUND', context: { id: response.body.uploadKey } });
    });
  });

  describe('signed downloads', () => {
    let uploadKey: string;

    beforeAll(async () => {
      const response = await http()
        .post('/v1/uploads/storage')
        .set(owner.auth)
        .attach('file', png, 'logo.png')
        .expect(201);
      uploadKey = response.body.uploadKey;
    });

    const signedUrl = async (expiresInSeconds?: number) => {
      const upload = await service().getForWorkspace(owner.defaultWorkspaceId, uploadKey);
      return service().signedUrl(upload, expiresInSeconds);
    };

    it('serves the exact bytes through a signed URL, without credentials', async () => {
      const url = await signedUrl();
      expect(url).toMatch(
        new RegExp(
          `^https://wallet\\.test\\.example/files/pass-assets/${owner.defaultWorkspaceId}/${uploadKey}/logo\\.png\\?expires=\\d+&signature=[0-9a-f]{64}$`,
        ),
      );
      const response = await http().get(pathOf(url)).buffer(true).parse(binaryBody).expect(200);
      expect(Buffer.compare(response.body as Buffer, png)).toBe(0);
      expect(response.headers['content-type']).toBe('image/png');
      expect(response.headers['content-length']).toBe(String(png.length));
      expect(response.headers['content-disposition']).toBe('inline; filename="logo.png"');
      expect(response.headers['cache-control']).toMatch(/^private, max-age=(3600|3599)$/);
    });

    it('answers a tampered or missing signature with 403', async () => {
      const url = new URL(await signedUrl());
      const signature = url.searchParams.get('signature')!;
      url.searchParams.set('signature', `${signature[0] === 'a' ? 'b' : 'a'}${signature.slice(1)}`);
      const tampered = await http().get(pathOf(url.toString())).expect(403);
      expectErrorBody(tampered.body, 'FORBIDDEN');

      const later = new URL(await signedUrl());
      later.searchParams.set('expires', String(Number(later.searchParams.get('expires')) + 3600));
      await http().get(pathOf(later.toString())).expect(403);

      const unsigned = new URL(await signedUrl());
      unsigned.searchParams.delete('signature');
      const missing = await http().get(pathOf(unsigned.toString())).expect(403);
      expectErrorBody(missing.body, 'FORBIDDEN');
    });

    it('answers an expired URL with 403', async () => {
      const response = await http()
        .get(pathOf(await signedUrl(-1)))
        .expect(403);
      expectErrorBody(response.body, 'FORBIDDEN');
      expect(response.body.errorMessage).toBe('The download link has expired');
    });

    it('answers a signed URL of a file that is gone with 404', async () => {
      const upload = await service().getForWorkspace(owner.defaultWorkspaceId, uploadKey);
      const gone = { ...upload, storageKey: upload.storageKey.replace('logo.png', 'gone.png') };
      const response = await http()
        .get(pathOf(await service().signedUrl(gone)))
        .expect(404);
      expectErrorBody(response.body, 'NOT_FOUND');
    });

    it('finds no upload of another workspace through the service', async () => {
      const otherWorkspace = await owner.createWorkspace();
      await expect(service().getForWorkspace(otherWorkspace, uploadKey)).rejects.toMatchObject({
        code: 'NOT_FOUND',
        status: 404,
        context: { id: uploadKey },
      });
    });

    it('opens the stored bytes through the service', async () => {
      const upload = await service().getForWorkspace(owner.defaultWorkspaceId, uploadKey);
      const file = await service().open(upload);
      const chunks: Buffer[] = [];
      for await (const chunk of file.stream) chunks.push(chunk as Buffer);
      expect(Buffer.concat(chunks)).toEqual(png);
      expect(file).toMatchObject({ size: png.length, contentType: 'image/png' });
    });
  });
});

describe('Uploads: who may upload, and how much', () => {
  let testApp: TestApp;
  let owner: OwnerSession;
  const file = (size: number) => makePng({ width: 1, height: 1, rgba: [size % 255, 0, 0, 255] });

  beforeAll(async () => {
    testApp = await startTestApp({ UPLOAD_QUOTA_BYTES: String(3 * file(0).length + 10) });
    owner = await OwnerSession.start(testApp.server);
  });
  afterAll(() => testApp.close());

  it('refuses uploads by branded users, who only read', async () => {
    const branded = await owner.addMember('branded', [owner.defaultWorkspaceId]);
    const response = await request(testApp.server)
      .post('/v1/uploads/storage')
      .set(bearer(branded.token))
      .attach('file', file(1), 'logo.png')
      .expect(403);
    expectErrorBody(response.body, 'FORBIDDEN');
  });

  it("keeps a workspace's uploads within its storage quota, other workspaces unaffected", async () => {
    for (let i = 0; i < 3; i += 1) await owner.upload(file(i), `logo-${i}.png`);
    const refused = await request(testApp.server)
      .post('/v1/uploads/storage')
      .set(owner.auth)
      .attach('file', file(4), 'logo.png')
      .expect(413);
    expectErrorBody(refused.body, 'PAYLOAD_TOO_LARGE');
    expect(refused.body.context).toEqual({
      quotaBytes: 3 * file(0).length + 10,
      usedBytes: 3 * file(0).length,
    });
    const other = await owner.createWorkspace();
    await owner.upload(file(5), 'logo.png', { workspaceId: other });
  });
});
