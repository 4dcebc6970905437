import request from 'supertest';
import { makeJpegLikeBytes, makePng } from './support/png';
import { OwnerSession } from './support/session';
import { bearer, startTestApp, type TestApp } from './support/test-app';

const METADATA = {
  description: 'Loyalty card',
  organizationName: 'Brand Ltd',
  backgroundColor: '#112233',
  displayTextColor: '#FFFFFF',
  topField: { key: 'points', label: 'Points', value: '120', changeMessage: 'You have %@ points' },
  secondaryFields: [{ key: 'tier', label: 'Tier', value: 'Gold', changeMessage: null }],
  backFields: [
    {
      key: 'links',
      label: 'Links',
      value: [
        { text: 'Stores', link: 'https://brand.example/stores', utmSource: 'wallet' },
        { text: 'Just text' },
      ],
      changeMessage: null,
    },
  ],
  qrUrl: 'https://brand.example/member/1',
  qrText: 'Member 1',
};

describe('Passes', () => {
  let testApp: TestApp;
  let owner: OwnerSession;
  let images: { fileName: string; uploadKey: string }[];

  beforeAll(async () => {
    testApp = await startTestApp({ PUBLIC_BASE_URL: 'https://wallet.test' });
    owner = await OwnerSession.start(testApp.server);
    images = [];
    for (const name of ['logo.png', 'icon.png', 'strip.png']) {
      images.push({ fileName: name, uploadKey: await owner.upload(makePng(), name) });
    }
  });
  afterAll(() => testApp.close());

  const http = () => request(testApp.server);
  let counter = 0;
  const create = (body: Record<string, unknown> = {}) =>
    http()
      .post('/v1/wallet-pass')
      .set(owner.auth)
      .send({ passName: `Pass ${++counter}`, passMetadata: METADATA, ...body });

  describe('create', () => {
    it('creates a Draft pass with every field of the spec', async () => {
      const response = await create({
        passName: 'Gold card',
        notificationHeader: 'Brand news',
      }).expect(201);
      const pass = response.body;
      expect(pass).toMatchObject({
        id: expect.stringMatching(/^[a-zA-Z0-9-_]+$/),
        passName: 'Gold card',
        notificationHeader: 'Brand news',
        status: 'Draft',
        uploadInfoList: [],
        appleIssuedCount: 0,
        googleIssuedCount: 0,
        totalIssuedCount: 0,
        appleActiveCount: 0,
        googleActiveCount: 0,
        totalActiveCount: 0,
        slug: expect.stringMatching(/^[A-Za-z0-9_-]{10}$/),
        googleSaveUrl: null,
        workspaceId: owner.defaultWorkspaceId,
        account: { id: expect.any(String), name: 'Default workspace' },
        createdBy: expect.any(String),
        updatedBy: expect.any(String),
      });
      expect(pass.accountId).toBe(pass.account.id);
      expect(pass.downloadUrl).toBe(`https://wallet.test/p/${pass.slug}`);
      expect(pass.createdTime).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      expect(pass.passMetadata.topField).toEqual(METADATA.topField);
    });

    it('gives each back-field link a short link and leaves text-only values alone', async () => {
      const pass = (await create().expect(201)).body;
      const [link, text] = pass.passMetadata.backFields[0].value;
      expect(link).toEqual({
        text: 'Stores',
        link: 'https://brand.example/stores',
        utmSource: 'wallet',
        slug: expect.any(String),
        shortLinkId: expect.any(String),
        shortLinkValue: `https://wallet.test/l/${link.slug}`,
      });
      expect(text).toEqual({ text: 'Just text' });
    });

    it('keeps a short link when the link value is sent back with its shortLinkId', async () => {
      const pass = (await create().expect(201)).body;
      const original = pass.passMetadata.backFields[0].value[0];
      const updated = await http()
        .patch(`/v1/wallet-pass/${pass.id}`)
        .set(owner.auth)
        .send({ passName: pass.passName, passMetadata: pass.passMetadata })
        .expect(200);
      expect(updated.body.passMetadata.backFields[0].value[0]).toEqual(original);
    });

    it('uses a given slug, and refuses a taken one with 409', async () => {
      const first = await create({ slug: 'summer-card' }).expect(201);
      expect(first.body.slug).toBe('summer-card');
      const second = await create({ slug: 'summer-card' }).expect(409);
      expect(second.body).toMatchObject({
        errorCode: 'CONFLICT',
        context: { slug: 'summer-card' },
      });
    });

    it('keeps passName unique in the workspace (case-insensitively), even under concurrent creates', async () => {
      await create({ passName: 'Unique name' }).expect(201);
      const duplicate = await create({ passName: 'UNIQUE NAME' }).expect(409);
      expect(duplicate.body.context).toEqual({ passName: 'UNIQUE NAME' });

      const results = await Promise.all(
        Array.from({ length: 8 }, () => create({ passName: 'Race' }).then((r) => r.status)),
      );
      expect(results.filter((status) => status === 201)).toHaveLength(1);
      expect(results.filter((status) => status === 409)).toHaveLength(7);
    });

    it('allows the same passName in another workspace', async () => {
      const other = await owner.createWorkspace();
      await create({ passName: 'Shared name' }).expect(201);
      await http()
        .post('/v1/wallet-pass')
        .set(owner.auth)
        .set('x-workspace-id', other)
        .send({ passName: 'Shared name', passMetadata: METADATA })
        .expect(201);
    });

    it('validates passMetadata field by field', async () => {
      const response = await create({
        passName: '',
        passMetadata: {
          ...METADATA,
          organizationName: undefined,
          backgroundColor: 'blue',
          displayTextColor: '#FFF',
          topField: { label: 'no key', value: '1' },
          secondaryFields: [{ key: 'a', value: 1 }],
          backFields: [{ key: 'b', value: [{ link: 'not a url' }] }],
          qrUrl: 'x'.repeat(2049),
          barcodeFormat: 'EAN8',
        },
      }).expect(400);
      expect(response.body.errorMessage).toBeUndefined();
      expect(response.body.context).toEqual({
        passName: 'must not be empty',
        'passMetadata.organizationName': 'must not be null',
        'passMetadata.backgroundColor': 'must be a colour written as #RRGGBB',
        'passMetadata.displayTextColor': 'must be a colour written as #RRGGBB',
        'passMetadata.topField.key': 'must not be null',
        'passMetadata.secondaryFields[0].value': 'must be a string',
        'passMetadata.backFields[0].value[0].link': 'must be an http(s) URL',
        'passMetadata.qrUrl': 'must be shorter than or equal to 2048 characters',
        'passMetadata.barcodeFormat':
          'must be one of the following values: QR, PDF417, Aztec, Code128, EAN13, Code39, Codabar, ITF',
      });
    });

    it('requires passName and passMetadata', async () => {
      const response = await http().post('/v1/wallet-pass').set(owner.auth).send({}).expect(400);
      expect(response.body.context).toEqual({
        passName: 'must not be null',
        passMetadata: 'must not be null',
      });
    });

    it('refuses a field key used twice, and unknown fields', async () => {
      const twice = await create({
        passMetadata: { ...METADATA, secondaryFields: [{ key: 'points', value: 'x' }] },
      }).expect(400);
      expect(twice.body.context).toEqual({
        'passMetadata.secondaryFields[0].key': 'is used by another field of the pass',
      });
      const unknown = await create({ colour: 'red' }).expect(400);
      expect(unknown.body.context).toEqual({ colour: 'is not a known field' });
    });

    it('refuses lists where objects belong, and takes a null account as absent', async () => {
      const nested = await create({
        uploadInfoList: [[[]]],
        passMetadata: { ...METADATA, secondaryFields: [[{ key: 'k', value: 'v' }]], topField: [] },
      }).expect(400);
      expect(nested.body.context).toEqual({
        uploadInfoList: 'must be a list of objects',
        'passMetadata.secondaryFields': 'must be a list of objects',
        'passMetadata.topField': 'must be an object',
      });
      const listed = await create({ passMetadata: [METADATA], account: [[]] }).expect(400);
      expect(listed.body.context).toEqual({
        passMetadata: 'must be an object',
        account: 'must be an object',
      });
      const defaulted = await create({ account: null }).expect(201);
      expect(defaulted.body.account.id).toEqual(expect.any(String));
    });

    it('takes its own answer back: to PATCH, and to POST under another name', async () => {
      const created = (await create({ slug: `round-trip-${Date.now()}` }).expect(201)).body;
      const read = (await http().get(`/v1/wallet-pass/${created.id}`).set(owner.auth).expect(200))
        .body as Record<string, unknown>;
      const { passName, notificationHeader, id, account, slug } = read;
      await http()
        .patch(`/v1/wallet-pass/${id as string}`)
        .set(owner.auth)
        .send(read)
        .expect(200);
      // Its metadata aside (its back fields' short links are its own), the answer is a body.
      const copy = await create({
        ...read,
        passName: `${passName as string} copy`,
        passMetadata: METADATA,
        slug: undefined,
      }).expect(201);
      expect(copy.body).toMatchObject({ notificationHeader, account });
      expect(copy.body.id).not.toBe(id);
      expect(copy.body.slug).not.toBe(slug);
    });

    it('ignores read-only fields sent back', async () => {
      const response = await create({
        id: 'mine',
        appleIssuedCount: 99,
        createdTime: 'yesterday',
      }).expect(201);
      expect(response.body.id).not.toBe('mine');
      expect(response.body.appleIssuedCount).toBe(0);
    });

    it('uses the given account of the workspace, and answers 404 for an account of another workspace', async () => {
      const account = await http()
        .post('/v1/accounts')
        .set(owner.auth)
        .send({ name: 'EU brand' })
        .expect(201);
      const withAccount = await create({ account: { id: account.body.id } }).expect(201);
      expect(withAccount.body.account).toEqual({ id: account.body.id, name: 'EU brand' });

      const other = await owner.createWorkspace();
      const foreign = await http()
        .post('/v1/accounts')
        .set(owner.auth)
        .set('x-workspace-id', other)
        .send({ name: 'Other' })
        .expect(201);
      const response = await create({ account: { id: foreign.body.id } }).expect(404);
      expect(response.body).toMatchObject({
        errorCode: 'NOT_FOUND',
        context: { id: foreign.body.id },
      });
    });
  });

  describe('images and publishing', () => {
    it('publishes only with logo, icon and strip PNG uploads', async () => {
      const missing = await create({
        status: 'Published',
        uploadInfoList: images.slice(0, 2),
      }).expect(400);
      expect(missing.body.context.uploadInfoList).toContain('strip.png');

      const published = await create({ status: 'Published', uploadInfoList: images }).expect(201);
      expect(published.body.status).toBe('Published');
      expect(published.body.uploadInfoList).toEqual(images);
    });

    it('refuses an upload that is not a PNG (415) and an unknown upload key (404)', async () => {
      const jpegKey = await owner.upload(makeJpegLikeBytes(), 'photo.jpg', {
        bucket: 'campaign-assets',
      });
      const notPng = await create({
        uploadInfoList: [{ fileName: 'logo.png', uploadKey: jpegKey }],
      }).expect(415);
      expect(notPng.body.errorCode).toBe('UNSUPPORTED_MEDIA_TYPE');

      const unknown = await create({
        uploadInfoList: [{ fileName: 'logo.png', uploadKey: 'no-such-upload' }],
      }).expect(404);
      expect(unknown.body.context).toEqual({ id: 'no-such-upload' });

      const badName = await create({
        uploadInfoList: [{ fileName: 'logo.gif', uploadKey: images[0].uploadKey }],
      }).expect(400);
      expect(Object.keys(badName.body.context)).toEqual(['uploadInfoList[0].fileName']);
    });

    it('publishes a draft through PATCH and never goes back to Draft', async () => {
      const draft = (await create().expect(201)).body;
      const published = await http()
        .patch(`/v1/wallet-pass/${draft.id}`)
        .set(owner.auth)
        .send({
          passName: draft.passName,
          passMetadata: METADATA,
          status: 'Published',
          uploadInfoList: images,
        })
        .expect(200);
      expect(published.body.status).toBe('Published');
      const back = await http()
        .patch(`/v1/wallet-pass/${draft.id}`)
        .set(owner.auth)
        .send({ passName: draft.passName, passMetadata: METADATA, status: 'Draft' })
        .expect(409);
      expect(back.body.errorCode).toBe('CONFLICT');
    });

    it('adds signed image URLs with includeAssets=true, and they download the image', async () => {
      const pass = (await create({ uploadInfoList: images }).expect(201)).body;
      const plain = await http().get(`/v1/wallet-pass/${pass.id}`).set(owner.auth).expect(200);
      expect(plain.body.uploadInfoList[0].url).toBeUndefined();

      const withAssets = await http()
        .get(`/v1/wallet-pass/${pass.id}?includeAssets=true`)
        .set(owner.auth)
        .expect(200);
      const url = new URL(withAssets.body.uploadInfoList[0].url);
      expect(url.searchParams.get('signature')).toMatch(/^[0-9a-f]{64}$/);
      const file = await http().get(`${url.pathname}${url.search}`).expect(200);
      expect(file.headers['content-type']).toBe('image/png');

      const listed = await http()
        .get(`/v1/wallet-pass?id=${pass.id}&includeAssets=true`)
        .set(owner.auth)
        .expect(200);
      expect(
        listed.body.items[0].uploadInfoList.every(
          (info: { url?: string }) => typeof info.url === 'string',
        ),
      ).toBe(true);
    });
  });

  describe('update, get and delete', () => {
    it('replaces name, metadata and header and returns the pass', async () => {
      const pass = (await create({ notificationHeader: 'Old' }).expect(201)).body;
      const response = await http()
        .patch(`/v1/wallet-pass/${pass.id}`)
        .set(owner.auth)
        .send({
          passName: 'Renamed',
          passMetadata: { description: 'New', organizationName: 'Brand' },
          notificationHeader: 'New header',
        })
        .expect(200);
      expect(response.body).toMatchObject({
        id: pass.id,
        passName: 'Renamed',
        passMetadata: { description: 'New', organizationName: 'Brand' },
        notificationHeader: 'New header',
      });
      const read = await http().get(`/v1/wallet-pass/${pass.id}`).set(owner.auth).expect(200);
      expect(read.body.passName).toBe('Renamed');
      expect(read.body.updatedTime >= pass.updatedTime).toBe(true);
    });

    it('validates PATCH bodies like create, and 404s unknown ids', async () => {
      const pass = (await create().expect(201)).body;
      const invalid = await http()
        .patch(`/v1/wallet-pass/${pass.id}`)
        .set(owner.auth)
        .send({ passName: 'x' })
        .expect(400);
      expect(invalid.body.context).toEqual({ passMetadata: 'must not be null' });
      const missing = await http()
        .patch('/v1/wallet-pass/no-such-pass')
        .set(owner.auth)
        .send({ passName: 'x', passMetadata: METADATA })
        .expect(404);
      expect(missing.body.context).toEqual({ id: 'no-such-pass' });
    });

    it('deletes a pass: 204, then 404, and its name is free again', async () => {
      const pass = (await create({ passName: 'Short-lived' }).expect(201)).body;
      await http().delete(`/v1/wallet-pass/${pass.id}`).set(owner.auth).expect(204);
      await http().get(`/v1/wallet-pass/${pass.id}`).set(owner.auth).expect(404);
      await http().delete(`/v1/wallet-pass/${pass.id}`).set(owner.auth).expect(404);
      const list = await http().get(`/v1/wallet-pass?id=${pass.id}`).set(owner.auth).expect(200);
      expect(list.body.items).toEqual([]);
      await create({ passName: 'Short-lived' }).expect(201);
    });

    it('hides passes of other workspaces (404) and lets branded users only read', async () => {
      const pass = (await create().expect(201)).body;
      const other = await owner.createWorkspace();
      await http()
        .get(`/v1/wallet-pass/${pass.id}`)
        .set(owner.auth)
        .set('x-workspace-id', other)
        .expect(404);
      await http()
        .patch(`/v1/wallet-pass/${pass.id}`)
        .set(owner.auth)
        .set('x-workspace-id', other)
        .send({ passName: 'x', passMetadata: METADATA })
        .expect(404);

      const branded = await owner.addMember('branded', [owner.defaultWorkspaceId]);
      await http().get(`/v1/wallet-pass/${pass.id}`).set(bearer(branded.token)).expect(200);
      await http()
        .post('/v1/wallet-pass')
        .set(bearer(branded.token))
        .send({ passName: 'b', passMetadata: METADATA })
        .expect(403);
    });
  });

  describe('search', () => {
    let workspaceId: string;
    const ids: Record<string, string> = {};

    beforeAll(async () => {
      workspaceId = await owner.createWorkspace('Search');
      for (const [name, status] of [
        ['Summer Sale', 'Draft'],
        ['summer fun', 'Published'],
        ['Winter 100%_off', 'Draft'],
        ['Autumn', 'Published'],
      ]) {
        const imageKeys = [];
        if (status === 'Published') {
          for (const fileName of ['logo.png', 'icon.png', 'strip.png']) {
            imageKeys.push({
              fileName,
              uploadKey: await owner.upload(makePng(), fileName, { workspaceId }),
            });
          }
        }
        const response = await http()
          .post('/v1/wallet-pass')
          .set(owner.auth)
          .set('x-workspace-id', workspaceId)
          .send({ passName: name, passMetadata: METADATA, status, uploadInfoList: imageKeys })
          .expect(201);
        ids[name] = response.body.id;
      }
    });

    const search = (query: string) =>
      http()
        .get(`/v1/wallet-pass?${query}`)
        .set(owner.auth)
        .set('x-workspace-id', workspaceId)
        .expect(200);
    const names = async (query: string) =>
      (await search(query)).body.items.map((item: { passName: string }) => item.passName);

    it('lists newest first', async () => {
      expect(await names('')).toEqual(['Autumn', 'Winter 100%_off', 'summer fun', 'Summer Sale']);
    });

    it('searches by keyword case-insensitively, with % and _ taken literally', async () => {
      expect(await names('keyword=SUMMER')).toEqual(['summer fun', 'Summer Sale']);
      expect(await names('keyword=%25_')).toEqual(['Winter 100%_off']);
      expect(await names('keyword=_')).toEqual(['Winter 100%_off']);
    });

    it('matches name exactly and case-sensitively', async () => {
      expect(await names('name=Summer%20Sale')).toEqual(['Summer Sale']);
      expect(await names('name=summer%20sale')).toEqual([]);
      expect(await names('name=Summer')).toEqual([]);
    });

    it('filters by id, ids (repeated or comma-separated) and status (multi-valued)', async () => {
      expect(await names(`id=${ids.Autumn}`)).toEqual(['Autumn']);
      expect(await names(`ids=${ids.Autumn},${ids['Summer Sale']}`)).toEqual([
        'Autumn',
        'Summer Sale',
      ]);
      expect(await names(`ids=${ids.Autumn}&ids=${ids['summer fun']}`)).toEqual([
        'Autumn',
        'summer fun',
      ]);
      expect(await names('status=Published')).toEqual(['Autumn', 'summer fun']);
      expect(await names('status=Draft,Published')).toHaveLength(4);
      expect(await names('status=Published&keyword=summer')).toEqual(['summer fun']);
    });

    it('returns only basic information with summary=true', async () => {
      const response = await search(`summary=true&id=${ids.Autumn}`);
      expect(Object.keys(response.body.items[0]).sort()).toEqual(
        [
          'id',
          'passName',
          'status',
          'appleIssuedCount',
          'googleIssuedCount',
          'totalIssuedCount',
          'appleActiveCount',
          'googleActiveCount',
          'totalActiveCount',
        ].sort(),
      );
    });

    it.each([
      ['status=Archived', 'status'],
      ['keyword=' + 'k'.repeat(256), 'keyword'],
      ['id=bad%20id', 'id'],
      ['includeAssets=maybe', 'includeAssets'],
      ['limit=0', 'limit'],
    ])('refuses %s with 400 naming the parameter', async (query, field) => {
      const response = await http().get(`/v1/wallet-pass?${query}`).set(owner.auth).expect(400);
      expect(Object.keys(response.body.context)).toEqual([field]);
    });
  });
});
