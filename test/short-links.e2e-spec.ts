import { DomainError } from '@app/core';
import {
  LinkClick,
  LinkRedirectService,
  LinkStatsService,
  ShortLink,
  type WorkspaceTopLinkStats,
} from '@app/passes';
import { Logger } from '@nestjs/common';
import { getRepositoryToken } from '@nestjs/typeorm';
import request from 'supertest';
import { DataSource, type Repository } from 'typeorm';
import { OwnerSession } from './support/session';
import { startTestApp, type TestApp } from './support/test-app';

interface LinkInput {
  link?: string;
  text?: string;
  utmSource?: string;
  slug?: string;
}

interface LinkValue extends LinkInput {
  shortLinkId: string;
  slug: string;
  shortLinkValue: string;
}

interface CreatedPass {
  id: string;
  links: LinkValue[];
}

const metadata = (links: LinkInput[]) => ({
  description: 'Loyalty card',
  organizationName: 'Brand Ltd',
  backFields: [{ key: 'links', label: 'Links', value: links }],
});

describe('Short links', () => {
  let testApp: TestApp;
  let owner: OwnerSession;
  let redirects: LinkRedirectService;
  let stats: LinkStatsService;
  let clicks: Repository<LinkClick>;
  let shortLinks: Repository<ShortLink>;

  beforeAll(async () => {
    testApp = await startTestApp({ PUBLIC_BASE_URL: 'https://wallet.test' });
    owner = await OwnerSession.start(testApp.server);
    redirects = testApp.app.get(LinkRedirectService);
    stats = testApp.app.get(LinkStatsService);
    clicks = testApp.app.get<Repository<LinkClick>>(getRepositoryToken(LinkClick));
    shortLinks = testApp.app.get<Repository<ShortLink>>(getRepositoryToken(ShortLink));
  });
  afterAll(() => testApp.close());
  afterEach(() => jest.restoreAllMocks());

  const http = () => request(testApp.server);
  let counter = 0;

  async function createPass(links: LinkInput[], workspaceId?: string): Promise<CreatedPass> {
    let call = http().post('/v1/wallet-pass').set(owner.auth);
    if (workspaceId !== undefined) call = call.set('x-workspace-id', workspaceId);
    const response = await call
      .send({ passName: `Linked pass ${++counter}`, passMetadata: metadata(links) })
      .expect(201);
    const body = response.body as {
      id: string;
      passMetadata: { backFields: { value: LinkValue[] }[] };
    };
    return { id: body.id, links: body.passMetadata.backFields[0].value };
  }

  /** Waits for the click inserts the redirects started, then reads a short link's clicks. */
  async function clicksOf(shortLinkId: string): Promise<LinkClick[]> {
    await redirects.flush();
    return clicks.find({ where: { shortLinkId }, order: { clickedTime: 'ASC' } });
  }

  describe('GET /l/{slug}', () => {
    it('redirects (302, no-store) to the target with utm_source and records the click', async () => {
      const pass = await createPass([
        { text: 'Stores', link: 'https://brand.example/stores', utmSource: 'wallet' },
      ]);
      const [link] = pass.links;
      expect(link.shortLinkValue).toBe(`https://wallet.test/l/${link.slug}`);

      const before = Date.now();
      const response = await http().get(`/l/${link.slug}`).expect(302);
      expect(response.headers.location).toBe('https://brand.example/stores?utm_source=wallet');
      expect(response.headers['cache-control']).toBe('no-store');

      const rows = await clicksOf(link.shortLinkId);
      expect(rows).toEqual([
        {
          id: expect.stringMatching(/^[0-9a-f-]{36}$/),
          workspaceId: owner.defaultWorkspaceId,
          passId: pass.id,
          shortLinkId: link.shortLinkId,
          clickedTime: expect.any(Date),
        },
      ]);
      expect(rows[0].clickedTime.getTime()).toBeGreaterThanOrEqual(before - 1000);
      expect(rows[0].clickedTime.getTime()).toBeLessThanOrEqual(Date.now() + 1000);

      await http().get(`/l/${link.slug}`).expect(302);
      expect(await clicksOf(link.shortLinkId)).toHaveLength(2);
    });

    it('redirects to the target as it is when the link has no utmSource', async () => {
      const pass = await createPass([{ link: 'https://brand.example/menu?lang=en#drinks' }]);
      const response = await http().get(`/l/${pass.links[0].slug}`).expect(302);
      expect(response.headers.location).toBe('https://brand.example/menu?lang=en#drinks');
      expect(await clicksOf(pass.links[0].shortLinkId)).toHaveLength(1);
    });

    it('keeps the query and the fragment and replaces an existing utm_source', async () => {
      const pass = await createPass([
        {
          link: 'https://brand.example/offers?ref=pass&utm_source=old&q=a%20b#summer',
          utmSource: 'wallet card',
        },
      ]);
      const response = await http().get(`/l/${pass.links[0].slug}`).expect(302);
      expect(response.headers.location).toBe(
        'https://brand.example/offers?ref=pass&q=a%20b&utm_source=wallet%20card#summer',
      );
    });

    it('uses the slug chosen for a link, matched exactly (case included) on every database', async () => {
      const slug = `Stores-${Date.now()}`;
      const pass = await createPass([{ link: 'https://brand.example/stores', slug }]);
      expect(pass.links[0].slug).toBe(slug);
      await http().get(`/l/${slug}`).expect(302);
      const wrongCase = await http().get(`/l/${slug.toLowerCase()}`).expect(404);
      expect(wrongCase.body.context).toEqual({ id: slug.toLowerCase() });
    });

    it('answers an unknown slug with 404 and the Error body', async () => {
      const response = await http().get('/l/no-such-slug').expect(404);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      expect(response.body).toEqual({
        txId: expect.any(String),
        timestamp: expect.any(String),
        errorCode: 'NOT_FOUND',
        errorMessage: 'Short link not found',
        context: { id: 'no-such-slug' },
      });
    });

    it.each(['ab', 'bad.slug', 'bad%20slug', 'x'.repeat(65)])(
      'answers the malformed slug %s with 404, not 400',
      async (slug) => {
        const response = await http().get(`/l/${slug}`).expect(404);
        expect(response.body.errorCode).toBe('NOT_FOUND');
      },
    );

    it("still redirects a deleted pass's short links, and counts them", async () => {
      const pass = await createPass([{ link: 'https://brand.example/old' }]);
      await http().delete(`/v1/wallet-pass/${pass.id}`).set(owner.auth).expect(204);
      const response = await http().get(`/l/${pass.links[0].slug}`).expect(302);
      expect(response.headers.location).toBe('https://brand.example/old');
      expect(await clicksOf(pass.links[0].shortLinkId)).toHaveLength(1);
    });

    it('redirects HEAD requests and link-preview bots without counting them', async () => {
      const pass = await createPass([{ link: 'https://brand.example/preview' }]);
      const slug = pass.links[0].slug;
      const head = await http().head(`/l/${slug}`).expect(302);
      expect(head.headers.location).toBe('https://brand.example/preview');
      await http()
        .get(`/l/${slug}`)
        .set('User-Agent', 'facebookexternalhit/1.1 Facebot Twitterbot/1.0')
        .expect(302);
      await http().get(`/l/${slug}`).set('User-Agent', 'Slackbot-LinkExpanding 1.0').expect(302);
      expect(await clicksOf(pass.links[0].shortLinkId)).toHaveLength(0);

      await http()
        .get(`/l/${slug}`)
        .set('User-Agent', 'Mozilla/5.0 (Linux; Android 9; CUBOT P30) Chrome/120.0 Mobile')
        .expect(302);
      expect(await clicksOf(pass.links[0].shortLinkId)).toHaveLength(1);
    });

    it('is left out of the OpenAPI document', async () => {
      const response = await http().get('/docs-json').expect(200);
      const paths = Object.keys((response.body as { paths: Record<string, unknown> }).paths);
      expect(paths.length).toBeGreaterThan(5);
      expect(paths.filter((path) => path.startsWith('/l/'))).toEqual([]);
    });

    it('still redirects when the click cannot be written, and logs a warning', async () => {
      const pass = await createPass([{ link: 'https://brand.example/down', utmSource: 'w' }]);
      // The click and its statistics are written in one transaction, which fails here.
      jest
        .spyOn(testApp.app.get(DataSource), 'transaction')
        .mockRejectedValueOnce(new Error('connect ECONNREFUSED'));
      const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);

      const response = await http().get(`/l/${pass.links[0].slug}`).expect(302);
      expect(response.headers.location).toBe('https://brand.example/down?utm_source=w');
      expect(await clicksOf(pass.links[0].shortLinkId)).toHaveLength(0);
      expect(warn).toHaveBeenCalledWith(
        expect.objectContaining({ shortLinkId: pass.links[0].shortLinkId }),
        expect.stringContaining('Could not record a short-link click'),
      );
    });
  });

  describe('LinkStatsService.forWindow', () => {
    const from = new Date('2026-03-01T00:00:00.000Z');
    const to = new Date('2026-03-02T00:00:00.000Z');
    const at = (base: Date, ms: number) => new Date(base.getTime() + ms);

    let pass: CreatedPass;
    /** Short-link ids in the expected ranking: 3 clicks, 2 and 2 (tie by id), 0. */
    let ranking: string[];
    let targets: Map<string, string>;

    async function click(shortLinkId: string, times: Date[]): Promise<void> {
      const shortLink = await shortLinks.findOneByOrFail({ id: shortLinkId });
      for (const clickedTime of times) redirects.record(shortLink, { clickedTime });
      await redirects.flush();
    }

    beforeAll(async () => {
      pass = await createPass([
        { text: 'A', link: 'https://brand.example/a' },
        { text: 'B', link: 'https://brand.example/b', utmSource: 'wallet' },
        { text: 'C', link: 'https://brand.example/c' },
        { text: 'D', link: 'https://brand.example/d' },
        { text: 'Only text' },
      ]);
      const [a, b, c, d] = pass.links.map((link) => link.shortLinkId);
      targets = new Map(pass.links.map((link) => [link.shortLinkId, link.link ?? '']));
      // A: 2 in the window (one exactly at `from`), one just before it, one exactly at `to`.
      await click(a, [from, at(from, 60_000), at(from, -1), to]);
      // B: 3 in the window (one at the last millisecond).
      await click(b, [at(from, 1), at(from, 3_600_000), at(to, -1)]);
      // C: 2 in the window, ties with A.
      await click(c, [at(from, 5), at(from, 7)]);
      // D: none in the window, one long after it.
      await click(d, [at(to, 86_400_000)]);
      ranking = [b, ...[a, c].sort(), d];
    });

    it('counts the clicks in [from, to) and ranks every short link of the pass', async () => {
      const result = await stats.forWindow(owner.defaultWorkspaceId, pass.id, from, to, {});
      expect(result.totalLinksClicks).toBe(7);
      expect(result.linkStats.hasMore).toBe(false);
      expect(result.linkStats.cursor).toBeNull();
      expect(result.linkStats.items.map((item) => item.id)).toEqual(ranking);
      expect(result.linkStats.items.map((item) => item.totalClicks)).toEqual([3, 2, 2, 0]);

      const first = result.linkStats.items[0];
      expect(first).toEqual<WorkspaceTopLinkStats>({
        id: ranking[0],
        linkUrl: 'https://brand.example/b',
        totalClicks: 3,
        workspaceId: owner.defaultWorkspaceId,
        createdTime: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
        updatedTime: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
        createdBy: expect.any(String),
        updatedBy: expect.any(String),
      });
      for (const item of result.linkStats.items) expect(item.linkUrl).toBe(targets.get(item.id));
    });

    it('reads to = null as now', async () => {
      const result = await stats.forWindow(owner.defaultWorkspaceId, pass.id, from, null);
      expect(result.totalLinksClicks).toBe(9);
      expect(result.linkStats.items.map((item) => item.totalClicks)).toEqual([3, 3, 2, 1]);
    });

    it('gives an empty window zero clicks and still lists the links', async () => {
      const result = await stats.forWindow(owner.defaultWorkspaceId, pass.id, to, from);
      expect(result.totalLinksClicks).toBe(0);
      expect(result.linkStats.items.map((item) => item.id)).toEqual([...ranking].sort());
    });

    it('pages through the ranking with limit=1 and the integer cursor', async () => {
      const seen: string[] = [];
      const cursors: (string | null)[] = [];
      let cursor: string | undefined;
      for (let guard = 0; guard < 10; guard++) {
        const result = await stats.forWindow(owner.defaultWorkspaceId, pass.id, from, to, {
          cursor,
          limit: 1,
        });
        expect(result.totalLinksClicks).toBe(7);
        expect(result.linkStats.items).toHaveLength(1);
        seen.push(result.linkStats.items[0].id);
        cursors.push(result.linkStats.cursor);
        expect(result.linkStats.hasMore).toBe(result.linkStats.cursor !== null);
        if (result.linkStats.cursor === null) break;
        cursor = result.linkStats.cursor;
      }
      expect(seen).toEqual(ranking);
      expect(cursors).toEqual(['1', '2', '3', null]);
    });

    it('returns an empty page for a cursor past the end', async () => {
      const result = await stats.forWindow(owner.defaultWorkspaceId, pass.id, from, to, {
        cursor: '40',
      });
      expect(result.totalLinksClicks).toBe(7);
      expect(result.linkStats).toEqual({ items: [], cursor: null, hasMore: false });
    });

    it.each([
      [{ cursor: 'abc' }, 'cursor'],
      [{ cursor: '-1' }, 'cursor'],
      [{ cursor: '1.5' }, 'cursor'],
      [{ limit: 0 }, 'limit'],
      [{ limit: 21 }, 'limit'],
      [{ limit: 1.5 }, 'limit'],
    ])('refuses %p with a 400 INVALID_INPUT on %s', async (page, field) => {
      const attempt = stats.forWindow(owner.defaultWorkspaceId, pass.id, from, to, page);
      await expect(attempt).rejects.toBeInstanceOf(DomainError);
      const error = (await attempt.catch((caught: unknown) => caught)) as DomainError;
      expect(error.status).toBe(400);
      expect(error.code).toBe('INVALID_INPUT');
      expect(Object.keys(error.context ?? {})).toEqual([field]);
    });

    it("leaks nothing of another workspace's pass", async () => {
      const other = await owner.createWorkspace();
      const foreign = await createPass([{ link: 'https://other.example/x' }], other);
      await click(foreign.links[0].shortLinkId, [at(from, 10)]);

      const wrongWorkspace = await stats.forWindow(owner.defaultWorkspaceId, foreign.id, from, to);
      expect(wrongWorkspace).toEqual({
        totalLinksClicks: 0,
        linkStats: { items: [], cursor: null, hasMore: false },
      });
      const ownWorkspace = await stats.forWindow(other, foreign.id, from, to);
      expect(ownWorkspace.totalLinksClicks).toBe(1);
      const crossed = await stats.forWindow(other, pass.id, from, to);
      expect(crossed.totalLinksClicks).toBe(0);
      expect(crossed.linkStats.items).toEqual([]);
    });
  });

  describe('with a low rate limit', () => {
    let limited: TestApp;

    beforeAll(async () => {
      limited = await startTestApp({ RATE_LIMIT_PER_MINUTE: '3' });
    });
    afterAll(() => limited.close());

    it('always redirects, and counts at most RATE_LIMIT_PER_MINUTE clicks a minute per client', async () => {
      const session = await OwnerSession.start(limited.server);
      const created = await request(limited.server)
        .post('/v1/wallet-pass')
        .set(session.auth)
        .send({ passName: 'Busy', passMetadata: metadata([{ link: 'https://brand.example/' }]) })
        .expect(201);
      const [link] = (created.body as { passMetadata: { backFields: { value: LinkValue[] }[] } })
        .passMetadata.backFields[0].value;

      for (let i = 0; i < 6; i++) {
        const response = await request(limited.server).get(`/l/${link.slug}`).expect(302);
        expect(response.headers['ratelimit-limit']).toBeUndefined();
      }
      const service = limited.app.get(LinkRedirectService);
      await service.flush();
      const rows = await limited.app
        .get<Repository<LinkClick>>(getRepositoryToken(LinkClick))
        .countBy({ shortLinkId: link.shortLinkId });
      expect(rows).toBe(3);
    });
  });
});
