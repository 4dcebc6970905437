import { createVerify, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { GoogleCallbackSigner } from '../support/google-callbacks';

/**
 * A Google Wallet stand-in for tests: an HTTP server on 127.0.0.1 that checks what Google
 * checks and answers the way Google answers, and that a test can script.
 *
 * - `POST /token` (the service account's `token_uri`): the OAuth 2.0 JWT-bearer grant. The
 *   assertion must be an RS256 JWT that verifies with the service account's public key, with
 *   `iss` = client_email, `aud` = the token URI, the wallet_object.issuer scope, `iat`/`exp`
 *   present, not expired and at most an hour apart. Otherwise 400 `invalid_grant`.
 * - `GET /keys` (WALLET_B_CALLBACK_KEYS_URL): the root keys of the callback signer.
 * - `/walletobjects/v1/<type>Class|<type>Object` for the class types generic, loyalty, offer,
 *   eventTicket, flight and transit: insert (POST, 409 when the id exists), get (GET, 404),
 *   patch (PATCH, 404), update (PUT, 404) and `/{id}/addMessage` (POST). Every call needs
 *   `Authorization: Bearer <a token this fake issued, not expired>` (401 otherwise); resource
 *   ids must be `<issuer id>.<[A-Za-z0-9._-]+>` (400, 403 for another issuer); an object needs
 *   an existing class of its own type (404). A class or object (an inserted one, and one as a
 *   PATCH or PUT leaves it) must have what Google's REST reference marks required for its type,
 *   with its enum values and date-time forms (400 INVALID_ARGUMENT naming the field): see
 *   {@link classProblems} and {@link objectProblems}. More than 3 TEXT_AND_NOTIFY messages on
 *   one resource within 24 h fail with a QuotaExceededException (429), as Google documents.
 * - `failNext(n, status, path?)` answers 429/500/503 to the next n REST calls (to that path).
 */

export const WALLET_OBJECT_ISSUER_SCOPE = 'https://www.googleapis.com/auth/wallet_object.issuer';
const NOTIFYING_LIMIT = 3;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface GoogleWalletFakeOptions {
  issuerId: string;
  /** Lifetime of the access tokens it issues (`expires_in`). Default 3599 s, as Google. */
  tokenLifetimeSeconds?: number;
}

/** The address clients reach the fake at, when that is not its own (a proxy in front). */
export interface GoogleWalletFakeAddress {
  url: string;
}

export interface FakeCall {
  method: string;
  path: string;
  body: unknown;
  status: number;
  authorization?: string;
}

export interface FakeMessage {
  header: string;
  body: string;
  id: string;
  messageType: string;
}

type Resource = Record<string, unknown> & { id: string; messages?: FakeMessage[] };

/** Google's class types and their save-link payload keys. */
export const FAKE_CLASS_TYPES = [
  'generic',
  'loyalty',
  'offer',
  'eventTicket',
  'flight',
  'transit',
] as const;
export type FakeClassType = (typeof FAKE_CLASS_TYPES)[number];
type Kind = 'Class' | 'Object';
type Collection = `${FakeClassType}${Kind}`;

const REVIEW_STATUSES = ['UNDER_REVIEW', 'underReview', 'DRAFT', 'draft'];
const OBJECT_STATES = ['ACTIVE', 'COMPLETED', 'EXPIRED', 'INACTIVE'].flatMap((state) => [
  state,
  state.toLowerCase(),
]);
/** Google's `BarcodeType` enum (its REST reference), less the deprecated lower-case aliases. */
const BARCODE_TYPES = [
  'QR_CODE',
  'PDF_417',
  'AZTEC',
  'CODE_128',
  'CODE_39',
  'CODABAR',
  'DATA_MATRIX',
  'EAN_8',
  'EAN_13',
  'ITF_14',
  'UPC_A',
  'TEXT_ONLY',
];
/**
 * Values a fixed-length numeric symbology cannot draw at all: EAN-13 is 13 digits, ITF-14 (a
 * GTIN-14) 14. Google's reference does not say it checks them; a wallet could only show such a
 * code broken, so the fake refuses them.
 */
const BARCODE_VALUES: Record<string, RegExp> = { EAN_13: /^\d{13}$/, ITF_14: /^\d{14}$/ };
const REDEMPTION_CHANNELS = ['INSTORE', 'ONLINE', 'BOTH', 'TEMPORARY_PRICE_REDUCTION'];
const TRANSIT_TYPES = ['BUS', 'RAIL', 'TRAM', 'FERRY', 'OTHER'];
const TRIP_TYPES = ['ROUND_TRIP', 'ONE_WAY'];
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})?$/;
const WITH_OFFSET = /(Z|[+-]\d{2}:\d{2})$/;

function valueAt(resource: unknown, path: string): unknown {
  let value = resource;
  for (const key of path.split('.')) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/** Problems Google reports for fields of a resource, collected by one type's rules. */
class Problems {
  readonly list: string[] = [];

  constructor(private readonly resource: Record<string, unknown>) {}

  present(path: string): boolean {
    const value = valueAt(this.resource, path);
    return value !== undefined && value !== null && value !== '';
  }

  require(...paths: string[]): void {
    for (const path of paths) if (!this.present(path)) this.list.push(`${path} is required`);
  }

  oneOf(path: string, values: readonly string[]): void {
    const value = valueAt(this.resource, path);
    if (value !== undefined && !values.includes(value as string)) {
      this.list.push(`Invalid value at '${path}': ${JSON.stringify(value)}`);
    }
  }

  matches(path: string, pattern: RegExp, what: string): void {
    const value = valueAt(this.resource, path);
    if (value !== undefined && (typeof value !== 'string' || !pattern.test(value))) {
      this.list.push(`Invalid value at '${path}': ${JSON.stringify(value)} (${what})`);
    }
  }

  dateTime(path: string, offset: 'any' | 'none' = 'any'): void {
    this.matches(path, ISO_DATE_TIME, 'an ISO 8601 date-time');
    const value = valueAt(this.resource, path);
    if (offset === 'none' && typeof value === 'string' && WITH_OFFSET.test(value)) {
      this.list.push(`Invalid value at '${path}': ${value} (a local date-time has no offset)`);
    }
  }
}

/**
 * What Google's REST reference marks required for a class of each type (besides `id`), with
 * the enum values and date-time forms it accepts.
 */
export function classProblems(type: FakeClassType, resource: Record<string, unknown>): string[] {
  const problems = new Problems(resource);
  problems.require('id');
  if (type !== 'generic') {
    problems.require('issuerName', 'reviewStatus');
    problems.oneOf('reviewStatus', REVIEW_STATUSES);
  }
  // Smart Tap: a class that enables it names the issuers that redeem it, by their numeric ids.
  if (resource.enableSmartTap === true) {
    const issuers = resource.redemptionIssuers;
    if (
      !Array.isArray(issuers) ||
      issuers.length === 0 ||
      !issuers.every((id) => typeof id === 'string' && /^\d+$/.test(id))
    ) {
      problems.list.push('redemptionIssuers must list issuer ids when enableSmartTap is true');
    }
  }
  switch (type) {
    case 'loyalty':
      problems.require('programName', 'programLogo.sourceUri.uri');
      break;
    case 'offer':
      problems.require('title', 'provider', 'redemptionChannel');
      problems.oneOf('redemptionChannel', REDEMPTION_CHANNELS);
      break;
    case 'eventTicket':
      problems.require('eventName.defaultValue.value');
      if (resource.venue !== undefined) {
        problems.require('venue.name.defaultValue.value', 'venue.address.defaultValue.value');
      }
      for (const at of ['doorsOpen', 'start', 'end']) problems.dateTime(`dateTime.${at}`);
      break;
    case 'flight': {
      problems.require(
        'flightHeader.carrier',
        'flightHeader.flightNumber',
        'origin.airportIataCode',
        'destination.airportIataCode',
        'localScheduledDepartureDateTime',
      );
      const codes = ['carrierIataCode', 'carrierIcaoCode'].filter((code) =>
        problems.present(`flightHeader.carrier.${code}`),
      );
      if (codes.length !== 1) {
        problems.list.push('Exactly one of carrierIataCode and carrierIcaoCode is required');
      }
      problems.matches('flightHeader.carrier.carrierIataCode', /^[A-Z0-9]{2}$/, 'two characters');
      problems.matches('flightHeader.carrier.carrierIcaoCode', /^[A-Z]{3}$/, 'three letters');
      problems.matches('flightHeader.flightNumber', /^\d+$/, 'digits only');
      problems.matches('origin.airportIataCode', /^[A-Z]{3}$/, 'three letters');
      problems.matches('destination.airportIataCode', /^[A-Z]{3}$/, 'three letters');
      problems.dateTime('localScheduledDepartureDateTime', 'none');
      problems.dateTime('localScheduledArrivalDateTime', 'none');
      problems.dateTime('localBoardingDateTime', 'none');
      break;
    }
    case 'transit':
      problems.require('transitType', 'logo.sourceUri.uri');
      problems.oneOf('transitType', TRANSIT_TYPES);
      break;
    case 'generic':
      break;
  }
  return problems.list;
}

/** What Google's REST reference marks required for an object of each type. */
export function objectProblems(type: FakeClassType, resource: Record<string, unknown>): string[] {
  const problems = new Problems(resource);
  problems.require('id', 'classId');
  if (type === 'generic') {
    problems.require('cardTitle.defaultValue.value', 'header.defaultValue.value');
  } else {
    problems.require('state');
  }
  problems.oneOf('state', OBJECT_STATES);
  if (resource.barcode !== undefined) {
    problems.require('barcode.type', 'barcode.value');
    problems.oneOf('barcode.type', BARCODE_TYPES);
    const pattern = BARCODE_VALUES[valueAt(resource, 'barcode.type') as string];
    if (pattern) problems.matches('barcode.value', pattern, 'the digits of its barcode type');
  }
  problems.dateTime('validTimeInterval.start.date');
  problems.dateTime('validTimeInterval.end.date');
  // Google's reference: "Only ASCII characters are supported."
  // eslint-disable-next-line no-control-regex
  problems.matches('smartTapRedemptionValue', /^[\x00-\x7f]+$/, 'ASCII characters only');
  if (resource.groupingInfo !== undefined) {
    // GroupingInfo: a string groupingId and an integer sortIndex (Google's REST reference).
    problems.matches('groupingInfo.groupingId', /^.+$/, 'a non-empty string');
    const sortIndex = valueAt(resource, 'groupingInfo.sortIndex');
    if (sortIndex !== undefined && !Number.isInteger(sortIndex)) {
      problems.list.push(`Invalid value at 'groupingInfo.sortIndex': ${JSON.stringify(sortIndex)}`);
    }
  }
  switch (type) {
    case 'flight':
      problems.require('passengerName');
      if (typeof resource.reservationInfo !== 'object' || resource.reservationInfo === null) {
        problems.list.push('reservationInfo is required');
      }
      break;
    case 'transit':
      problems.require('tripType');
      problems.oneOf('tripType', TRIP_TYPES);
      if (!problems.present('validTimeInterval')) problems.require('ticketLeg.departureDateTime');
      if (!problems.present('ticketLeg.originStationCode'))
        problems.require('ticketLeg.originName');
      problems.dateTime('ticketLeg.departureDateTime');
      problems.dateTime('ticketLeg.arrivalDateTime');
      break;
    default:
      break;
  }
  return problems.list;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly googleStatus: string,
    message: string,
  ) {
    super(message);
  }
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function decodeSegment(segment: string): Record<string, unknown> {
  const value: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
  if (typeof value !== 'object' || value === null) throw new Error('not an object');
  return value as Record<string, unknown>;
}

/** Verifies a compact RS256 JWT; returns header and claims, or throws. */
export function verifyRs256Jwt(
  jwt: string,
  publicKey: KeyObject,
): { header: Record<string, unknown>; claims: Record<string, unknown> } {
  const parts = jwt.split('.');
  if (parts.length !== 3) throw new Error('not a compact JWT');
  const header = decodeSegment(parts[0]);
  if (header.alg !== 'RS256') throw new Error(`alg is ${String(header.alg)}, not RS256`);
  const valid = createVerify('RSA-SHA256')
    .update(`${parts[0]}.${parts[1]}`)
    .verify(publicKey, Buffer.from(parts[2], 'base64url'));
  if (!valid) throw new Error('Invalid JWT Signature.');
  return { header, claims: decodeSegment(parts[1]) };
}

export class GoogleWalletFake {
  readonly calls: FakeCall[] = [];
  /** The resources of each collection (`loyaltyClass`, `loyaltyObject`, ...), by id. */
  private readonly stores = new Map<Collection, Map<string, Resource>>(
    FAKE_CLASS_TYPES.flatMap((type) =>
      (['Class', 'Object'] as const).map((kind): [Collection, Map<string, Resource>] => [
        `${type}${kind}`,
        new Map(),
      ]),
    ),
  );
  readonly callbackSigner = new GoogleCallbackSigner();
  /** Access tokens issued (by the token endpoint). */
  tokensIssued = 0;
  /** Requests to the token endpoint that were refused, with Google's error description. */
  readonly tokenRefusals: string[] = [];
  keyFetches = 0;

  readonly clientEmail = 'wallet-b@test-project.iam.gserviceaccount.com';
  readonly privateKeyId = randomBytes(20).toString('hex');
  private readonly keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
  private readonly tokens = new Map<string, number>();
  private readonly notifying = new Map<string, number[]>();
  private scripted: { status: number; remaining: number; path?: string }[] = [];
  private reachedAt?: GoogleWalletFakeAddress;
  private readonly server: Server;
  private port = 0;

  private constructor(private readonly options: GoogleWalletFakeOptions) {
    this.server = createServer((request, response) => {
      void this.handle(request, response);
    });
  }

  static async start(options: GoogleWalletFakeOptions): Promise<GoogleWalletFake> {
    const fake = new GoogleWalletFake(options);
    await new Promise<void>((resolve) => fake.server.listen(0, '127.0.0.1', resolve));
    fake.port = (fake.server.address() as AddressInfo).port;
    return fake;
  }

  /** Every class, of any type, by id (a snapshot). */
  get classes(): ReadonlyMap<string, Resource> {
    return this.union('Class');
  }

  /** Every object, of any type, by id (a snapshot). */
  get objects(): ReadonlyMap<string, Resource> {
    return this.union('Object');
  }

  /** The classes of one type. */
  classesOf(type: FakeClassType): ReadonlyMap<string, Resource> {
    return this.store(`${type}Class`);
  }

  /** The objects of one type. */
  objectsOf(type: FakeClassType): ReadonlyMap<string, Resource> {
    return this.store(`${type}Object`);
  }

  /** The type of the class with this id, or undefined when there is none. */
  classTypeOf(classId: string): FakeClassType | undefined {
    return FAKE_CLASS_TYPES.find((type) => this.store(`${type}Class`).has(classId));
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get tokenUri(): string {
    return `${this.reachedAt?.url ?? this.url}/token`;
  }

  /**
   * Clients reach the fake at `address` from now on (a proxy in front of it): its key file's
   * token_uri, and the token audience it accepts, name that address.
   */
  reachAt(address: GoogleWalletFakeAddress): this {
    this.reachedAt = address;
    return this;
  }

  get keysUrl(): string {
    return `${this.url}/keys`;
  }

  get publicKey(): KeyObject {
    return this.keys.publicKey;
  }

  /** The key file Google hands out for a service account (its token_uri points here). */
  serviceAccountJson(): Record<string, string> {
    return {
      type: 'service_account',
      project_id: 'test-project',
      private_key_id: this.privateKeyId,
      private_key: this.keys.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
      client_email: this.clientEmail,
      client_id: '100000000000000000000',
      token_uri: this.tokenUri,
    };
  }

  /** Writes the key file into `dir` and returns its path (for WALLET_B_SERVICE_ACCOUNT). */
  writeServiceAccount(dir: string): string {
    const path = join(dir, 'google-service-account.json');
    writeFileSync(path, JSON.stringify(this.serviceAccountJson(), null, 2));
    return path;
  }

  /** The service's WalletB settings pointing at this fake (its key file in a new temp dir). */
  serviceEnv(): Record<string, string> {
    return {
      WALLET_B_ISSUER_ID: this.options.issuerId,
      WALLET_B_SERVICE_ACCOUNT: this.writeServiceAccount(
        mkdtempSync(join(tmpdir(), 'wps-wallet-b-')),
      ),
      WALLET_B_API_URL: this.url,
      WALLET_B_CALLBACK_KEYS_URL: this.keysUrl,
    };
  }

  /**
   * `status` (429, 500 or 503) for the next `count` REST calls (whose path starts with `path`,
   * e.g. `/walletobjects/v1/genericClass/<id>/addMessage`, or any), then normal again.
   */
  failNext(count: number, status: 429 | 500 | 503, path?: string): this {
    this.scripted.push({ status, remaining: count, path });
    return this;
  }

  /** Makes every issued access token invalid (as if revoked or expired): next call gets 401. */
  revokeTokens(): void {
    this.tokens.clear();
  }

  /**
   * Creates an object as Google does when a holder saves through a save link: in the object
   * collection of its class's type, `type` when given (a save link's payload key) must be it.
   */
  saveObject(object: Record<string, unknown>, type?: FakeClassType): void {
    const id = String(object.id);
    this.validateId(id);
    const classType = this.classTypeOf(String(object.classId));
    if (classType === undefined) throw new Error(`no class ${String(object.classId)}`);
    if (type !== undefined && type !== classType) {
      throw new Error(`${type} object of the ${classType} class ${String(object.classId)}`);
    }
    const problems = objectProblems(classType, object);
    if (problems.length > 0) throw new Error(`Invalid ${classType} object: ${problems.join('; ')}`);
    this.store(`${classType}Object`).set(id, { ...object, id });
  }

  /**
   * Opens an "Add to Google Wallet" link (`https://pay.google.com/gp/v/save/<JWT>`) as Google
   * does when the holder taps it: the JWT must verify with the service account's key and carry
   * Google's claims (`iss` = the service account's email, `aud` "google", `typ`
   * "savetowallet", `iat` in seconds, `origins` a list); then its objects are saved
   * ({@link saveFromLink}). Throws what Google would refuse; returns the claims and the type.
   */
  openSaveLink(url: string): { claims: Record<string, unknown>; type: FakeClassType } {
    const prefix = 'https://pay.google.com/gp/v/save/';
    if (!url.startsWith(prefix)) throw new Error(`not a save link: ${url}`);
    const { claims } = verifyRs256Jwt(url.slice(prefix.length), this.publicKey);
    const problems: string[] = [];
    if (claims.iss !== this.clientEmail) problems.push(`iss is ${String(claims.iss)}`);
    if (claims.aud !== 'google') problems.push(`aud is ${String(claims.aud)}`);
    if (claims.typ !== 'savetowallet') problems.push(`typ is ${String(claims.typ)}`);
    if (!Number.isInteger(claims.iat)) problems.push('iat is not a time in seconds');
    if (!Array.isArray(claims.origins)) problems.push('origins is not a list');
    if (problems.length > 0) throw new Error(`Invalid save link: ${problems.join('; ')}`);
    return { claims, type: this.saveFromLink(claims.payload) };
  }

  /**
   * Saves the objects of a save link's JWT payload (`{loyaltyObjects: [...]}`, ...) as Google
   * does when the holder taps it; returns the payload key's class type.
   */
  saveFromLink(payload: unknown): FakeClassType {
    const entries = Object.entries((payload ?? {}) as Record<string, unknown>);
    if (entries.length !== 1) throw new Error('a save link names one kind of object');
    const [key, objects] = entries[0];
    const type = FAKE_CLASS_TYPES.find((item) => `${item}Objects` === key);
    if (type === undefined || !Array.isArray(objects)) throw new Error(`unknown payload ${key}`);
    for (const object of objects as Record<string, unknown>[]) this.saveObject(object, type);
    return type;
  }

  callsTo(method: string, pathPrefix: string): FakeCall[] {
    return this.calls.filter((call) => call.method === method && call.path.startsWith(pathPrefix));
  }

  reset(): void {
    this.calls.length = 0;
    this.scripted = [];
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = (request.url ?? '/').split('?')[0];
    const method = request.method ?? 'GET';
    const raw = await readBody(request);
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      response.writeHead(status, { 'content-type': 'application/json', ...headers });
      response.end(JSON.stringify(body));
      return status;
    };

    if (path === '/token' && method === 'POST') {
      this.token(raw, send);
      return;
    }
    if (path === '/keys' && method === 'GET') {
      this.keyFetches += 1;
      send(200, this.callbackSigner.rootKeys(), { 'cache-control': 'public, max-age=3600' });
      return;
    }

    let body: unknown = undefined;
    let status: number;
    try {
      if (!path.startsWith('/walletobjects/v1/'))
        throw new HttpError(404, 'NOT_FOUND', 'Not Found');
      this.authenticate(request.headers.authorization);
      const scripted = this.scripted.find(
        (entry) => entry.remaining > 0 && (entry.path === undefined || path.startsWith(entry.path)),
      );
      if (scripted !== undefined) {
        scripted.remaining -= 1;
        throw new HttpError(
          scripted.status,
          scripted.status === 429 ? 'RESOURCE_EXHAUSTED' : 'UNAVAILABLE',
          scripted.status === 429
            ? "Quota exceeded for quota metric 'Write requests' (scripted)"
            : 'Backend Error (scripted)',
        );
      }
      body = raw === '' ? undefined : (JSON.parse(raw) as unknown);
      status = send(200, this.rest(method, path.slice('/walletobjects/v1/'.length), body));
    } catch (error) {
      const failure =
        error instanceof HttpError
          ? error
          : new HttpError(
              400,
              'INVALID_ARGUMENT',
              `Invalid JSON payload received (${String(error)})`,
            );
      status = send(failure.status, {
        error: { code: failure.status, message: failure.message, status: failure.googleStatus },
      });
    }
    this.calls.push({
      method,
      path,
      body: body ?? (raw === '' ? undefined : raw),
      status,
      authorization: request.headers.authorization,
    });
  }

  private token(raw: string, send: (status: number, body: unknown) => number): void {
    const form = new URLSearchParams(raw);
    const refuse = (description: string) => {
      this.tokenRefusals.push(description);
      send(400, { error: 'invalid_grant', error_description: description });
    };
    if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') {
      this.tokenRefusals.push('unsupported_grant_type');
      send(400, { error: 'unsupported_grant_type', error_description: 'Invalid grant_type' });
      return;
    }
    let claims: Record<string, unknown>;
    try {
      ({ claims } = verifyRs256Jwt(form.get('assertion') ?? '', this.publicKey));
    } catch (error) {
      refuse(error instanceof Error ? error.message : String(error));
      return;
    }
    const now = Math.floor(Date.now() / 1000);
    const { iss, aud, scope, iat, exp } = claims;
    if (iss !== this.clientEmail) return refuse('Invalid issuer: unknown service account');
    if (aud !== this.tokenUri) return refuse(`Invalid JWT: aud must be ${this.tokenUri}`);
    if (typeof scope !== 'string' || !scope.split(' ').includes(WALLET_OBJECT_ISSUER_SCOPE)) {
      return refuse('Invalid scope: the wallet_object.issuer scope is missing');
    }
    if (typeof iat !== 'number' || typeof exp !== 'number') {
      return refuse('Invalid JWT: iat and exp are required');
    }
    if (exp <= now || iat > now + 300 || exp - iat > 3600) {
      return refuse(
        'Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe',
      );
    }
    const token = `ya29.fake-${randomBytes(24).toString('base64url')}`;
    const lifetime = this.options.tokenLifetimeSeconds ?? 3599;
    this.tokens.set(token, Date.now() + lifetime * 1000);
    this.tokensIssued += 1;
    send(200, { access_token: token, expires_in: lifetime, token_type: 'Bearer' });
  }

  private authenticate(header: string | undefined): void {
    const token = /^Bearer (.+)$/.exec(header ?? '')?.[1];
    const expiresAt = token === undefined ? undefined : this.tokens.get(token);
    if (expiresAt === undefined || expiresAt <= Date.now()) {
      throw new HttpError(
        401,
        'UNAUTHENTICATED',
        'Request had invalid authentication credentials. Expected OAuth 2 access token.',
      );
    }
  }

  private validateId(id: unknown): asserts id is string {
    if (typeof id !== 'string' || !/^\d+\.[A-Za-z0-9._-]+$/.test(id)) {
      throw new HttpError(400, 'INVALID_ARGUMENT', `Invalid resource ID: ${String(id)}`);
    }
    if (!id.startsWith(`${this.options.issuerId}.`)) {
      throw new HttpError(403, 'PERMISSION_DENIED', 'The caller does not have permission');
    }
  }

  private store(collection: Collection): Map<string, Resource> {
    return this.stores.get(collection)!;
  }

  private union(kind: Kind): Map<string, Resource> {
    return new Map(FAKE_CLASS_TYPES.flatMap((type) => [...this.store(`${type}${kind}`).entries()]));
  }

  /** 400 when the resource, as it would be stored, lacks what its type requires. */
  private validate(type: FakeClassType, kind: Kind, resource: Record<string, unknown>): void {
    const problems = (kind === 'Class' ? classProblems : objectProblems)(type, resource);
    if (problems.length > 0) throw new HttpError(400, 'INVALID_ARGUMENT', problems.join('; '));
  }

  private rest(method: string, path: string, body: unknown): unknown {
    const match = /^([a-z][A-Za-z]*?)(Class|Object)(?:\/([^/]+))?(?:\/(addMessage))?$/.exec(path);
    const type = FAKE_CLASS_TYPES.find((item) => item === match?.[1]);
    if (match === null || type === undefined) throw new HttpError(404, 'NOT_FOUND', 'Not Found');
    const kind = match[2] as Kind;
    const store = this.store(`${type}${kind}`);
    const id = match[3] === undefined ? undefined : decodeURIComponent(match[3]);
    const fields = (body ?? {}) as Record<string, unknown>;

    if (id === undefined) {
      if (method !== 'POST') throw new HttpError(404, 'NOT_FOUND', 'Not Found');
      this.validateId(fields.id);
      if (store.has(fields.id)) {
        throw new HttpError(409, 'ALREADY_EXISTS', `Resource already exists: ${fields.id}`);
      }
      // An object's class must be of the object's own type.
      if (kind === 'Object' && !this.store(`${type}Class`).has(String(fields.classId))) {
        throw new HttpError(404, 'NOT_FOUND', `Class not found: ${String(fields.classId)}`);
      }
      this.validate(type, kind, fields);
      const resource: Resource = { ...fields, id: fields.id };
      store.set(resource.id, resource);
      return resource;
    }

    this.validateId(id);
    const existing = store.get(id);
    if (existing === undefined) throw new HttpError(404, 'NOT_FOUND', `Resource not found: ${id}`);
    if (match[4] === 'addMessage') {
      if (method !== 'POST') throw new HttpError(404, 'NOT_FOUND', 'Not Found');
      const resource = this.addMessage(store, id, existing, fields.message);
      return { resource };
    }
    if (fields.id !== undefined && fields.id !== id) {
      throw new HttpError(400, 'INVALID_ARGUMENT', 'The id in the body does not match the path');
    }
    if (method === 'GET') return existing;
    if (method === 'PATCH') {
      const updated: Resource = { ...existing, ...fields, id };
      this.validate(type, kind, updated);
      store.set(id, updated);
      return updated;
    }
    if (method === 'PUT') {
      const replaced: Resource = { ...fields, id };
      this.validate(type, kind, replaced);
      store.set(id, replaced);
      return replaced;
    }
    throw new HttpError(404, 'NOT_FOUND', 'Not Found');
  }

  private addMessage(
    store: Map<string, Resource>,
    id: string,
    resource: Resource,
    message: unknown,
  ): Resource {
    if (typeof message !== 'object' || message === null) {
      throw new HttpError(400, 'INVALID_ARGUMENT', 'message is required');
    }
    const { header, body, id: messageId, messageType } = message as Record<string, unknown>;
    if (typeof header !== 'string' || typeof body !== 'string' || typeof messageId !== 'string') {
      throw new HttpError(400, 'INVALID_ARGUMENT', 'message header, body and id are required');
    }
    if (messageType !== 'TEXT' && messageType !== 'TEXT_AND_NOTIFY') {
      throw new HttpError(400, 'INVALID_ARGUMENT', `Invalid messageType: ${String(messageType)}`);
    }
    if (messageType === 'TEXT_AND_NOTIFY') {
      const now = Date.now();
      const recent = (this.notifying.get(id) ?? []).filter((at) => at > now - DAY_MS);
      if (recent.length >= NOTIFYING_LIMIT) {
        throw new HttpError(
          429,
          'RESOURCE_EXHAUSTED',
          'QuotaExceededException: at most 3 notifying messages per pass in 24 hours',
        );
      }
      this.notifying.set(id, [...recent, now]);
    }
    const updated: Resource = {
      ...resource,
      messages: [...(resource.messages ?? []), { header, body, id: messageId, messageType }],
    };
    store.set(id, updated);
    return updated;
  }
}
