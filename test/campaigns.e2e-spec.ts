import type { CampaignResponse, VideoPerformanceResponse } from '@app/campaigns';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { makePng } from './support/png';
import { OwnerSession, type Member } from './support/session';
import { bearer, startTestApp, type TestApp } from './support/test-app';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const HEADER = 'platform,videoURL,creatorHandle,views,likes,shares,comments,saves,datePosted';

/** A request body, or an expected part of a response. */
type Body = Record<string, unknown>;
type Campaign = CampaignResponse;
type Record_ = VideoPerformanceResponse;

const ZERO_TOTALS = {
  totalViews: 0,
  totalClicks: 0,
  totalLikes: 0,
  totalCreators: 0,
  totalComments: 0,
  totalShares: 0,
  totalVideos: 0,
  socialAViews: 0,
  socialALikes: 0,
  socialAShares: 0,
  socialAComments: 0,
  socialBViews: 0,
  socialBLikes: 0,
  socialBShares: 0,
  socialBComments: 0,
};

/** Three records, CRLF line ends, a quoted handle with a comma and doubled quotes. */
const FIRST_CSV =
  `${HEADER}\r\n` +
  'SocialA,https://a.example/v/1,@maya,1000,100,10,5,3,2026-03-01\r\n' +
  'SocialB,https://b.example/v/2,Maya,2000,200,20,6,4,2026-03-02\r\n' +
  'SocialA,https://a.example/v/3,"Bo, the ""rider""",500,50,5,1,0,\r\n';

const FIRST_TOTALS = {
  ...ZERO_TOTALS,
  totalViews: 3500,
  totalLikes: 350,
  totalShares: 35,
  totalComments: 12,
  totalVideos: 3,
  // `@maya` and `Maya` are one creator.
  totalCreators: 2,
  socialAViews: 1500,
  socialALikes: 150,
  socialAShares: 15,
  socialAComments: 6,
  socialBViews: 2000,
  socialBLikes: 200,
  socialBShares: 20,
  socialBComments: 6,
};

/** Columns in another order, LF line ends, a header-only optional column left out. */
const SECOND_CSV =
  'creatorHandle,platform,videoURL,views,likes\n' +
  'lena,SocialB,https://b.example/v/10,40,4\n' +
  'omar,SocialB,https://b.example/v/11,60,6\n';

const SECOND_TOTALS = {
  ...ZERO_TOTALS,
  totalViews: 100,
  totalLikes: 10,
  totalVideos: 2,
  totalCreators: 2,
  socialBViews: 100,
  socialBLikes: 10,
};

const JSON_RECORDS = [
  {
    platform: 'SocialA',
    videoURL: 'https://a.example/v/20',
    creatorHandle: 'lena',
    views: 7,
    likes: 1,
    shares: 1,
    comments: 1,
    saves: 1,
    datePosted: '2026-03-05',
  },
  { platform: 'SocialA', videoURL: 'https://a.example/v/21', creatorHandle: 'nia', views: 3 },
  {
    platform: 'SocialB',
    videoURL: 'http://b.example/v/22',
    creatorHandle: '@Omar',
    views: 10,
    comments: 2,
  },
];

/** The path and query of an absolute signed URL, for supertest. */
function pathOf(url: string): string {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
}

function expectError(body: Body, errorCode: string): void {
  expect(body).toMatchObject({
    txId: expect.any(String),
    timestamp: expect.any(String),
    errorCode,
  });
}

describe('Campaigns', () => {
  let testApp: TestApp;
  let owner: OwnerSession;
  let storageDir: string;
  const png = makePng({ width: 2, height: 2, rgba: [0, 128, 255, 255] });

  beforeAll(async () => {
    storageDir = mkdtempSync(join(tmpdir(), 'wps-campaigns-e2e-'));
    testApp = await startTestApp({
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

  async function upload(
    file: Buffer | string,
    fileName: string,
    headers: Record<string, string> = owner.auth,
  ): Promise<string> {
    const bytes = typeof file === 'string' ? Buffer.from(file, 'utf8') : file;
    const response = await http()
      .post('/v1/uploads/storage')
      .set(headers)
      .send({ file: bytes.toString('base64'), fileName, bucket: 'campaign-assets' })
      .expect(201);
    return response.body.uploadKey as string;
  }

  async function create(
    body: Body,
    headers: Record<string, string> = owner.auth,
  ): Promise<Campaign> {
    const response = await http().post('/v1/promo-campaign').set(headers).send(body).expect(201);
    return response.body as Campaign;
  }

  const patch = (id: string, body: object) =>
    http().patch(`/v1/promo-campaign/${id}`).set(owner.auth).send(body);

  const get = async (id: string): Promise<Campaign> =>
    (await http().get(`/v1/promo-campaign/${id}`).set(owner.auth).expect(200)).body as Campaign;

  /** Every record of a campaign, following the cursor. */
  async function allRecords(id: string): Promise<Record_[]> {
    const items: Record_[] = [];
    let cursor: string | null = null;
    do {
      const response = await http()
        .get(`/v1/promo-campaign/${id}/video-performance`)
        .query(cursor === null ? {} : { cursor })
        .set(owner.auth)
        .expect(200);
      items.push(...(response.body.items as Record_[]));
      cursor = response.body.cursor as string | null;
    } while (cursor !== null);
    return items;
  }

  describe('a new user’s walk-through', () => {
    let campaign: Campaign;
    let firstCsvKey: string;

    it('creates a campaign with defaults and empty campaign data', async () => {
      campaign = await create({ name: 'Spring ride launch' });
      expect(campaign).toEqual({
        id: expect.stringMatching(UUID_V7),
        name: 'Spring ride launch',
        type: 'BoostedPost',
        status: 'NotStarted',
        startDate: null,
        endDate: null,
        isPublished: false,
        platforms: [],
        targetViews: null,
        beforeViews: null,
        afterViews: null,
        deliveredViews: null,
        contentLink: null,
        submissionNotes: null,
        campaignData: {
          id: expect.stringMatching(UUID_V7),
          campaignId: campaign.id,
          ...ZERO_TOTALS,
          assetFolderLink: null,
          rec1: null,
          rec2: null,
          rec3: null,
          rec4: null,
          workspaceId: owner.defaultWorkspaceId,
          createdTime: expect.stringMatching(ISO_TIME),
          updatedTime: expect.stringMatching(ISO_TIME),
          createdBy: expect.any(String),
          updatedBy: expect.any(String),
        },
        campaignDataFileInfo: null,
        videoPerformanceFileInfo: null,
        beforeImage: null,
        afterImage: null,
        accountId: expect.stringMatching(UUID_V7),
        workspaceId: owner.defaultWorkspaceId,
        createdTime: expect.stringMatching(ISO_TIME),
        updatedTime: expect.stringMatching(ISO_TIME),
        createdBy: expect.any(String),
        updatedBy: expect.any(String),
      });
      expect(await get(campaign.id)).toEqual(campaign);
    });

    it('moves NotStarted → Prepping → InProgress → Paused → InProgress', async () => {
      for (const status of ['Prepping', 'InProgress', 'Paused', 'InProgress']) {
        const response = await patch(campaign.id, { status }).expect(200);
        expect(response.body.status).toBe(status);
      }
      expect((await get(campaign.id)).status).toBe('InProgress');
    });

    it('answers a move the statuses do not allow with 409 and both statuses', async () => {
      const response = await patch(campaign.id, { status: 'Prepping' }).expect(409);
      expectError(response.body, 'CONFLICT');
      expect(response.body.errorMessage).toEqual(expect.any(String));
      expect(response.body.context).toEqual({ status: 'InProgress', requested: 'Prepping' });
      expect((await get(campaign.id)).status).toBe('InProgress');
    });

    it('sets before and after images uploaded to campaign-assets, with signed links', async () => {
      const before = await upload(png, 'before.png');
      const after = await upload(png, 'after.png');
      const response = await patch(campaign.id, {
        beforeImage: { fileKey: before },
        afterImage: { fileKey: after },
      }).expect(200);
      expect(response.body.beforeImage).toEqual({
        fileKey: before,
        fileName: 'before.png',
        url: expect.stringMatching(/^https:\/\/wallet\.test\.example\/files\/campaign-assets\//),
      });
      expect(response.body.afterImage).toMatchObject({ fileKey: after, fileName: 'after.png' });
      const download = await http().get(pathOf(response.body.afterImage.url)).expect(200);
      expect(download.headers['content-type']).toBe('image/png');
      expect(Buffer.compare(download.body as Buffer, png)).toBe(0);
      expect((await get(campaign.id)).beforeImage?.fileKey).toBe(before);
    });

    it('reads the records of a CSV set as videoPerformanceFileInfo, with their totals', async () => {
      firstCsvKey = await upload(FIRST_CSV, 'performance.csv');
      const response = await patch(campaign.id, {
        videoPerformanceFileInfo: { fileKey: firstCsvKey },
      }).expect(200);
      expect(response.body.videoPerformanceFileInfo).toEqual({
        fileKey: firstCsvKey,
        fileName: 'performance.csv',
        url: expect.stringContaining('/files/campaign-assets/'),
      });
      expect(response.body.campaignData).toMatchObject(FIRST_TOTALS);
      expect((await get(campaign.id)).campaignData).toMatchObject(FIRST_TOTALS);

      const records = await allRecords(campaign.id);
      expect(records).toHaveLength(3);
      // Newest first: the file's last line comes first.
      expect(records[0]).toEqual({
        id: expect.stringMatching(UUID_V7),
        campaignId: campaign.id,
        platform: 'SocialA',
        videoURL: 'https://a.example/v/3',
        creatorHandle: 'Bo, the "rider"',
        views: 500,
        likes: 50,
        shares: 5,
        comments: 1,
        saves: 0,
        datePosted: null,
        source: 'file',
        workspaceId: owner.defaultWorkspaceId,
        createdTime: expect.stringMatching(ISO_TIME),
        updatedTime: expect.stringMatching(ISO_TIME),
        createdBy: expect.any(String),
        updatedBy: expect.any(String),
      });
      expect(records[2]).toMatchObject({
        creatorHandle: '@maya',
        datePosted: '2026-03-01',
        views: 1000,
      });
    });

    it('replaces the file records when the same file is set again: no duplicates', async () => {
      const before = (await allRecords(campaign.id)).map((record) => record.id);
      const response = await patch(campaign.id, {
        videoPerformanceFileInfo: { fileKey: firstCsvKey },
      }).expect(200);
      expect(response.body.campaignData).toMatchObject(FIRST_TOTALS);
      const after = await allRecords(campaign.id);
      expect(after).toHaveLength(3);
      expect(after.map((record) => record.id)).not.toEqual(before);
    });

    it('refuses a CSV with a bad line 4, naming the line, and changes nothing', async () => {
      const before = await get(campaign.id);
      const recordsBefore = await allRecords(campaign.id);
      const badKey = await upload(
        `${HEADER}\n` +
          'SocialA,https://a.example/v/1,maya,1,1,1,1,1,2026-03-01\n' +
          'SocialB,https://b.example/v/2,lena,2,2,2,2,2,2026-03-02\n' +
          'SocialA,https://a.example/v/3,omar,-3,1,1,1,1,2026-03-03\n' +
          'SocialA,https://a.example/v/4,nia,4,4,4,4,4,2026-03-04\n',
        'bad.csv',
      );
      const response = await patch(campaign.id, {
        name: 'Renamed in the same request',
        status: 'Paused',
        videoPerformanceFileInfo: { fileKey: badKey },
      }).expect(400);
      expectError(response.body, 'INVALID_INPUT');
      expect(response.body.errorMessage).toBeUndefined();
      expect(response.body.context).toEqual({
        'videoPerformanceFileInfo.line 4.views': 'must not be less than 0',
      });
      expect(await get(campaign.id)).toEqual({
        ...before,
        beforeImage: { ...before.beforeImage, url: expect.any(String) },
        afterImage: { ...before.afterImage, url: expect.any(String) },
        videoPerformanceFileInfo: { ...before.videoPerformanceFileInfo, url: expect.any(String) },
      });
      expect(await allRecords(campaign.id)).toEqual(recordsBefore);
    });

    it('adds 3 JSON records to the file records and recomputes the totals', async () => {
      const response = await http()
        .post(`/v1/promo-campaign/${campaign.id}/video-performance`)
        .set(owner.auth)
        .send(JSON_RECORDS)
        .expect(201);
      expect(response.body).toEqual({
        imported: 3,
        campaignData: expect.objectContaining({
          ...FIRST_TOTALS,
          totalViews: 3520,
          totalLikes: 351,
          totalShares: 36,
          totalComments: 15,
          totalVideos: 6,
          // @maya, Bo + lena, nia, @Omar
          totalCreators: 5,
          socialAViews: 1510,
          socialALikes: 151,
          socialAShares: 16,
          socialAComments: 7,
          socialBViews: 2010,
          socialBComments: 8,
        }),
      });
      const records = await allRecords(campaign.id);
      expect(records).toHaveLength(6);
      expect(records.slice(0, 3).map((record) => record.source)).toEqual(['api', 'api', 'api']);
      expect(records[0]).toMatchObject({
        videoURL: 'http://b.example/v/22',
        creatorHandle: '@Omar',
        likes: 0,
        saves: 0,
        datePosted: null,
      });
    });

    it('refuses a JSON array with one bad record as a whole', async () => {
      const response = await http()
        .post(`/v1/promo-campaign/${campaign.id}/video-performance`)
        .set(owner.auth)
        .send([
          JSON_RECORDS[0],
          { ...JSON_RECORDS[1], views: -1, datePosted: '2026-02-30', extra: true },
          JSON_RECORDS[2],
          { platform: 'SocialC', videoURL: 'not a url' },
        ])
        .expect(400);
      expectError(response.body, 'INVALID_INPUT');
      expect(response.body.context).toEqual({
        '[1].views': 'must not be less than 0',
        '[1].datePosted': 'must be a real date written as YYYY-MM-DD',
        '[1].extra': 'is not a known field',
        '[3].platform': expect.stringMatching(/^must be one of/),
        '[3].videoURL': 'must be an http(s) URL',
        '[3].creatorHandle': 'must not be null',
      });
      expect(await allRecords(campaign.id)).toHaveLength(6);
      expect((await get(campaign.id)).campaignData.totalVideos).toBe(6);
    });

    it('refuses a body that is not an array of 1 to 1000 records', async () => {
      const url = `/v1/promo-campaign/${campaign.id}/video-performance`;
      for (const body of [JSON_RECORDS[0], []]) {
        const response = await http().post(url).set(owner.auth).send(body).expect(400);
        expectError(response.body, 'INVALID_INPUT');
        expect(response.body.errorMessage).toEqual(expect.any(String));
      }
      // 1,001 records: refused by the route's body limits before the body is parsed.
      const tooMany = await http()
        .post(url)
        .set(owner.auth)
        .send(Array.from({ length: 1001 }, () => JSON_RECORDS[1]))
        .expect(400);
      expectError(tooMany.body, 'INVALID_INPUT');
      expect(tooMany.body.context).toEqual({ body: 'must have at most 1000 elements' });
      const many = Array.from({ length: 1000 }, (_, i) => ({ ...JSON_RECORDS[1], views: i }));
      const other = await create({ name: 'Thousand records' });
      const response = await http()
        .post(`/v1/promo-campaign/${other.id}/video-performance`)
        .set(owner.auth)
        .send(many)
        .expect(201);
      expect(response.body.campaignData).toMatchObject({
        totalVideos: 1000,
        totalViews: (999 * 1000) / 2,
        totalCreators: 1,
      });
    });

    it('pages the records with limit=2 and a cursor, each record once', async () => {
      const url = `/v1/promo-campaign/${campaign.id}/video-performance`;
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const response = await http()
          .get(url)
          .query(cursor === null ? { limit: 2 } : { limit: 2, cursor })
          .set(owner.auth)
          .expect(200);
        pages += 1;
        expect(response.body.items.length).toBeLessThanOrEqual(2);
        expect(response.body.hasMore).toBe(response.body.cursor !== null);
        seen.push(...(response.body.items as Record_[]).map((record) => record.id));
        cursor = response.body.cursor as string | null;
      } while (cursor !== null);
      expect(pages).toBe(3);
      expect(seen).toHaveLength(6);
      expect(new Set(seen).size).toBe(6);
      expect([...seen].sort().reverse()).toEqual(seen);

      for (const query of [{ limit: 0 }, { limit: 21 }, { cursor: 'not-a-cursor' }]) {
        const response = await http().get(url).query(query).set(owner.auth).expect(400);
        expectError(response.body, 'INVALID_INPUT');
      }
    });

    it('replaces only the file records when a new file is set; JSON records stay', async () => {
      const secondKey = await upload(SECOND_CSV, 'second.csv');
      const response = await patch(campaign.id, {
        videoPerformanceFileInfo: { fileKey: secondKey },
      }).expect(200);
      expect(response.body.campaignData).toMatchObject({
        totalVideos: 5,
        totalViews: 120,
        totalLikes: 11,
        // lena, omar (= @Omar), nia
        totalCreators: 3,
        socialAViews: 10,
        socialBViews: 110,
      });
      const records = await allRecords(campaign.id);
      expect(records.filter((record) => record.source === 'file')).toHaveLength(2);
      expect(records.filter((record) => record.source === 'api')).toHaveLength(3);
    });

    it('drops the file records when videoPerformanceFileInfo is cleared', async () => {
      const response = await patch(campaign.id, { videoPerformanceFileInfo: null }).expect(200);
      expect(response.body.videoPerformanceFileInfo).toBeNull();
      expect(response.body.campaignData).toMatchObject({ totalVideos: 3, totalViews: 20 });
      expect((await allRecords(campaign.id)).every((record) => record.source === 'api')).toBe(true);
    });

    it('completes the campaign; Completed is final, staying Completed is not a move', async () => {
      await patch(campaign.id, { status: 'Completed' }).expect(200);
      await patch(campaign.id, { status: 'Completed', submissionNotes: 'Done' }).expect(200);
      for (const status of ['InProgress', 'Canceled', 'NotStarted']) {
        const response = await patch(campaign.id, { status }).expect(409);
        expect(response.body.context).toEqual({ status: 'Completed', requested: status });
      }
      expect(await get(campaign.id)).toMatchObject({
        status: 'Completed',
        submissionNotes: 'Done',
      });
    });
  });

  describe('fields', () => {
    it('takes every field, ignores read-only ones sent back, writes campaignData notes', async () => {
      const csvKey = await upload(FIRST_CSV, 'data.csv');
      const campaign = await create({
        id: 'ignored',
        accountId: 'ignored',
        createdTime: '2020-01-01T00:00:00.000Z',
        name: 'Syndicated autumn',
        type: 'SyndicatedContent',
        status: 'Prepping',
        startDate: '2026-09-01',
        endDate: '2026-09-30',
        isPublished: true,
        platforms: ['SocialB', 'SocialA'],
        targetViews: 9_000_000_000,
        beforeViews: 0,
        afterViews: 12,
        deliveredViews: 34,
        contentLink: 'https://brand.example/autumn',
        submissionNotes: 'x'.repeat(5000),
        campaignDataFileInfo: { fileKey: csvKey, fileName: 'ignored', url: 'ignored' },
        campaignData: {
          assetFolderLink: 'https://drive.example/f/autumn',
          rec1: 'first',
          rec4: 'fourth',
          totalViews: 123456,
          id: 'ignored',
        },
      });
      expect(campaign).toMatchObject({
        id: expect.stringMatching(UUID_V7),
        name: 'Syndicated autumn',
        type: 'SyndicatedContent',
        status: 'Prepping',
        startDate: '2026-09-01',
        endDate: '2026-09-30',
        isPublished: true,
        platforms: ['SocialB', 'SocialA'],
        targetViews: 9_000_000_000,
        beforeViews: 0,
        afterViews: 12,
        deliveredViews: 34,
        contentLink: 'https://brand.example/autumn',
        campaignDataFileInfo: { fileKey: csvKey, fileName: 'data.csv' },
        campaignData: {
          ...FIRST_TOTALS,
          assetFolderLink: 'https://drive.example/f/autumn',
          rec1: 'first',
          rec2: null,
          rec3: null,
          rec4: 'fourth',
        },
      });
      expect(campaign.createdTime).not.toBe('2020-01-01T00:00:00.000Z');

      // A GET response sent back whole is accepted: its read-only parts are ignored.
      const echoed = await patch(campaign.id, campaign).expect(200);
      expect(echoed.body.campaignData).toMatchObject(FIRST_TOTALS);

      const cleared = await patch(campaign.id, {
        startDate: null,
        targetViews: null,
        contentLink: null,
        campaignData: { rec1: null, rec2: 'second' },
      }).expect(200);
      expect(cleared.body).toMatchObject({
        startDate: null,
        endDate: '2026-09-30',
        targetViews: null,
        contentLink: null,
        campaignData: { rec1: null, rec2: 'second', rec4: 'fourth', totalVideos: 3 },
      });
    });

    it('reads the same file once when both file fields name it', async () => {
      const key = await upload(SECOND_CSV, 'both.csv');
      const campaign = await create({
        name: 'Both fields',
        videoPerformanceFileInfo: { fileKey: key },
        campaignDataFileInfo: { fileKey: key },
      });
      expect(campaign.campaignData).toMatchObject(SECOND_TOTALS);
      const other = await upload(FIRST_CSV, 'other.csv');
      const both = await patch(campaign.id, { campaignDataFileInfo: { fileKey: other } }).expect(
        200,
      );
      expect(both.body.campaignData.totalVideos).toBe(5);
      const one = await patch(campaign.id, { videoPerformanceFileInfo: null }).expect(200);
      expect(one.body.campaignData).toMatchObject(FIRST_TOTALS);
    });

    it.each([
      ['no name', {}, { name: 'must not be null' }],
      ['an empty name', { name: '' }, { name: 'must not be empty' }],
      [
        'a name of 256 characters',
        { name: 'x'.repeat(256) },
        { name: expect.stringMatching(/255/) },
      ],
      ['an unknown field', { name: 'n', nmae: 'typo' }, { nmae: 'is not a known field' }],
      [
        'an unknown type',
        { name: 'n', type: 'Other' },
        { type: expect.stringMatching(/^must be one of/) },
      ],
      ['a null type', { name: 'n', type: null }, { type: 'must not be null' }],
      [
        'an unknown status',
        { name: 'n', status: 'Done' },
        { status: expect.stringMatching(/^must be one of/) },
      ],
      [
        '30 February',
        { name: 'n', startDate: '2026-02-30' },
        { startDate: 'must be a real date written as YYYY-MM-DD' },
      ],
      [
        'a date-time as a date',
        { name: 'n', endDate: '2026-03-01T00:00:00Z' },
        { endDate: 'must be a real date written as YYYY-MM-DD' },
      ],
      [
        'an end before the start',
        { name: 'n', startDate: '2026-03-02', endDate: '2026-03-01' },
        { endDate: 'must not be before startDate' },
      ],
      [
        'a non-boolean isPublished',
        { name: 'n', isPublished: 'yes' },
        { isPublished: expect.stringMatching(/boolean/) },
      ],
      [
        'a platform twice',
        { name: 'n', platforms: ['SocialA', 'SocialA'] },
        { platforms: 'must not name a platform twice' },
      ],
      [
        'an unknown platform',
        { name: 'n', platforms: ['SocialC'] },
        { platforms: expect.stringMatching(/must be one of/) },
      ],
      [
        'negative views',
        { name: 'n', targetViews: -1 },
        { targetViews: 'must not be less than 0' },
      ],
      [
        'fractional views',
        { name: 'n', deliveredViews: 1.5 },
        { deliveredViews: expect.stringMatching(/integer/) },
      ],
      [
        'a non-http link',
        { name: 'n', contentLink: 'ftp://x.example' },
        { contentLink: 'must be an http(s) URL' },
      ],
      [
        '5001 characters of notes',
        { name: 'n', submissionNotes: 'x'.repeat(5001) },
        { submissionNotes: expect.any(String) },
      ],
      [
        'a file without fileKey',
        { name: 'n', beforeImage: {} },
        { 'beforeImage.fileKey': 'must not be null' },
      ],
      [
        'a malformed fileKey',
        { name: 'n', beforeImage: { fileKey: 'a/b' } },
        { 'beforeImage.fileKey': expect.any(String) },
      ],
      [
        'an unknown campaignData key',
        { name: 'n', campaignData: { totalX: 1 } },
        { 'campaignData.totalX': 'is not a known field' },
      ],
      [
        'a note of 2001 characters',
        { name: 'n', campaignData: { rec1: 'x'.repeat(2001) } },
        { 'campaignData.rec1': expect.any(String) },
      ],
    ] as [string, Body, Body][])('refuses %s with 400', async (_case, body, context) => {
      const response = await http()
        .post('/v1/promo-campaign')
        .set(owner.auth)
        .send(body)
        .expect(400);
      expectError(response.body, 'INVALID_INPUT');
      expect(response.body.errorMessage).toBeUndefined();
      expect(response.body.context).toEqual(context);
    });

    it('serialises concurrent imports: no duplicate records, no lost totals', async () => {
      const campaign = await create({ name: 'Busy campaign' });
      const key = await upload(FIRST_CSV, 'busy.csv');
      const responses = await Promise.all([
        ...Array.from({ length: 3 }, () =>
          patch(campaign.id, { videoPerformanceFileInfo: { fileKey: key } }),
        ),
        ...Array.from({ length: 5 }, (_, i) =>
          http()
            .post(`/v1/promo-campaign/${campaign.id}/video-performance`)
            .set(owner.auth)
            .send([{ ...JSON_RECORDS[1], views: i + 1 }]),
        ),
      ]);
      expect(responses.map((response) => response.status).sort()).toEqual([
        200, 200, 200, 201, 201, 201, 201, 201,
      ]);
      expect((await get(campaign.id)).campaignData).toMatchObject({
        totalVideos: 8,
        totalViews: 3500 + 15,
      });
      expect(await allRecords(campaign.id)).toHaveLength(8);
    });

    it('checks the date order against stored dates on PATCH', async () => {
      const campaign = await create({ name: 'Dated', startDate: '2026-05-10' });
      const response = await patch(campaign.id, { endDate: '2026-05-09' }).expect(400);
      expect(response.body.context).toEqual({ endDate: 'must not be before startDate' });
      await patch(campaign.id, { endDate: '2026-05-10' }).expect(200);
      const nulled = await patch(campaign.id, { name: null }).expect(400);
      expect(nulled.body.context).toEqual({ name: 'must not be null' });
    });

    it('answers an unknown fileKey with 404 and context.id, a wrong kind of file with 415', async () => {
      const unknown = '0193a5e0-7b7a-7c1e-9d51-3f0b6c1e2a4b';
      const missing = await http()
        .post('/v1/promo-campaign')
        .set(owner.auth)
        .send({ name: 'n', afterImage: { fileKey: unknown } })
        .expect(404);
      expectError(missing.body, 'NOT_FOUND');
      expect(missing.body.context).toEqual({ id: unknown });

      const csvKey = await upload(SECOND_CSV, 'not-an-image.csv');
      const pngKey = await upload(png, 'not-a-table.png');
      const notImage = await http()
        .post('/v1/promo-campaign')
        .set(owner.auth)
        .send({ name: 'n', beforeImage: { fileKey: csvKey } })
        .expect(415);
      expect(notImage.body.context).toEqual({
        'beforeImage.fileKey': csvKey,
        contentType: 'text/csv',
      });
      const notCsv = await http()
        .post('/v1/promo-campaign')
        .set(owner.auth)
        .send({ name: 'n', videoPerformanceFileInfo: { fileKey: pngKey } })
        .expect(415);
      expect(notCsv.body.context).toEqual({
        'videoPerformanceFileInfo.fileKey': pngKey,
        contentType: 'image/png',
      });
    });

    it('refuses a bad CSV on create and creates nothing', async () => {
      const key = await upload('platform,videoURL,creatorHandle,clicks\nSocialA,x,y,1\n', 'h.csv');
      const response = await http()
        .post('/v1/promo-campaign')
        .set(owner.auth)
        .send({ name: 'Never created', videoPerformanceFileInfo: { fileKey: key } })
        .expect(400);
      expect(response.body.context).toEqual({
        'videoPerformanceFileInfo.line 1.clicks': expect.stringMatching(/^is not a known column/),
      });
      const list = await http()
        .get('/v1/promo-campaign')
        .query({ keyword: 'Never created' })
        .set(owner.auth)
        .expect(200);
      expect(list.body.items).toEqual([]);
    });

    it('answers an unknown campaign with 404 and context.id', async () => {
      const id = '0193a5e0-7b7a-7c1e-9d51-3f0b6c1e2a4b';
      for (const call of [
        http().get(`/v1/promo-campaign/${id}`),
        http().patch(`/v1/promo-campaign/${id}`).send({ name: 'x' }),
        http().get(`/v1/promo-campaign/${id}/video-performance`),
        http().post(`/v1/promo-campaign/${id}/video-performance`).send([JSON_RECORDS[0]]),
      ]) {
        const response = await call.set(owner.auth).expect(404);
        expectError(response.body, 'NOT_FOUND');
        expect(response.body.context).toEqual({ id });
      }
      const bad = await http().get('/v1/promo-campaign/not%20an%20id').set(owner.auth).expect(400);
      expect(bad.body.context).toEqual({ id: expect.any(String) });
    });
  });

  describe('search', () => {
    let workspace: Record<string, string>;
    const ids: Record<string, string> = {};

    beforeAll(async () => {
      workspace = { ...owner.auth, 'x-workspace-id': await owner.createWorkspace('Search') };
      const specs: [string, Body][] = [
        ['summer', { name: 'Summer Boost', type: 'BoostedPost' }],
        [
          'syndicated',
          { name: 'summer syndication', type: 'SyndicatedContent', status: 'Prepping' },
        ],
        ['percent', { name: '100% juice', status: 'InProgress' }],
        ['underscore', { name: 'snake_case', type: 'SyndicatedContent', status: 'InProgress' }],
        ['winter', { name: 'Winter ÉTÉ', status: 'Canceled' }],
      ];
      for (const [key, body] of specs) ids[key] = (await create(body, workspace)).id;
    });

    const search = async (query: Record<string, unknown>): Promise<string[]> => {
      const response = await http()
        .get('/v1/promo-campaign')
        .query(query)
        .set(workspace)
        .expect(200);
      return (response.body.items as Campaign[]).map((item) => item.id);
    };

    it('lists newest first', async () => {
      expect(await search({})).toEqual(
        ['winter', 'underscore', 'percent', 'syndicated', 'summer'].map((key) => ids[key]),
      );
    });

    it('searches names case-insensitively, with % and _ taken literally', async () => {
      expect(await search({ keyword: 'SUMMER' })).toEqual([ids.syndicated, ids.summer]);
      expect(await search({ keyword: '%' })).toEqual([ids.percent]);
      expect(await search({ keyword: '_' })).toEqual([ids.underscore]);
      expect(await search({ keyword: 'été' })).toEqual([ids.winter]);
      expect(await search({ keyword: 'nothing like it' })).toEqual([]);
      await http()
        .get('/v1/promo-campaign')
        .query({ keyword: 'x'.repeat(256) })
        .set(workspace)
        .expect(400);
    });

    it('filters by status and type, repeated or comma-separated', async () => {
      expect(await search({ status: 'InProgress,Prepping' })).toEqual([
        ids.underscore,
        ids.percent,
        ids.syndicated,
      ]);
      expect(await search({ status: ['InProgress', 'Canceled'] })).toEqual([
        ids.winter,
        ids.underscore,
        ids.percent,
      ]);
      expect(await search({ type: 'SyndicatedContent' })).toEqual([ids.underscore, ids.syndicated]);
      expect(await search({ type: 'SyndicatedContent', status: 'Prepping' })).toEqual([
        ids.syndicated,
      ]);
      const bad = await http()
        .get('/v1/promo-campaign')
        .query({ status: 'Done' })
        .set(workspace)
        .expect(400);
      expect(bad.body.context).toEqual({ status: expect.stringMatching(/^each value/) });
    });

    it('filters by id and by ids, comma-separated or repeated', async () => {
      expect(await search({ id: ids.percent })).toEqual([ids.percent]);
      expect(await search({ ids: `${ids.summer},${ids.winter}` })).toEqual([
        ids.winter,
        ids.summer,
      ]);
      expect(await search({ ids: [ids.summer, ids.percent], keyword: 'summer' })).toEqual([
        ids.summer,
      ]);
    });

    it('pages with limit and cursor', async () => {
      const first = await http()
        .get('/v1/promo-campaign')
        .query({ limit: 3 })
        .set(workspace)
        .expect(200);
      expect(first.body.items).toHaveLength(3);
      expect(first.body.hasMore).toBe(true);
      const second = await http()
        .get('/v1/promo-campaign')
        .query({ limit: 3, cursor: first.body.cursor })
        .set(workspace)
        .expect(200);
      expect(second.body).toMatchObject({ hasMore: false, cursor: null });
      expect((second.body.items as Campaign[]).map((item) => item.id)).toEqual([
        ids.syndicated,
        ids.summer,
      ]);
    });
  });

  describe('roles and workspaces', () => {
    let branded: Member;
    let member: Member;
    let published: Campaign;
    let unpublished: Campaign;

    beforeAll(async () => {
      branded = await owner.addMember('branded', [owner.defaultWorkspaceId]);
      member = await owner.addMember('member', [owner.defaultWorkspaceId]);
      published = await create({ name: 'Published for brands', isPublished: true });
      unpublished = await create({ name: 'Internal only' });
      await http()
        .post(`/v1/promo-campaign/${unpublished.id}/video-performance`)
        .set(owner.auth)
        .send([JSON_RECORDS[0]])
        .expect(201);
    });

    it('shows a branded user published campaigns only, in search and reads', async () => {
      const list = await http().get('/v1/promo-campaign').set(bearer(branded.token)).expect(200);
      const listed = (list.body.items as Campaign[]).map((item) => item.id);
      expect(listed).toContain(published.id);
      expect(listed).not.toContain(unpublished.id);
      expect((list.body.items as Campaign[]).every((item) => item.isPublished)).toBe(true);
      const byId = await http()
        .get('/v1/promo-campaign')
        .query({ id: unpublished.id })
        .set(bearer(branded.token))
        .expect(200);
      expect(byId.body.items).toEqual([]);

      await http().get(`/v1/promo-campaign/${published.id}`).set(bearer(branded.token)).expect(200);
      await http()
        .get(`/v1/promo-campaign/${published.id}/video-performance`)
        .set(bearer(branded.token))
        .expect(200);
      const hidden = await http()
        .get(`/v1/promo-campaign/${unpublished.id}`)
        .set(bearer(branded.token))
        .expect(404);
      expect(hidden.body.context).toEqual({ id: unpublished.id });
      await http()
        .get(`/v1/promo-campaign/${unpublished.id}/video-performance`)
        .set(bearer(branded.token))
        .expect(404);
    });

    it('does not let a branded user write', async () => {
      const calls = [
        http().post('/v1/promo-campaign').send({ name: 'Brand made' }),
        http().patch(`/v1/promo-campaign/${published.id}`).send({ name: 'Brand renamed' }),
        http().post(`/v1/promo-campaign/${published.id}/video-performance`).send([JSON_RECORDS[0]]),
      ];
      for (const call of calls) {
        const response = await call.set(bearer(branded.token)).expect(403);
        expectError(response.body, 'FORBIDDEN');
      }
      expect((await get(published.id)).name).toBe('Published for brands');
    });

    it('lets a member create, update and import, and sees unpublished campaigns', async () => {
      const campaign = await create({ name: 'Member made' }, bearer(member.token));
      expect(campaign.createdBy).toBe(member.id);
      await http()
        .patch(`/v1/promo-campaign/${campaign.id}`)
        .set(bearer(member.token))
        .send({ status: 'Prepping' })
        .expect(200);
      await http()
        .get(`/v1/promo-campaign/${unpublished.id}`)
        .set(bearer(member.token))
        .expect(200);
    });

    it('reads the video-performance list with an API key as well', async () => {
      const { key } = await owner.createApiKey();
      const response = await http()
        .get(`/v1/promo-campaign/${unpublished.id}/video-performance`)
        .set('api-key', key)
        .expect(200);
      expect(response.body.items).toHaveLength(1);
    });

    it("answers another workspace's campaign and files with 404", async () => {
      const otherWorkspace = await owner.createWorkspace('Other brand');
      const other = { ...owner.auth, 'x-workspace-id': otherWorkspace };
      const foreign = await create({ name: 'Other brand campaign' }, other);
      for (const call of [
        http().get(`/v1/promo-campaign/${foreign.id}`),
        http().patch(`/v1/promo-campaign/${foreign.id}`).send({ name: 'x' }),
        http().get(`/v1/promo-campaign/${foreign.id}/video-performance`),
        http().post(`/v1/promo-campaign/${foreign.id}/video-performance`).send([JSON_RECORDS[0]]),
      ]) {
        const response = await call.set(owner.auth).expect(404);
        expect(response.body.context).toEqual({ id: foreign.id });
      }
      const list = await http().get('/v1/promo-campaign').set(owner.auth).expect(200);
      expect((list.body.items as Campaign[]).map((item) => item.id)).not.toContain(foreign.id);

      const foreignFile = await upload(png, 'theirs.png', other);
      const response = await http()
        .post('/v1/promo-campaign')
        .set(owner.auth)
        .send({ name: 'n', beforeImage: { fileKey: foreignFile } })
        .expect(404);
      expect(response.body.context).toEqual({ id: foreignFile });
    });

    it('answers requests without credentials with 401', async () => {
      for (const call of [
        http().get('/v1/promo-campaign'),
        http().post('/v1/promo-campaign').send({ name: 'x' }),
        http().get(`/v1/promo-campaign/${published.id}`),
        http().patch(`/v1/promo-campaign/${published.id}`).send({ name: 'x' }),
        http().get(`/v1/promo-campaign/${published.id}/video-performance`),
        http().post(`/v1/promo-campaign/${published.id}/video-performance`).send([]),
      ]) {
        const response = await call.expect(401);
        expectError(response.body, 'UNAUTHORIZED');
      }
    });
  });

  it('documents the campaign endpoints in OpenAPI', async () => {
    const response = await http().get('/docs-json').expect(200);
    const paths = response.body.paths as Record<
      string,
      Record<string, { tags: string[]; responses: Record<string, unknown> }>
    >;
    expect(Object.keys(paths['/v1/promo-campaign']).sort()).toEqual(['get', 'post']);
    expect(Object.keys(paths['/v1/promo-campaign/{id}']).sort()).toEqual(['get', 'patch']);
    expect(Object.keys(paths['/v1/promo-campaign/{id}/video-performance']).sort()).toEqual([
      'get',
      'post',
    ]);
    expect(paths['/v1/promo-campaign/{id}'].patch.tags).toEqual(['Campaigns']);
    expect(Object.keys(paths['/v1/promo-campaign/{id}'].patch.responses)).toEqual(
      expect.arrayContaining(['200', '400', '404', '409']),
    );
  });
});
