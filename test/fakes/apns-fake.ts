import { createPublicKey, type KeyObject, randomUUID, verify } from 'node:crypto';
import * as http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';

/**
 * An APNs stand-in for tests: an HTTP/2 server on 127.0.0.1 (cleartext, or TLS asking for a
 * client certificate) that checks what APNs checks and answers the way APNs answers, and that a
 * test can script (410 for some tokens, 429/5xx for the next N requests, slow answers, GOAWAY or
 * a dropped connection after N requests).
 *
 * Checks, in order: method POST (405 MethodNotAllowed), path `/3/device/<hex>` (404 BadPath,
 * 400 MissingDeviceToken / BadDeviceToken), authentication (403 BadCertificate,
 * MissingProviderToken, InvalidProviderToken, ExpiredProviderToken; 429
 * TooManyProviderTokenUpdates when a connection changes tokens within 20 minutes), `apns-topic` (400 MissingTopic, DeviceTokenNotForTopic,
 * TopicDisallowed), `apns-push-type` (400 InvalidPushType), `apns-priority` (400 BadPriority,
 * including 10 with the background push type), `apns-expiration` (400 BadExpirationDate),
 * `apns-id` (400 BadMessageId), the payload (400 PayloadEmpty, 413 PayloadTooLarge above
 * 4096 bytes, 400 for a body that is not a JSON object), then the script.
 */

export interface ApnsFakeOptions {
  /** The topic pushes must carry (the pass type identifier). */
  topic: string;
  /**
   * Serve TLS and ask for a client certificate: pushes need one issued by `clientCaPem` whose
   * subject UID is the topic (as in Apple's pass type ID certificates).
   */
  tls?: { certPem: string; keyPem: string; clientCaPem: string };
  /** Require provider tokens (ES256 JWTs) verifiable with this key. */
  tokenAuth?: { publicKeyPem: string; keyId: string; teamId: string };
  /** SETTINGS_MAX_CONCURRENT_STREAMS announced to clients. Default 1000, as APNs does. */
  maxConcurrentStreams?: number;
  /** APNs' clock, for token ages. Default Date.now. */
  now?: () => number;
  /**
   * `all` (default): every push and answer is kept in `pushes` and `answers`. `counts`: only
   * `pushCounts` and `answerCounts` are kept (and the first push in `pushes`, as a sample of
   * what clients send), so that a load test of 100,000s of pushes measures the client rather
   * than the fake's bookkeeping.
   */
  record?: 'all' | 'counts';
}

export interface ApnsFakePush {
  token: string;
  topic: string;
  headers: Record<string, string>;
  payload: unknown;
  rawPayload: string;
  apnsId: string;
  receivedAt: Date;
}

export interface ApnsFakeAnswer {
  token: string;
  status: number;
  reason?: string;
}

interface ScriptedAnswer {
  token?: string;
  status: number;
  reason: string;
  timestamp?: number;
  remaining: number;
}

interface Delay {
  token?: string;
  ms: number;
  remaining: number;
}

interface Verdict {
  status: number;
  reason?: string;
  timestamp?: number;
}

interface VerifiedToken {
  valid: boolean;
  iat?: number;
}

export const APNS_MAX_PAYLOAD_BYTES = 4096;
const TOKEN_MAX_AGE_MS = 60 * 60 * 1000;
const TOKEN_MIN_UPDATE_INTERVAL_MS = 20 * 60 * 1000;
const PUSH_TYPES = new Set([
  'alert',
  'background',
  'location',
  'voip',
  'complication',
  'fileprovider',
  'mdm',
  'liveactivity',
  'pushtotalk',
  'widgets',
]);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DEVICE_PATH = /^\/3\/device\/([^/?]*)$/;

export class ApnsFake {
  /** Every push answered 200, in order (with `record: 'counts'`, only the first one). */
  readonly pushes: ApnsFakePush[] = [];
  /** Every answer given (200 and errors), in order (none with `record: 'counts'`). */
  readonly answers: ApnsFakeAnswer[] = [];
  /** HTTP/2 sessions clients opened (since the last reset). */
  sessionsOpened = 0;
  /** Most streams that were open at the same time. */
  peakConcurrentStreams = 0;
  /** Streams refused (RST_STREAM REFUSED_STREAM) because they came after a GOAWAY. */
  refusedStreams = 0;
  /** With `record: 'counts'`: pushes answered 200, per device token. */
  readonly pushCounts = new Map<string, number>();
  /** With `record: 'counts'`: answers given, per `<status> <reason>` (`200` for a push). */
  readonly answerCounts = new Map<string, number>();
  /** When the first and the last push answered 200 arrived (the fake's clock, ms). */
  firstPushAt?: number;
  lastPushAt?: number;

  private openStreams = 0;
  private requestsSeen = 0;
  private scripted: ScriptedAnswer[] = [];
  private delays: Delay[] = [];
  private connectionAction?: { kind: 'goaway' | 'destroy'; afterRequests: number };
  private readonly sessions = new Set<http2.ServerHttp2Session>();
  private readonly lastStreamIds = new WeakMap<http2.Http2Session, number>();
  private readonly verifiedTokens = new Map<string, VerifiedToken>();
  /** The provider token each connection last used (APNs limits how often it changes). */
  private lastProviderTokens = new WeakMap<http2.Http2Session, { token: string; iat: number }>();
  private readonly publicKey?: KeyObject;
  private readonly now: () => number;
  private readonly server: http2.Http2Server | http2.Http2SecureServer;
  private port = 0;

  private constructor(private readonly options: ApnsFakeOptions) {
    this.now = options.now ?? Date.now;
    if (options.tokenAuth !== undefined) {
      this.publicKey = createPublicKey(options.tokenAuth.publicKeyPem);
    }
    const settings = { maxConcurrentStreams: options.maxConcurrentStreams ?? 1000 };
    this.server =
      options.tls === undefined
        ? http2.createServer({ settings })
        : http2.createSecureServer({
            settings,
            cert: options.tls.certPem,
            key: options.tls.keyPem,
            ca: options.tls.clientCaPem,
            requestCert: true,
            // The handshake goes through without a (valid) certificate so the push can be
            // answered 403 BadCertificate, which tells a test more than a failed handshake.
            rejectUnauthorized: false,
          });
    this.server.on('session', (session: http2.ServerHttp2Session) => {
      this.sessionsOpened++;
      this.sessions.add(session);
      session.on('close', () => this.sessions.delete(session));
      session.on('error', () => undefined);
    });
    this.server.on('stream', (stream, headers) => this.onStream(stream, headers));
  }

  static async start(options: ApnsFakeOptions): Promise<ApnsFake> {
    const fake = new ApnsFake(options);
    await new Promise<void>((resolve) => fake.server.listen(0, '127.0.0.1', resolve));
    fake.port = (fake.server.address() as AddressInfo).port;
    return fake;
  }

  get url(): string {
    return `${this.options.tls === undefined ? 'http' : 'https'}://127.0.0.1:${this.port}`;
  }

  /** Requests that reached a stream handler (whatever the answer). */
  get requests(): number {
    return this.requestsSeen;
  }

  pushesFor(token: string): ApnsFakePush[] {
    return this.pushes.filter((push) => push.token === token);
  }

  answersFor(token: string): ApnsFakeAnswer[] {
    return this.answers.filter((answer) => answer.token === token);
  }

  /** Answers `status`/`reason` (to `token`, or to anyone) for the next `times` requests. */
  answer(options: {
    status: number;
    reason: string;
    token?: string;
    times?: number;
    timestamp?: number;
  }): this {
    this.scripted.push({
      token: options.token,
      status: options.status,
      reason: options.reason,
      timestamp: options.timestamp,
      remaining: options.times ?? Number.POSITIVE_INFINITY,
    });
    return this;
  }

  /** 410 Unregistered for `token` from now on, with APNs' timestamp (milliseconds). */
  unregister(token: string, timestamp = this.now()): this {
    return this.answer({ token, status: 410, reason: 'Unregistered', timestamp });
  }

  /** 400 BadDeviceToken for `token` from now on (e.g. a sandbox token sent to production). */
  rejectToken(token: string, reason = 'BadDeviceToken'): this {
    return this.answer({ token, status: 400, reason });
  }

  /** `status` for the next `count` requests (to `token`, or to anyone), then normal again. */
  failNext(count: number, status: 429 | 500 | 503, token?: string): this {
    const reason =
      status === 429
        ? 'TooManyRequests'
        : status === 500
          ? 'InternalServerError'
          : 'ServiceUnavailable';
    return this.answer({ token, status, reason, times: count });
  }

  /** Holds answers back by `ms` (to `token`, or to anyone), for the next `times` requests. */
  delay(ms: number, options: { token?: string; times?: number } = {}): this {
    this.delays.push({
      token: options.token,
      ms,
      remaining: options.times ?? Number.POSITIVE_INFINITY,
    });
    return this;
  }

  /**
   * After `requests` more requests, sends GOAWAY on the session of the last one, naming it as
   * the last stream processed: streams above it are refused (the client must retry them on a
   * new connection), streams below it are still answered. Once.
   */
  goawayAfter(requests: number): this {
    this.connectionAction = { kind: 'goaway', afterRequests: this.requestsSeen + requests };
    return this;
  }

  /** After `requests` more requests, destroys that session at once (streams in flight die). */
  destroyAfter(requests: number): this {
    this.connectionAction = { kind: 'destroy', afterRequests: this.requestsSeen + requests };
    return this;
  }

  /** Forgets the record and the script (not the open connections). */
  reset(): void {
    this.pushes.length = 0;
    this.answers.length = 0;
    this.scripted = [];
    this.delays = [];
    this.connectionAction = undefined;
    this.requestsSeen = 0;
    this.refusedStreams = 0;
    this.pushCounts.clear();
    this.answerCounts.clear();
    this.firstPushAt = undefined;
    this.lastPushAt = undefined;
    this.sessionsOpened = 0;
    this.peakConcurrentStreams = this.openStreams;
    this.lastProviderTokens = new WeakMap();
    this.verifiedTokens.clear();
  }

  async close(): Promise<void> {
    for (const session of this.sessions) session.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private onStream(stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders): void {
    stream.on('error', () => undefined);
    const lastStreamId = this.lastStreamIds.get(stream.session!);
    if (lastStreamId !== undefined && (stream.id ?? 0) > lastStreamId) {
      this.refusedStreams++;
      stream.close(http2.constants.NGHTTP2_REFUSED_STREAM);
      return;
    }
    this.openStreams++;
    this.peakConcurrentStreams = Math.max(this.peakConcurrentStreams, this.openStreams);
    stream.once('close', () => this.openStreams--);

    const chunks: Buffer[] = [];
    let size = 0;
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= APNS_MAX_PAYLOAD_BYTES + 1) chunks.push(chunk);
    });
    stream.on('end', () => {
      void this.handle(stream, headers, Buffer.concat(chunks), size);
    });
  }

  private async handle(
    stream: http2.ServerHttp2Stream,
    headers: http2.IncomingHttpHeaders,
    body: Buffer,
    size: number,
  ): Promise<void> {
    this.requestsSeen++;
    const requestNumber = this.requestsSeen;
    const session = stream.session!;
    const path = String(headers[':path'] ?? '');
    const token = DEVICE_PATH.exec(path)?.[1] ?? '';
    const requestId = headers['apns-id'];
    const apnsId = typeof requestId === 'string' && UUID.test(requestId) ? requestId : randomUUID();

    const verdict = this.check(stream, headers, token, body, size) ?? this.scriptedVerdict(token);
    const delay = this.takeDelay(token);
    if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));

    const goneAwayAt = this.lastStreamIds.get(session);
    if (goneAwayAt !== undefined && (stream.id ?? 0) > goneAwayAt) {
      // GOAWAY named an earlier stream as the last one processed: this one never was.
      this.refusedStreams++;
      if (!stream.destroyed && !stream.closed) stream.close(http2.constants.NGHTTP2_REFUSED_STREAM);
    } else if (!stream.destroyed && !stream.closed) {
      if (verdict === undefined) {
        const receivedAt = this.now();
        this.firstPushAt ??= receivedAt;
        this.lastPushAt = receivedAt;
        if (this.options.record !== 'counts' || this.pushes.length === 0) {
          this.pushes.push({
            token,
            topic: String(headers['apns-topic']),
            headers: plainHeaders(headers),
            payload: JSON.parse(body.toString('utf8')) as unknown,
            rawPayload: body.toString('utf8'),
            apnsId,
            receivedAt: new Date(receivedAt),
          });
        }
        this.recordAnswer({ token, status: 200 });
        stream.respond({ ':status': 200, 'apns-id': apnsId }, { endStream: true });
      } else {
        this.recordAnswer({ token, status: verdict.status, reason: verdict.reason });
        const errorBody = JSON.stringify({
          reason: verdict.reason,
          ...(verdict.timestamp !== undefined ? { timestamp: verdict.timestamp } : {}),
        });
        stream.respond({
          ':status': verdict.status,
          'apns-id': apnsId,
          'content-type': 'application/json',
        });
        stream.end(errorBody);
      }
    }

    const action = this.connectionAction;
    if (action !== undefined && requestNumber >= action.afterRequests) {
      this.connectionAction = undefined;
      if (action.kind === 'goaway') {
        const lastStreamId = stream.id ?? 0;
        this.lastStreamIds.set(session, lastStreamId);
        session.goaway(http2.constants.NGHTTP2_NO_ERROR, lastStreamId);
      } else {
        setImmediate(() => session.destroy());
      }
    }
  }

  private recordAnswer(answer: ApnsFakeAnswer): void {
    if (this.options.record !== 'counts') {
      this.answers.push(answer);
      return;
    }
    if (answer.status === 200) {
      this.pushCounts.set(answer.token, (this.pushCounts.get(answer.token) ?? 0) + 1);
    }
    const key =
      answer.reason === undefined ? String(answer.status) : `${answer.status} ${answer.reason}`;
    this.answerCounts.set(key, (this.answerCounts.get(key) ?? 0) + 1);
  }

  private check(
    stream: http2.ServerHttp2Stream,
    headers: http2.IncomingHttpHeaders,
    token: string,
    body: Buffer,
    size: number,
  ): Verdict | undefined {
    if (headers[':method'] !== 'POST') return { status: 405, reason: 'MethodNotAllowed' };
    if (!DEVICE_PATH.test(String(headers[':path'] ?? '')))
      return { status: 404, reason: 'BadPath' };
    if (token === '') return { status: 400, reason: 'MissingDeviceToken' };
    if (!/^(?:[0-9a-fA-F]{2}){32,}$/.test(token)) return { status: 400, reason: 'BadDeviceToken' };

    const topic = headers['apns-topic'];
    const auth = this.checkAuthentication(
      stream,
      headers,
      typeof topic === 'string' ? topic : undefined,
    );
    if (auth !== undefined) return auth;

    if (typeof topic !== 'string' || topic === '') return { status: 400, reason: 'MissingTopic' };
    if (topic !== this.options.topic) return { status: 400, reason: 'DeviceTokenNotForTopic' };

    const pushType = headers['apns-push-type'];
    // APNs documents no reason for a missing type; InvalidPushType is the one for a bad value.
    if (typeof pushType !== 'string' || !PUSH_TYPES.has(pushType)) {
      return { status: 400, reason: 'InvalidPushType' };
    }
    const priority = headers['apns-priority'];
    if (priority !== undefined && !['1', '5', '10'].includes(String(priority))) {
      return { status: 400, reason: 'BadPriority' };
    }
    // Apple: background notifications must use priority 5; 10 (also the default) is an error.
    if (pushType === 'background' && (priority === undefined || priority === '10')) {
      return { status: 400, reason: 'BadPriority' };
    }
    const expiration = headers['apns-expiration'];
    if (expiration !== undefined && !/^\d+$/.test(String(expiration))) {
      return { status: 400, reason: 'BadExpirationDate' };
    }
    const requestId = headers['apns-id'];
    if (requestId !== undefined && !UUID.test(String(requestId))) {
      return { status: 400, reason: 'BadMessageId' };
    }

    if (size === 0) return { status: 400, reason: 'PayloadEmpty' };
    if (size > APNS_MAX_PAYLOAD_BYTES) return { status: 413, reason: 'PayloadTooLarge' };
    try {
      const payload: unknown = JSON.parse(body.toString('utf8'));
      if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
        throw new Error('not an object');
      }
    } catch {
      // APNs documents no reason string for a malformed payload; this one names the problem.
      return { status: 400, reason: 'BadPayload' };
    }
    return undefined;
  }

  private checkAuthentication(
    stream: http2.ServerHttp2Stream,
    headers: http2.IncomingHttpHeaders,
    topic: string | undefined,
  ): Verdict | undefined {
    if (this.options.tls !== undefined) {
      const socket = stream.session!.socket as TLSSocket;
      if (!socket.authorized) return { status: 403, reason: 'BadCertificate' };
      const subject = socket.getPeerCertificate().subject as unknown as Record<string, unknown>;
      // The certificate names the one topic it may push to.
      if (topic !== undefined && subject.UID !== topic) {
        return { status: 400, reason: 'TopicDisallowed' };
      }
    }
    if (this.options.tokenAuth === undefined) return undefined;

    const authorization = headers.authorization;
    if (typeof authorization !== 'string' || authorization === '') {
      return { status: 403, reason: 'MissingProviderToken' };
    }
    const match = /^bearer ([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)$/i.exec(authorization);
    if (match === null) return { status: 403, reason: 'InvalidProviderToken' };
    const jwt = match[1];
    let verified = this.verifiedTokens.get(jwt);
    if (verified === undefined) {
      verified = this.verifyProviderToken(jwt);
      if (this.verifiedTokens.size > 1000) this.verifiedTokens.clear();
      this.verifiedTokens.set(jwt, verified);
    }
    if (!verified.valid || verified.iat === undefined) {
      return { status: 403, reason: 'InvalidProviderToken' };
    }
    if (this.now() - verified.iat * 1000 > TOKEN_MAX_AGE_MS) {
      return { status: 403, reason: 'ExpiredProviderToken' };
    }
    const session = stream.session!;
    const last = this.lastProviderTokens.get(session);
    if (last !== undefined && last.token !== jwt) {
      if ((verified.iat - last.iat) * 1000 < TOKEN_MIN_UPDATE_INTERVAL_MS) {
        return { status: 429, reason: 'TooManyProviderTokenUpdates' };
      }
    }
    if (last?.token !== jwt)
      this.lastProviderTokens.set(session, { token: jwt, iat: verified.iat });
    return undefined;
  }

  private verifyProviderToken(jwt: string): VerifiedToken {
    const { keyId, teamId } = this.options.tokenAuth!;
    const [headerPart, claimsPart, signaturePart] = jwt.split('.');
    try {
      const header = JSON.parse(Buffer.from(headerPart, 'base64url').toString('utf8')) as Record<
        string,
        unknown
      >;
      const claims = JSON.parse(Buffer.from(claimsPart, 'base64url').toString('utf8')) as Record<
        string,
        unknown
      >;
      if (header.alg !== 'ES256' || header.kid !== keyId) return { valid: false };
      const signatureOk = verify(
        'sha256',
        Buffer.from(`${headerPart}.${claimsPart}`),
        { key: this.publicKey!, dsaEncoding: 'ieee-p1363' },
        Buffer.from(signaturePart, 'base64url'),
      );
      if (!signatureOk || claims.iss !== teamId) return { valid: false };
      if (typeof claims.iat !== 'number' || !Number.isInteger(claims.iat)) return { valid: false };
      if (claims.iat * 1000 > this.now() + 5 * 60 * 1000) return { valid: false };
      return { valid: true, iat: claims.iat };
    } catch {
      return { valid: false };
    }
  }

  private scriptedVerdict(token: string): Verdict | undefined {
    const rule = this.scripted.find(
      (candidate) =>
        candidate.remaining > 0 && (candidate.token === undefined || candidate.token === token),
    );
    if (rule === undefined) return undefined;
    rule.remaining--;
    return { status: rule.status, reason: rule.reason, timestamp: rule.timestamp };
  }

  private takeDelay(token: string): number {
    const rule = this.delays.find(
      (candidate) =>
        candidate.remaining > 0 && (candidate.token === undefined || candidate.token === token),
    );
    if (rule === undefined) return 0;
    rule.remaining--;
    return rule.ms;
  }
}

function plainHeaders(headers: http2.IncomingHttpHeaders): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) result[name] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return result;
}
