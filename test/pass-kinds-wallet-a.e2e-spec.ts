import type { PassMetadataDto } from '@app/passes';
import request from 'supertest';
import { makePng } from './support/png';
import { binaryBody, openPackage } from './support/pkpass';
import { WALLET_A_KINDS, type WalletAKind, type WalletAKindName } from './support/wallet-a-kinds';
import {
  deviceToken,
  notifyAndWait,
  PASS_TYPE_ID,
  startWalletAApp,
  waitFor,
  type WalletAApp,
} from './support/walleta-env';

interface Field {
  key: string;
  label?: string;
  value: string;
  changeMessage?: string;
}
type Structure = Record<string, Field[]> & { transitType?: string };
type PassJson = Record<string, unknown>;

interface PassBody {
  id: string;
  slug: string;
  passName: string;
}
interface HolderBody {
  id: string;
  serialNumber: string;
  downloadUrl: string;
  relevantDate: string | null;
  expirationDate: string | null;
}

const STYLES = ['storeCard', 'coupon', 'eventTicket', 'boardingPass', 'generic'];
const PK_BARCODE = {
  QR: 'PKBarcodeFormatQR',
  PDF417: 'PKBarcodeFormatPDF417',
  Aztec: 'PKBarcodeFormatAztec',
  Code128: 'PKBarcodeFormatCode128',
} as const;

/** A holder's own day and end: a ticket for a given day (DESIGN.md §9). */
const HOLDER_DATES = {
  relevantDate: '2026-07-02T19:30:00+02:00',
  expirationDate: '2026-07-03T04:00:00+02:00',
};

/**
 * What each kind's package must show besides its style: the primary fields (the brand's or the
 * kind's), the transit type, the semantic tags, the relevant date, and a change to make.
 */
interface KindCase {
  kind: WalletAKind;
  /** An artwork image: the poster event ticket. */
  poster?: boolean;
  primaryKeys: string[];
  transitType?: string;
  semantics?: Record<string, unknown>;
  relevantDate?: string;
  /** The holder's package's semantic tags (its seat, its day). */
  holderSemantics?: Record<string, unknown>;
  /** The newer layout the holder's copy opts into (the shared pass's is the poster's or none). */
  holderStyleSchemes?: string[];
  /** A PATCH of the pass, and what the package shows of it. */
  change: (metadata: PassMetadataDto) => PassMetadataDto;
  changed: (json: PassJson, style: Structure) => void;
}

const field = (structure: Structure, key: string): Field | undefined =>
  Object.values(structure)
    .flatMap((fields) => (Array.isArray(fields) ? fields : []))
    .find((item) => item.key === key);

const CASES: Record<WalletAKindName | 'poster', KindCase> = {
  storeCard: {
    kind: WALLET_A_KINDS.storeCard,
    primaryKeys: [],
    change: (metadata) => ({ ...metadata, secondaryFields: [{ key: 'tier', value: 'Platinum' }] }),
    changed: (_json, style) => expect(field(style, 'tier')?.value).toBe('Platinum'),
  },
  coupon: {
    kind: WALLET_A_KINDS.coupon,
    primaryKeys: ['offer.title'],
    change: (metadata) => ({
      ...metadata,
      offer: { ...metadata.offer!, title: '30 % off your next visit' },
    }),
    changed: (_json, style) =>
      expect(style.primaryFields[0]).toEqual({
        key: 'offer.title',
        label: 'Brand Ltd',
        value: '30 % off your next visit',
      }),
  },
  eventTicket: {
    kind: WALLET_A_KINDS.eventTicket,
    primaryKeys: ['event.name'],
    semantics: {
      eventName: 'Summer Gala',
      eventStartDate: '2026-07-01T19:30:00+02:00',
      eventEndDate: '2026-07-01T23:00:00+02:00',
      venueName: 'Riverside Hall',
      venueLocation: { latitude: 48.8566, longitude: 2.3522 },
    },
    relevantDate: '2026-07-01T19:30:00+02:00',
    holderSemantics: {
      eventStartDate: HOLDER_DATES.relevantDate,
      seats: [{ seatSection: 'B', seatRow: '12', seatNumber: '7' }],
      venueEntranceGate: 'C',
    },
    change: (metadata) => ({ ...metadata, event: { ...metadata.event!, name: 'Winter Gala' } }),
    changed: (json, style) => {
      expect(style.primaryFields[0]).toMatchObject({ key: 'event.name', value: 'Winter Gala' });
      expect(json.semantics).toMatchObject({ eventName: 'Winter Gala' });
    },
  },
  poster: {
    kind: WALLET_A_KINDS.eventTicket,
    poster: true,
    primaryKeys: ['event.name'],
    semantics: {
      eventType: 'PKEventTypeGeneric',
      eventName: 'Summer Gala',
      venueName: 'Riverside Hall',
      venueRegionName: 'Springfield',
      venueRoom: 'Main Hall',
    },
    relevantDate: '2026-07-01T19:30:00+02:00',
    holderSemantics: { seats: [{ seatSection: 'B', seatRow: '12', seatNumber: '7' }] },
    change: (metadata) => ({ ...metadata, event: { ...metadata.event!, venueRoom: 'Garden' } }),
    changed: (json) => expect(json.semantics).toMatchObject({ venueRoom: 'Garden' }),
  },
  flight: {
    kind: WALLET_A_KINDS.flight,
    primaryKeys: ['transit.origin', 'transit.destination'],
    transitType: 'PKTransitTypeAir',
    semantics: {
      airlineCode: 'BA',
      flightCode: 'BA123',
      flightNumber: 123,
      departureAirportCode: 'LHR',
      destinationAirportCode: 'SFO',
      originalDepartureDate: '2026-05-01T08:00:00+01:00',
    },
    relevantDate: '2026-05-01T08:00:00+01:00',
    holderSemantics: { departureGate: 'B32', seats: [{ seatNumber: '14A' }] },
    change: (metadata) => ({
      ...metadata,
      transit: { ...metadata.transit!, departureTime: '2026-05-01T09:00:00+01:00' },
    }),
    changed: (json, style) => {
      expect(field(style, 'transit.departure')?.value).toBe('2026-05-01T09:00:00+01:00');
      expect(json.semantics).toMatchObject({
        originalDepartureDate: '2026-05-01T09:00:00+01:00',
      });
    },
  },
  semanticFlight: {
    kind: WALLET_A_KINDS.semanticFlight,
    primaryKeys: ['transit.origin', 'transit.destination'],
    transitType: 'PKTransitTypeAir',
    // The shared pass has no passenger: the classic boarding pass, with what it knows.
    semantics: {
      airlineCode: 'LX',
      flightCode: 'LX318',
      flightNumber: 318,
      originalBoardingDate: '2026-05-01T12:25:00+02:00',
      departureLocationTimeZone: 'Europe/Zurich',
      destinationLocationTimeZone: 'America/New_York',
    },
    relevantDate: '2026-05-01T11:05:00Z',
    holderSemantics: {
      airlineCode: 'LX',
      flightNumber: 318,
      originalDepartureDate: '2026-05-01T11:05:00Z',
      originalArrivalDate: '2026-05-01T15:55:00-04:00',
      originalBoardingDate: '2026-05-01T12:25:00+02:00',
      departureAirportCode: 'ZRH',
      destinationAirportCode: 'JFK',
      departureCityName: 'Zurich',
      destinationCityName: 'New York',
      departureLocationTimeZone: 'Europe/Zurich',
      destinationLocationTimeZone: 'America/New_York',
      departureGate: 'E44',
      destinationGate: 'B22',
      passengerName: { givenName: 'Maya', familyName: 'Rivera' },
      seats: [{ seatNumber: '3A' }],
    },
    holderStyleSchemes: ['semanticBoardingPass', 'boardingPass'],
    change: (metadata) => ({
      ...metadata,
      transit: { ...metadata.transit!, boardingTime: '2026-05-01T12:35:00+02:00' },
    }),
    changed: (json, style) => {
      expect(field(style, 'transit.boarding')?.value).toBe('2026-05-01T12:35:00+02:00');
      expect(json.semantics).toMatchObject({ originalBoardingDate: '2026-05-01T12:35:00+02:00' });
    },
  },
  train: {
    kind: WALLET_A_KINDS.train,
    primaryKeys: ['transit.origin', 'transit.destination'],
    transitType: 'PKTransitTypeTrain',
    semantics: { departureStationName: 'Frankfurt Hbf', vehicleNumber: 'ICE 512' },
    relevantDate: '2026-05-01T08:30:00+02:00',
    holderSemantics: { carNumber: '9', seats: [{ seatNumber: '55' }] },
    change: (metadata) => ({
      ...metadata,
      transit: { ...metadata.transit!, destination: { code: 'DUS', name: 'Düsseldorf Hbf' } },
    }),
    changed: (_json, style) =>
      expect(style.primaryFields[1]).toEqual({
        key: 'transit.destination',
        label: 'Düsseldorf Hbf',
        value: 'DUS',
      }),
  },
  generic: {
    kind: WALLET_A_KINDS.generic,
    primaryKeys: ['name'],
    change: (metadata) => ({ ...metadata, secondaryFields: [{ key: 'level', value: 'Chief' }] }),
    changed: (_json, style) => expect(field(style, 'level')?.value).toBe('Chief'),
  },
};

const CASE_NAMES = Object.keys(CASES) as (keyof typeof CASES)[];

describe('Every kind of pass on WalletA: create, publish, download, hold, update, notify', () => {
  let app: WalletAApp;
  let images: { fileName: string; uploadKey: string }[];
  let artwork: { fileName: string; uploadKey: string };
  let devices = 0;
  const http = () => request(app.testApp.server);
  const path = (url: string) => new URL(url).pathname;

  const download = async (url: string): Promise<PassJson> => {
    const response = await http().get(url).buffer(true).parse(binaryBody).expect(200);
    const opened = openPackage(response.body as Buffer, app.caPem());
    expect(opened.signatureVerifies).toBe(true);
    return opened.passJson;
  };
  /** The package a registered device fetches now, by serial number and its own token. */
  const latest = async (serial: string, token: string): Promise<PassJson> => {
    const response = await http()
      .get(`/passkit/v1/passes/${PASS_TYPE_ID}/${serial}`)
      .set('Authorization', `ApplePass ${token}`)
      .buffer(true)
      .parse(binaryBody)
      .expect(200);
    return openPackage(response.body as Buffer, app.caPem()).passJson;
  };
  const register = async (serial: string, token: string): Promise<string> => {
    const pushToken = deviceToken(0x700 + ++devices);
    await http()
      .post(`/passkit/v1/devices/kind-device-${devices}/registrations/${PASS_TYPE_ID}/${serial}`)
      .set('Authorization', `ApplePass ${token}`)
      .send({ pushToken })
      .expect(201);
    return pushToken;
  };

  beforeAll(async () => {
    app = await startWalletAApp({
      PUBLIC_BASE_URL: 'https://wallet.test',
      SCHEDULER_INTERVAL_MS: '200',
    });
    images = [];
    for (const fileName of ['logo.png', 'icon.png', 'strip.png']) {
      images.push({ fileName, uploadKey: await app.owner.upload(makePng(), fileName) });
    }
    const poster = makePng({ width: 358, height: 448, rgba: [20, 40, 120, 255] });
    artwork = { fileName: 'artwork.png', uploadKey: await app.owner.upload(poster, 'artwork.png') };
  });
  afterAll(() => app.close());

  describe.each(CASE_NAMES)('%s', (name) => {
    const kindCase = CASES[name];
    const { kind } = kindCase;
    let pass: PassBody;
    let holder: HolderBody;
    const tokens: { pass?: string; holder?: string } = {};
    const pushTokens: { pass?: string; holder?: string } = {};
    const uploads = () => (kindCase.poster ? [...images, artwork] : images);
    const style = (json: PassJson) => json[kind.style] as Structure;

    it('is created as a draft, published, and downloaded in its own style', async () => {
      pass = (
        await http()
          .post('/v1/wallet-pass')
          .set(app.owner.auth)
          .send({
            passName: `Kind ${name}`,
            passMetadata: kind.metadata,
            uploadInfoList: uploads(),
          })
          .expect(201)
      ).body as PassBody;
      await http().get(`/p/${pass.slug}/pass.pkpass`).expect(404);
      await http()
        .patch(`/v1/wallet-pass/${pass.id}`)
        .set(app.owner.auth)
        .send({ passName: pass.passName, passMetadata: kind.metadata, status: 'Published' })
        .expect(200);

      const json = await download(`/p/${pass.slug}/pass.pkpass`);
      tokens.pass = json.authenticationToken as string;
      expect(STYLES.filter((key) => key in json)).toEqual([kind.style]);
      const structure = style(json);
      expect(structure.transitType).toBe(kindCase.transitType);
      expect(structure.primaryFields.map((item) => item.key)).toEqual(kindCase.primaryKeys);
      expect(json.barcodes).toEqual([
        expect.objectContaining({
          format: PK_BARCODE[kind.metadata.barcodeFormat ?? 'QR'],
          message: kind.metadata.qrUrl,
        }),
      ]);
      expect(json.relevantDate).toBe(kindCase.relevantDate);
      expect(json.expirationDate).toBe(kind.metadata.expirationDate);
      if (kindCase.relevantDate === undefined) expect(json.relevantDates).toBeUndefined();
      else expect(Array.isArray(json.relevantDates)).toBe(true);
      if (kindCase.semantics === undefined) expect(json.semantics).toBeUndefined();
      else expect(json.semantics).toMatchObject(kindCase.semantics);
      expect(json.preferredStyleSchemes).toEqual(
        kindCase.poster ? ['posterEventTicket', 'eventTicket'] : undefined,
      );
      // The brand's fields keep their values; none of them is replaced by the kind's.
      for (const key of Object.keys(kind.holderValues)) {
        expect(field(structure, key)).toBeDefined();
      }
    });

    it('issues a personal holder whose package has its own values and dates', async () => {
      holder = (
        await http()
          .post(`/v1/wallet-pass/${pass.id}/holders`)
          .set(app.owner.auth)
          .send({
            externalId: `holder-${name}`,
            fieldValues: kind.holderValues,
            ...HOLDER_DATES,
            ...(kind.passengerName !== undefined ? { passengerName: kind.passengerName } : {}),
          })
          .expect(201)
      ).body as HolderBody;
      expect(holder).toMatchObject(HOLDER_DATES);

      const json = await download(`${path(holder.downloadUrl)}/pass.pkpass`);
      tokens.holder = json.authenticationToken as string;
      expect(json.serialNumber).toBe(holder.serialNumber);
      expect(STYLES.filter((key) => key in json)).toEqual([kind.style]);
      const structure = style(json);
      for (const [key, value] of Object.entries(kind.holderValues)) {
        expect(field(structure, key)?.value).toBe(value);
      }
      expect(json.relevantDate).toBe(HOLDER_DATES.relevantDate);
      expect(json.expirationDate).toBe(HOLDER_DATES.expirationDate);
      expect(json.relevantDates).toEqual([
        { date: HOLDER_DATES.relevantDate, relevantDate: HOLDER_DATES.relevantDate },
      ]);
      if (kindCase.holderSemantics) expect(json.semantics).toMatchObject(kindCase.holderSemantics);
      expect(json.preferredStyleSchemes).toEqual(
        kindCase.holderStyleSchemes ??
          (kindCase.poster ? ['posterEventTicket', 'eventTicket'] : undefined),
      );
    });

    it("pushes a PATCH of the pass to the pass's and the holder's devices, which fetch it", async () => {
      pushTokens.pass = await register(pass.id, tokens.pass!);
      pushTokens.holder = await register(holder.serialNumber, tokens.holder!);
      // Publishing queued a push of its own; let it pass before counting.
      await new Promise((resolve) => setTimeout(resolve, 500));
      app.apns.reset();
      const changed = kindCase.change(kind.metadata);
      await http()
        .patch(`/v1/wallet-pass/${pass.id}`)
        .set(app.owner.auth)
        .send({ passName: pass.passName, passMetadata: changed })
        .expect(200);
      await waitFor(
        () =>
          app.apns.pushesFor(pushTokens.pass!).length === 1 &&
          app.apns.pushesFor(pushTokens.holder!).length === 1,
        'both devices pushed',
      );
      const shared = await latest(pass.id, tokens.pass!);
      kindCase.changed(shared, style(shared));
      const own = await latest(holder.serialNumber, tokens.holder!);
      kindCase.changed(own, style(own));
      // The holder's copy keeps its own values and day through the pass's change.
      expect(own.relevantDate).toBe(HOLDER_DATES.relevantDate);
      for (const [key, value] of Object.entries(kind.holderValues)) {
        expect(field(style(own), key)?.value).toBe(value);
      }
    });

    it("shows a notification's message first on the back, with its changeMessage", async () => {
      app.apns.reset();
      const sent = await notifyAndWait(app.owner, pass.id, {
        notificationMessage: `News of the ${name}`,
      });
      expect(sent).toMatchObject({ appleNotificationSentCount: 2 });
      for (const json of [
        await latest(pass.id, tokens.pass!),
        await latest(holder.serialNumber, tokens.holder!),
      ]) {
        expect(style(json).backFields[0]).toMatchObject({
          key: 'notification',
          value: `News of the ${name}`,
          changeMessage: '%@',
        });
      }
    });
  });

  it('refuses artwork on a ticket without the venue a poster needs, and on other kinds', async () => {
    const { event } = WALLET_A_KINDS.eventTicket.metadata;
    const create = (passName: string, passMetadata: object) =>
      http()
        .post('/v1/wallet-pass')
        .set(app.owner.auth)
        .send({ passName, passMetadata, uploadInfoList: [...images, artwork] });
    const bare = { ...event, venueRegion: undefined, venueRoom: undefined };
    const ticket = await create('Poster without venue', {
      ...WALLET_A_KINDS.eventTicket.metadata,
      event: bare,
    }).expect(400);
    expect(ticket.body.context).toEqual({
      'passMetadata.event.venueRegion':
        'is required with an artwork image: Wallet shows a poster event ticket only with it',
    });
    const coupon = await create('Poster coupon', WALLET_A_KINDS.coupon.metadata).expect(400);
    expect(coupon.body.context).toEqual({
      uploadInfoList: 'artwork.png is the picture of a poster event ticket; a coupon has none',
    });
  });

  it('documents an example request of each kind, and each creates a pass of its kind', async () => {
    const docs = (await http().get('/docs-json').expect(200)).body as {
      paths: Record<
        string,
        Record<string, { requestBody: { content: Record<string, { examples?: object }> } }>
      >;
    };
    const examples = docs.paths['/v1/wallet-pass'].post.requestBody.content['application/json']
      .examples as Record<string, { value: { passName: string; passMetadata: object } }>;
    expect(Object.keys(examples)).toEqual([
      'storeCard',
      'coupon',
      'eventTicket',
      'boardingPass',
      // Flights of DESIGN.md §12.
      'flightByCarrier',
      'semanticBoardingPass',
      'generic',
    ]);
    const KIND_OF: Record<string, string> = {
      flightByCarrier: 'boardingPass',
      semanticBoardingPass: 'boardingPass',
    };
    for (const [name, { value }] of Object.entries(examples)) {
      const created = await http()
        .post('/v1/wallet-pass')
        .set(app.owner.auth)
        .send({ ...value, passName: `Example ${name}` })
        .expect(201);
      const metadata = (created.body as { passMetadata: { passType?: string } }).passMetadata;
      expect(metadata.passType ?? 'storeCard').toBe(KIND_OF[name] ?? name);
    }
    expect((examples.coupon.value.passMetadata as { barcodeFormat?: string }).barcodeFormat).toBe(
      'Code128',
    );
  });
});
