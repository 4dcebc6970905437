import fc from 'fast-check';
import request from 'supertest';
import {
  errorBodyProblem,
  fillPath,
  listOperations,
  loadOpenApi,
  resolveSchema,
  type OpenApiDocument,
  type Operation,
  type ParameterObject,
  type SchemaObject,
} from './support/openapi';
import { makePng } from './support/png';
import { OwnerSession } from './support/session';
import { startTestApp, type TestApp } from './support/test-app';

/** Fixed so that a failure reproduces; FUZZ_SEED / FUZZ_REQUESTS override for longer hunts. */
const SEED = Number(process.env.FUZZ_SEED ?? 7_2026);
const TOTAL_REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 10_000);
const CONCURRENCY = 8;

/** Stands for a deeply nested JSON value of that depth, spliced into the JSON text. */
const DEEP = (depth: number) => `__DEEP_${depth}__`;
const DEEP_MARKER = /"__DEEP_(\d+)__"/g;

type Body =
  | { kind: 'json'; value: unknown; contentType: string }
  | { kind: 'raw'; text: string; contentType: string }
  | { kind: 'multipart'; fields: [string, string][]; file?: { name: string; bytes: Uint8Array } };

interface Answer {
  status: number;
  body: unknown;
  headers: Record<string, string | string[] | undefined>;
}

interface FuzzCase {
  path: string[];
  query: [string, string][];
  workspace: string | undefined;
  body: Body | undefined;
}

/** Ids the fuzzer puts in paths and bodies: the fuzzed workspace's and the sentinel's. */
interface IdPools {
  own: string[];
  sentinel: string[];
}

const NASTY_STRINGS = [
  '',
  ' ',
  '0',
  '-1',
  '1.5',
  '1e999',
  '-1e999',
  'NaN',
  'Infinity',
  'true',
  'null',
  'undefined',
  '[]',
  '{}',
  '2026-13-45',
  '2026-02-30T25:61:61Z',
  '9999999999999999999999999',
  "' OR 1=1 --",
  '"; DROP TABLE pass; --',
  '<script>alert(1)</script>',
  '../../etc/passwd',
  '%00',
  '\u0000',
  '\u202e\u0000\uffff',
  '😀'.repeat(50),
  'é',
  '__proto__',
  'constructor',
];

const hugeString = fc
  .constantFrom(256, 1_001, 20_000, 70_000)
  .chain((length) => fc.constantFrom('x', 'é', '😀', '<').map((c) => c.repeat(length)));

/** A value of any wrong kind: types, extremes, huge and nested. */
function badValue(pools: IdPools): fc.Arbitrary<unknown> {
  return fc.oneof(
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.double(),
    fc.constantFrom(1e308, -1e308, 2 ** 53 + 2, -(2 ** 53) - 2, 0.1, -0),
    fc.string(),
    fc.string({ unit: 'grapheme', maxLength: 40 }),
    fc.constantFrom(...NASTY_STRINGS),
    hugeString,
    fc.jsonValue({ maxDepth: 3 }),
    fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 5 }),
    fc.integer({ min: 2, max: 3_000 }).map(DEEP),
    fc.constantFrom(...pools.own, ...pools.sentinel),
    fc.constantFrom(...pools.sentinel).map((id) => ({ id })),
  );
}

/** Values just outside what the schema allows, as well as any wrong value. */
function outOfRange(schema: SchemaObject, pools: IdPools): fc.Arbitrary<unknown> {
  const near: unknown[] = [];
  if (schema.minimum !== undefined) near.push(schema.minimum - 1, schema.minimum - 0.5);
  if (schema.maximum !== undefined) near.push(schema.maximum + 1, schema.maximum * 10);
  if (schema.maxLength !== undefined) near.push('x'.repeat(schema.maxLength + 1));
  if (schema.enum !== undefined) {
    near.push('Bogus', String(schema.enum[0]).toLowerCase(), ` ${String(schema.enum[0])}`);
  }
  if (schema.pattern !== undefined) near.push('bad id!', 'a/b', 'a'.repeat(65), '');
  if (schema.format === 'date-time' || schema.format === 'date') {
    near.push('yesterday', '2026-02-30', '2026-01-01T99:00:00Z', 1_700_000_000_000);
  }
  if (schema.type === 'array') near.push({ length: 1 }, [[[]]], new Array(2_000).fill('x'));
  return near.length === 0 ? badValue(pools) : fc.oneof(fc.constantFrom(...near), badValue(pools));
}

/** A plausible valid value, used as the base that one mutation then spoils. */
function validValue(
  document: OpenApiDocument,
  raw: SchemaObject,
  name: string,
  pools: IdPools,
  depth = 0,
): unknown {
  const schema = resolveSchema(document, raw);
  if (schema.enum !== undefined) return schema.enum[0];
  if (schema.properties !== undefined) {
    const object: Record<string, unknown> = {};
    for (const key of schema.required ?? []) {
      object[key] = validValue(document, schema.properties[key], key, pools, depth + 1);
    }
    return object;
  }
  switch (schema.type) {
    case 'number':
    case 'integer':
      return schema.minimum ?? 1;
    case 'boolean':
      return true;
    case 'array':
      return schema.items !== undefined && depth === 0
        ? [validValue(document, schema.items, name, pools, depth + 1)]
        : [];
    case 'string':
      if (schema.format === 'date-time') return '2030-01-01T00:00:00.000Z';
      if (schema.format === 'date') return '2030-01-01';
      if (schema.format === 'binary') return makePng().toString('base64');
      if (/email/i.test(name)) return 'fuzz@test.example';
      if (/id$|serialnumber|key$/i.test(name)) return pools.own[0];
      return 'fuzz';
    default:
      return 'fuzz';
  }
}

/** Every property path of a body schema, one level into nested objects. */
function fieldPaths(
  document: OpenApiDocument,
  raw: SchemaObject,
): { path: string[]; schema: SchemaObject }[] {
  const schema = resolveSchema(document, raw);
  const paths: { path: string[]; schema: SchemaObject }[] = [];
  for (const [key, child] of Object.entries(schema.properties ?? {})) {
    const resolved = resolveSchema(document, child);
    paths.push({ path: [key], schema: resolved });
    for (const [inner, grandchild] of Object.entries(resolved.properties ?? {})) {
      paths.push({ path: [key, inner], schema: resolveSchema(document, grandchild) });
    }
  }
  return paths;
}

function setAt(target: unknown, path: string[], value: unknown): unknown {
  const copy: Record<string, unknown> =
    typeof target === 'object' && target !== null && !Array.isArray(target)
      ? { ...(target as Record<string, unknown>) }
      : {};
  const [head, ...rest] = path;
  copy[head] = rest.length === 0 ? value : setAt(copy[head], rest, value);
  return copy;
}

const WRONG_CONTENT_TYPES = [
  'text/plain',
  'application/xml',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'application/json-patch+json',
  'application/octet-stream',
  'application/json; charset=utf-16',
  'image/png',
];

const MALFORMED_JSON = [
  '{',
  '{"a":',
  '[1,2',
  '{"a":1,}',
  "{'a':1}",
  'undefined',
  'NaN',
  '{"a":1}}',
  '{"a":01}',
  '{"a":"\\x"}',
  '\u0000',
  '{"__proto__":{"polluted":true}}',
  '{"constructor":{"prototype":{"polluted":true}}}',
];

function bodyArbitrary(
  document: OpenApiDocument,
  operation: Operation,
  pools: IdPools,
): fc.Arbitrary<Body | undefined> {
  const json = (value: unknown): Body => ({ kind: 'json', value, contentType: 'application/json' });
  const nonObject = fc
    .oneof(
      fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 4 }),
      fc.string(),
      fc.double(),
      fc.integer(),
      fc.constant(null),
      fc.boolean(),
      fc.integer({ min: 2, max: 5_000 }).map(DEEP),
    )
    .map(json);
  const malformed = fc
    .constantFrom(...MALFORMED_JSON)
    .map((text): Body => ({ kind: 'raw', text, contentType: 'application/json' }));
  const unknownKey = fc.oneof(
    fc.string({ minLength: 1, maxLength: 20 }),
    fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'id', 'workspaceId'),
  );
  const multipart = fc
    .record({
      fields: fc.array(
        fc.tuple(
          fc.oneof(fc.constantFrom('bucket', 'fileName', 'file', 'x'), fc.string()),
          fc.oneof(fc.constantFrom(...NASTY_STRINGS), fc.string({ maxLength: 2_000 })),
        ),
        { maxLength: 6 },
      ),
      file: fc.option(
        fc.record({
          name: fc.oneof(
            fc.constantFrom('logo.png', '../x.png', '.htaccess', 'a.svg'),
            fc.string(),
          ),
          bytes: fc.oneof(fc.uint8Array({ maxLength: 2_000 }), fc.constant(makePng())),
        }),
        { nil: undefined },
      ),
    })
    .map((parts): Body => ({ kind: 'multipart', ...parts }));

  if (operation.body === undefined) {
    // Operations without a body still receive one now and then.
    return fc.oneof(
      { weight: 6, arbitrary: fc.constant(undefined) },
      { weight: 1, arbitrary: nonObject },
      { weight: 1, arbitrary: malformed },
      { weight: 1, arbitrary: fc.dictionary(unknownKey, fc.jsonValue()).map(json) },
    );
  }

  const schema = resolveSchema(document, operation.body);
  const base = validValue(document, schema, 'body', pools);
  const baseText = JSON.stringify(base);
  const fields = fieldPaths(document, schema);
  const required = schema.required ?? [];
  const variants: fc.Arbitrary<Body>[] = [nonObject, malformed, multipart];
  if (fields.length > 0) {
    variants.push(
      // One field of a valid body spoilt.
      fc
        .constantFrom(...fields)
        .chain(({ path, schema: field }) =>
          outOfRange(field, pools).map((value) => json(setAt(base, path, value))),
        ),
      // Two fields spoilt at once.
      fc
        .tuple(
          fc.constantFrom(...fields),
          fc.constantFrom(...fields),
          badValue(pools),
          badValue(pools),
        )
        .map(([first, second, one, two]) =>
          json(setAt(setAt(base, first.path, one), second.path, two)),
        ),
    );
  }
  if (required.length > 0) {
    variants.push(
      fc.subarray(required, { minLength: 1 }).map((missing) => {
        const copy = { ...(base as Record<string, unknown>) };
        for (const key of missing) delete copy[key];
        return json(copy);
      }),
    );
  }
  if (schema.type !== 'array') {
    variants.push(
      fc
        .tuple(unknownKey, badValue(pools))
        .map(([key, value]) => json({ ...(base as Record<string, unknown>), [key]: value })),
    );
  } else {
    variants.push(fc.array(badValue(pools), { minLength: 1, maxLength: 3 }).map(json));
  }
  variants.push(
    fc
      .tuple(fc.constantFrom(...WRONG_CONTENT_TYPES), fc.option(fc.constantFrom('a=1&b[c]=2')))
      .map(([contentType, text]): Body => ({ kind: 'raw', text: text ?? baseText, contentType })),
    fc.nat({ max: Math.max(0, baseText.length - 1) }).map((end): Body => ({
      kind: 'raw',
      text: baseText.slice(0, end),
      contentType: 'application/json',
    })),
  );
  return fc.oneof(...variants);
}

function queryValue(parameter: ParameterObject, pools: IdPools): fc.Arbitrary<string> {
  const schema = parameter.schema ?? {};
  const valid: string[] = [...(schema.enum ?? []).map(String), ...pools.own];
  if (schema.type === 'number' || schema.type === 'integer') valid.push('1', '100', '1000');
  if (schema.type === 'boolean') valid.push('true', 'false');
  return fc.oneof(
    fc.constantFrom(...(valid.length > 0 ? valid : ['fuzz'])),
    fc.constantFrom(...NASTY_STRINGS, ...pools.sentinel, '1,2,3', ',,,', 'a'.repeat(3_000)),
    fc.string({ maxLength: 50 }),
    fc.integer().map(String),
    fc.double().map(String),
  );
}

function caseArbitrary(
  document: OpenApiDocument,
  operation: Operation,
  pools: IdPools,
  ownWorkspace: string,
): fc.Arbitrary<FuzzCase> {
  const pathValue = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...pools.own, ...pools.sentinel) },
    { weight: 2, arbitrary: fc.stringMatching(/^[a-zA-Z0-9_-]{1,64}$/) },
    { weight: 2, arbitrary: fc.string({ minLength: 1, maxLength: 30 }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom('%', '..', '.', 'a b', 'a/b', 'a?b', 'a#b', 'é', '\u0000', "x'--"),
    },
    { weight: 1, arbitrary: fc.integer({ min: 65, max: 3_000 }).map((n) => 'a'.repeat(n)) },
  );
  const documented = operation.query.map((parameter) =>
    fc.option(
      fc.oneof(
        queryValue(parameter, pools).map((value): [string, string][] => [[parameter.name, value]]),
        fc
          .array(queryValue(parameter, pools), { minLength: 2, maxLength: 4 })
          .map((values) => values.map((value): [string, string] => [parameter.name, value])),
      ),
      { nil: [] as [string, string][] },
    ),
  );
  const unknown = fc.array(
    fc.tuple(
      fc.oneof(
        fc.string({ maxLength: 12 }),
        fc.constantFrom('a[b]', '__proto__', 'x[0]', 'limit[]'),
      ),
      fc.string({ maxLength: 20 }),
    ),
    { maxLength: 2 },
  );
  const workspace = fc.oneof(
    { weight: 8, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.constant(ownWorkspace) },
    { weight: 1, arbitrary: fc.constantFrom('bad id', 'ws;1', "x'", '../a', 'é', '%20', '{}') },
    { weight: 1, arbitrary: fc.integer({ min: 65, max: 500 }).map((n) => 'w'.repeat(n)) },
    { weight: 1, arbitrary: fc.stringMatching(/^[a-zA-Z0-9_-]{1,64}$/) },
  );
  return fc.record({
    path: fc.array(pathValue, {
      minLength: operation.pathParams.length,
      maxLength: operation.pathParams.length,
    }),
    query: fc
      .tuple(fc.tuple(...documented), unknown)
      .map(([lists, extra]) => [...lists.flat(), ...extra]),
    workspace,
    body: bodyArbitrary(document, operation, pools),
  });
}

function jsonText(value: unknown): string {
  return JSON.stringify(value).replace(DEEP_MARKER, (_, depth: string) => {
    const n = Number(depth);
    return n % 2 === 0
      ? `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`
      : `${'['.repeat(n)}${']'.repeat(n)}`;
  });
}

function urlOf(operation: Operation, fuzzCase: FuzzCase): string {
  let index = 0;
  const path = fillPath(operation.path, () => fuzzCase.path[index++] ?? 'x');
  const query = fuzzCase.query
    .map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`)
    .join('&');
  return query === '' ? path : `${path}?${query}`;
}

describe('Fuzzing every documented operation with malformed requests', () => {
  let testApp: TestApp;
  let owner: OwnerSession;
  let document: OpenApiDocument;
  let pools: IdPools;
  let sentinelWorkspace: string;

  /** Everything a reader of the sentinel workspace sees; the fuzzer must change none of it. */
  async function sentinelSnapshot(ids: string[]): Promise<string> {
    const read = (url: string) =>
      request(testApp.server)
        .get(url)
        .set(owner.auth)
        .set('x-workspace-id', sentinelWorkspace)
        .then((response) => ({ url, status: response.status, body: response.body as unknown }));
    const [passId, locationId, campaignId, notificationId, accountId] = ids;
    return JSON.stringify(
      await Promise.all([
        read('/v1/wallet-pass?limit=20'),
        read('/v1/wallet-pass-location?limit=20'),
        read('/v1/promo-campaign?limit=20'),
        read('/v1/accounts?limit=20'),
        read(`/v1/wallet-pass/${passId}`),
        read(`/v1/wallet-pass-location/${locationId}`),
        read(`/v1/promo-campaign/${campaignId}/video-performance`),
        read(`/v1/wallet-pass/notifications/${notificationId}?includeStats=true`),
        read(`/v1/accounts/${accountId}`),
      ]),
    );
  }

  async function createRecords(workspaceId: string, label: string): Promise<string[]> {
    const http = () => request(testApp.server);
    const pass = await http()
      .post('/v1/wallet-pass')
      .set(owner.auth)
      .set('x-workspace-id', workspaceId)
      .send({
        passName: `${label} card`,
        passMetadata: { description: label, organizationName: 'Fuzz Ltd' },
      })
      .expect(201);
    const passId = (pass.body as { id: string }).id;
    const created = await Promise.all([
      http()
        .post('/v1/wallet-pass-location')
        .set(owner.auth)
        .set('x-workspace-id', workspaceId)
        .send({
          name: label,
          latitude: 1,
          longitude: 2,
          relevantText: 'here',
          walletPass: { id: passId },
        })
        .expect(201),
      http()
        .post('/v1/promo-campaign')
        .set(owner.auth)
        .set('x-workspace-id', workspaceId)
        .send({ name: `${label} campaign` })
        .expect(201),
      http()
        .post('/v1/wallet-pass/notifications')
        .set(owner.auth)
        .set('x-workspace-id', workspaceId)
        .send({ passSerialNumber: passId, notificationName: label, status: 'Draft' })
        .expect(201),
      http()
        .post('/v1/accounts')
        .set(owner.auth)
        .set('x-workspace-id', workspaceId)
        .send({ name: `${label} account` })
        .expect(201),
    ]);
    return [passId, ...created.map((response) => (response.body as { id: string }).id)];
  }

  beforeAll(async () => {
    testApp = await startTestApp({ RATE_LIMIT_PER_MINUTE: '1000000' });
    owner = await OwnerSession.start(testApp.server);
    document = await loadOpenApi(testApp.server);
    sentinelWorkspace = await owner.createWorkspace('Sentinel');
    const own = await createRecords(owner.defaultWorkspaceId, 'Fuzzed');
    const sentinel = await createRecords(sentinelWorkspace, 'Sentinel');
    pools = { own, sentinel };
  });
  afterAll(() => testApp.close());

  it(`answers ${TOTAL_REQUESTS} malformed requests without a 5xx, every 4xx in the Error body`, async () => {
    const sentinelIds = pools.sentinel;
    const before = await sentinelSnapshot(sentinelIds);
    const operations = listOperations(document);
    const perOperation = Math.ceil(TOTAL_REQUESTS / operations.length);
    const histogram = new Map<number, number>();
    const perRoute = new Map<string, number>();
    const failures: {
      route: string;
      url: string;
      sent: string;
      status: number;
      problem: string;
      body: unknown;
    }[] = [];
    let sent = 0;

    for (const [index, operation] of operations.entries()) {
      const route = `${operation.method.toUpperCase()} ${operation.path}`;
      const cases = fc.sample(caseArbitrary(document, operation, pools, owner.defaultWorkspaceId), {
        seed: SEED + index,
        numRuns: perOperation,
      });
      const send = async (fuzzCase: FuzzCase): Promise<void> => {
        const url = urlOf(operation, fuzzCase);
        let pending = request(testApp.server)[operation.method](url).set(owner.auth);
        if (fuzzCase.workspace !== undefined)
          pending = pending.set('x-workspace-id', fuzzCase.workspace);
        const body = fuzzCase.body;
        if (body?.kind === 'json') {
          pending = pending.set('Content-Type', body.contentType).send(jsonText(body.value));
        } else if (body?.kind === 'raw') {
          pending = pending.set('Content-Type', body.contentType).send(body.text);
        } else if (body?.kind === 'multipart') {
          for (const [name, value] of body.fields) pending = pending.field(name, value);
          if (body.file !== undefined) {
            pending = pending.attach('file', Buffer.from(body.file.bytes), body.file.name || 'x');
          }
        }
        const response: Answer = await pending.then(
          (answer) => ({
            status: answer.status,
            body: answer.body as unknown,
            headers: answer.headers,
          }),
          (error: Error) => ({ status: 0, body: error.message, headers: {} }),
        );
        sent += 1;
        histogram.set(response.status, (histogram.get(response.status) ?? 0) + 1);
        perRoute.set(route, (perRoute.get(route) ?? 0) + 1);
        const problem =
          response.status === 0
            ? 'no answer'
            : response.status >= 500
              ? 'server error'
              : response.status >= 400
                ? errorBodyProblem(response.body, response.headers['x-request-id'])
                : undefined;
        if (problem !== undefined && failures.length < 50) {
          failures.push({
            route,
            url: url.slice(0, 200),
            sent: (body === undefined
              ? '-'
              : body.kind === 'json'
                ? `${body.contentType} ${jsonText(body.value)}`
                : body.kind === 'raw'
                  ? `${body.contentType} ${body.text}`
                  : `multipart ${JSON.stringify(body.fields)} file=${body.file?.name ?? '-'}`
            ).slice(0, 300),
            status: response.status,
            problem,
            body: JSON.stringify(response.body).slice(0, 300),
          });
        }
      };
      // A few at a time: fast, and concurrent requests are part of the robustness asked for.
      for (let start = 0; start < cases.length; start += CONCURRENCY) {
        await Promise.all(cases.slice(start, start + CONCURRENCY).map(send));
      }
    }

    const statuses = [...histogram.entries()].sort(([a], [b]) => a - b);
    console.log(
      [
        `fuzz: seed ${SEED}, ${sent} requests over ${operations.length} operations (${perOperation} each)`,
        `fuzz: statuses ${statuses.map(([status, count]) => `${status}×${count}`).join(', ')}`,
      ].join('\n'),
    );
    if (failures.length > 0) console.log(JSON.stringify(failures, null, 1));
    expect(failures).toEqual([]);
    expect(sent).toBeGreaterThanOrEqual(TOTAL_REQUESTS);
    // Whatever was accepted was written in the caller's own workspace, never the sentinel's.
    expect(await sentinelSnapshot(sentinelIds)).toBe(before);
  }, 240_000);
});
