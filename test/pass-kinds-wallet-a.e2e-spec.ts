import type { PassMetadataDto } from '@app/passes';
import request from 'supertest';
import { makePng } from './support/png';
import { passBuilderIssues } from './support/pass-builder-rules';
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
  uploadInfoList: { fileName: string; uploadKey: string }[];
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
  EAN13: 'PKBarcodeFormatEAN13',
  Code39: 'PKBarcodeFormatCode39',
  Codabar: 'PKBarcodeFormatCodabar',
  ITF: 'PKBarcodeFormatI2of5',
} as const;

/** A holder's own day and end: a ticket for a given day. */
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
  /** An artwork image: the poster event ticket, or the poster generic pass. */
  poster?: 'posterEventTicket' | 'posterGeneric';
  /** The images its package holds of the one set of brand images every case uploads. */
  images: string[];
  primaryKeys: string[];
  transitType?: string;
  semantics?: Record<string, unknown>;
  relevantDate?: string;
  /** The shared pass's `relevantDates`, when the case says them exactly. */
  relevantDates?: unknown[];
  /** The identifiers of the shared pass's `upcomingPassInformation`, in order. */
  upcoming?: string[];
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

const CASES: Record<WalletAKindName | 'poster' | 'posterGeneric', KindCase> = {
  storeCard: {
    kind: WALLET_A_KINDS.storeCard,
    images: ['icon.png', 'logo.png', 'strip.png'],
    primaryKeys: [],
    change: (metadata) => ({ ...metadata, secondaryFields: [{ key: 'tier', value: 'Platinum' }] }),
    changed: (_json, style) => expect(field(style, 'tier')?.value).toBe('Platinum'),
  },
  coupon: {
    kind: WALLET_A_KINDS.coupon,
    images: ['icon.png', 'logo.png', 'strip.png'],
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
    // A strip, so no thumbnail: Apple's event ticket shows one or the other.
    images: ['icon.png', 'logo.png', 'strip.png'],
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
    poster: 'posterEventTicket',
    images: ['artwork.png', 'icon.png', 'logo.png', 'strip.png'],
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
  festival: {
    kind: WALLET_A_KINDS.festival,
    poster: 'posterEventTicket',
    images: ['artwork.png', 'icon.png', 'logo.png', 'strip.png'],
    primaryKeys: ['event.name'],
    semantics: {
      eventName: 'Riverside Festival',
      venueName: 'Riverside Park',
      eventStartDate: '2026-07-10T16:00:00+02:00',
    },
    relevantDate: '2026-07-10T16:00:00+02:00',
    relevantDates: [
      { startDate: '2026-07-10T18:00:00+02:00', endDate: '2026-07-10T23:30:00+02:00' },
      { startDate: '2026-07-11T14:00:00+02:00', endDate: '2026-07-11T18:00:00+02:00' },
      { date: '2026-07-12T20:00:00+02:00', relevantDate: '2026-07-12T20:00:00+02:00' },
    ],
    upcoming: ['day-1', 'day-2', 'day-3'],
    holderSemantics: { eventStartDate: HOLDER_DATES.relevantDate },
    change: (metadata) => ({
      ...metadata,
      event: {
        ...metadata.event!,
        upcoming: [
          ...metadata.event!.upcoming!.slice(0, 2),
          {
            identifier: 'day-3',
            name: 'Closing fireworks',
            startTime: '2026-07-12T22:00:00+02:00',
            endTime: '2026-07-12T22:30:00+02:00',
          },
        ],
      },
    }),
    changed: (json) => {
      const entries = json.upcomingPassInformation as Record<string, unknown>[] | undefined;
      // A holder's own day has no upcoming events; the shared pass has the new third one.
      if (entries === undefined) return;
      expect(entries[2]).toMatchObject({
        identifier: 'day-3',
        name: 'Closing fireworks',
        dateInformation: { date: '2026-07-12T22:00:00+02:00' },
      });
      expect((json.relevantDates as unknown[])[2]).toEqual({
        startDate: '2026-07-12T22:00:00+02:00',
        endDate: '2026-07-12T22:30:00+02:00',
      });
    },
  },
  flight: {
    kind: WALLET_A_KINDS.flight,
    // A footer and no strip: Apple's boarding pass shows no strip.
    images: ['footer.png', 'icon.png', 'logo.png'],
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
    images: ['footer.png', 'icon.png', 'logo.png'],
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
    images: ['footer.png', 'icon.png', 'logo.png'],
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
    images: ['icon.png', 'logo.png', 'thumbnail.png'],
    primaryKeys: ['name'],
    change: (metadata) => ({ ...metadata, secondaryFields: [{ key: 'level', value: 'Chief' }] }),
    changed: (_json, style) => expect(field(style, 'level')?.value).toBe('Chief'),
  },
  posterGeneric: {
    kind: WALLET_A_KINDS.generic,
    poster: 'posterGeneric',
    images: ['artwork.png', 'icon.png', 'logo.png', 'thumbnail.png'],
    primaryKeys: ['name'],
    change: (metadata) => ({ ...metadata, secondaryFields: [{ key: 'level', value: 'Chief' }] }),
    changed: (json, style) => {
      expect(field(style, 'level')?.value).toBe('Chief');
      expect(field(json.posterGeneric as Structure, 'level')?.value).toBe('Chief');
    },
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

  const openDownload = async (url: string) => {
    const response = await http().get(url).buffer(true).parse(binaryBody).expect(200);
    const opened = openPackage(response.body as Buffer, app.caPem());
    expect(opened.signatureVerifies).toBe(true);
    // Apple's own rules, as its Pass Builder checks them: 0 errors, 0 warnings.
    expect(passBuilderIssues(opened.files)).toEqual([]);
    return opened;
  };
  const download = async (url: string): Promise<PassJson> => (await openDownload(url)).passJson;
  /**
   * The images of a package, sorted, by their @1x names: each is there at @1x, @2x and @3x
   * (uploaded as `name.png`, at @3x, and the smaller scales made from it).
   */
  const imagesOf = (files: Record<string, Buffer>) => {
    const names = Object.keys(files).filter((name) => name.endsWith('.png'));
    const images = names.filter((name) => !/@[23]x\.png$/.test(name)).sort();
    expect(names.sort()).toEqual(
      images
        .flatMap((name) => [name, name.replace('.png', '@2x.png'), name.replace('.png', '@3x.png')])
        .sort(),
    );
    return images;
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
    // One set of brand images for every kind: each package holds what its style shows.
    images = [];
    for (const fileName of ['logo.png', 'icon.png', 'strip.png', 'footer.png', 'thumbnail.png']) {
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

      const opened = await openDownload(`/p/${pass.slug}/pass.pkpass`);
      expect(imagesOf(opened.files)).toEqual(kindCase.images);
      const json = opened.passJson;
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
      if (kindCase.relevantDates) expect(json.relevantDates).toEqual(kindCase.relevantDates);
      expect(
        (json.upcomingPassInformation as { identifier: string }[] | undefined)?.map(
          (entry) => entry.identifier,
        ),
      ).toEqual(kindCase.upcoming);
      if (kindCase.semantics === undefined) expect(json.semantics).toBeUndefined();
      else expect(json.semantics).toMatchObject(kindCase.semantics);
      expect(json.preferredStyleSchemes).toEqual(
        kindCase.poster === 'posterEventTicket' ? ['posterEventTicket', 'eventTicket'] : undefined,
      );
      // The poster generic pass is a style dictionary beside the generic one (iOS 27).
      expect(json.posterGeneric !== undefined).toBe(kindCase.poster === 'posterGeneric');
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

      const opened = await openDownload(`${path(holder.downloadUrl)}/pass.pkpass`);
      expect(imagesOf(opened.files)).toEqual(kindCase.images);
      const json = opened.passJson;
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
      // A holder's own day is a ticket for that day, not for the pass's upcoming events.
      expect(json.upcomingPassInformation).toBeUndefined();
      if (kindCase.holderSemantics) expect(json.semantics).toMatchObject(kindCase.holderSemantics);
      if (kindCase.poster === 'posterGeneric') {
        const poster = json.posterGeneric as Structure;
        for (const [key, value] of Object.entries(kind.holderValues)) {
          expect(field(poster, key)?.value).toBe(value);
        }
      }
      expect(json.preferredStyleSchemes).toEqual(
        kindCase.holderStyleSchemes ??
          (kindCase.poster === 'posterEventTicket'
            ? ['posterEventTicket', 'eventTicket']
            : undefined),
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
        const structures = [style(json), ...(json.posterGeneric ? [json.posterGeneric] : [])];
        for (const structure of structures as Structure[]) {
          expect(structure.backFields[0]).toMatchObject({
            key: 'notification',
            value: `News of the ${name}`,
            changeMessage: '%@',
          });
        }
      }
    });
  });

  it('refuses artwork on a ticket without the venue and NFC a poster needs, and leaves it out of a coupon', async () => {
    const { event } = WALLET_A_KINDS.eventTicket.metadata;
    const create = (passName: string, passMetadata: object) =>
      http()
        .post('/v1/wallet-pass')
        .set(app.owner.auth)
        .send({
          passName,
          passMetadata,
          uploadInfoList: [...images, artwork],
          status: 'Published',
        });
    const bare = { ...event, venueRegion: undefined, venueRoom: undefined };
    const ticket = await create('Poster without venue', {
      ...WALLET_A_KINDS.eventTicket.metadata,
      event: bare,
    }).expect(400);
    expect(ticket.body.context).toEqual({
      'passMetadata.event.venueRegion':
        'is required with an artwork image: Wallet shows a poster event ticket only with it',
      'passMetadata.event.venueRoom':
        'is required with an artwork image: Wallet shows a poster event ticket only with it',
    });
    // Nor without NFC: Apple's Pass Builder refuses a poster event ticket without it.
    const { nfc, ...withoutNfc } = WALLET_A_KINDS.eventTicket.metadata;
    expect(nfc).toBeDefined();
    const noNfc = await create('Poster without NFC', withoutNfc).expect(400);
    expect(noNfc.body.context).toEqual({
      'passMetadata.nfc':
        'is required with an artwork image: Wallet shows a poster event ticket only to a pass ' +
        'that terminals can read over NFC',
    });
    // Without artwork the same ticket is the classic one, and needs no NFC.
    await http()
      .post('/v1/wallet-pass')
      .set(app.owner.auth)
      .send({
        passName: 'Classic without NFC',
        passMetadata: withoutNfc,
        uploadInfoList: images,
        status: 'Published',
      })
      .expect(201);
    // A coupon has no poster: its artwork is one more brand image, accepted and left out.
    const coupon = (await create('Poster coupon', WALLET_A_KINDS.coupon.metadata).expect(201))
      .body as PassBody;
    expect(coupon.uploadInfoList.map((image) => image.fileName)).toContain('artwork.png');
    const opened = await openDownload(`/p/${coupon.slug}/pass.pkpass`);
    expect(imagesOf(opened.files)).toEqual(['icon.png', 'logo.png', 'strip.png']);
    expect(opened.passJson.preferredStyleSchemes).toBeUndefined();
    expect(opened.passJson.posterGeneric).toBeUndefined();
  });

  describe('images by kind', () => {
    const basics = () =>
      images.filter((image) => ['logo.png', 'icon.png'].includes(image.fileName));
    const upload = async (fileName: string) => ({
      fileName,
      uploadKey: await app.owner.upload(makePng(), fileName),
    });
    const publish = (passName: string, passMetadata: object, uploadInfoList: object[]) =>
      http()
        .post('/v1/wallet-pass')
        .set(app.owner.auth)
        .send({ passName, passMetadata, uploadInfoList, status: 'Published' });

    it.each([
      ['storeCard', 'a Published storeCard needs logo.png, icon.png and strip.png'],
      ['coupon', 'a Published coupon needs logo.png, icon.png and strip.png'],
      [
        'eventTicket',
        'a Published eventTicket needs logo.png, icon.png and strip.png (or background.png)',
      ],
    ] as const)('refuses a Published %s without the strip its style shows', async (name, needs) => {
      const response = await publish(
        `No strip ${name}`,
        WALLET_A_KINDS[name].metadata,
        basics(),
      ).expect(400);
      expect(response.body.context).toEqual({ uploadInfoList: `${needs} (missing strip.png)` });
    });

    it.each(['flight', 'train', 'generic'] as const)(
      'publishes a %s without a strip, which its style never shows',
      async (name) => {
        const created = (
          await publish(`No strip ${name}`, WALLET_A_KINDS[name].metadata, basics()).expect(201)
        ).body as PassBody;
        const opened = await openDownload(`/p/${created.slug}/pass.pkpass`);
        expect(imagesOf(opened.files)).toEqual(['icon.png', 'logo.png']);
      },
    );

    it('publishes an event ticket with a background without a strip, and shows no strip with one', async () => {
      const background = await upload('background.png');
      const withoutStrip = (
        await publish('Background ticket', WALLET_A_KINDS.eventTicket.metadata, [
          ...basics(),
          background,
        ]).expect(201)
      ).body as PassBody;
      expect(imagesOf((await openDownload(`/p/${withoutStrip.slug}/pass.pkpass`)).files)).toEqual([
        'background.png',
        'icon.png',
        'logo.png',
      ]);
      // Given both, the ticket shows its background and thumbnail: Apple's event ticket shows
      // a strip, or a background and a thumbnail, never both.
      const both = (
        await publish('Background and strip ticket', WALLET_A_KINDS.eventTicket.metadata, [
          ...images,
          background,
        ]).expect(201)
      ).body as PassBody;
      expect(imagesOf((await openDownload(`/p/${both.slug}/pass.pkpass`)).files)).toEqual([
        'background.png',
        'icon.png',
        'logo.png',
        'thumbnail.png',
      ]);
    });

    it('leaves the strip out of a boarding pass with one, at every scale', async () => {
      const strip2x = await upload('strip@2x.png');
      const created = (
        await publish('Boarding with strip', WALLET_A_KINDS.flight.metadata, [
          ...images,
          strip2x,
        ]).expect(201)
      ).body as PassBody;
      const opened = await openDownload(`/p/${created.slug}/pass.pkpass`);
      expect(Object.keys(opened.manifest).some((name) => name.startsWith('strip'))).toBe(false);
      expect(imagesOf(opened.files)).toEqual(['footer.png', 'icon.png', 'logo.png']);
    });
  });

  describe('featured actions (iOS 27)', () => {
    const ACTIONS = [
      { type: 'membershipBenefits', url: 'https://brand.example/benefits' },
      { type: 'viewOffersRewards', url: 'https://brand.example/offers' },
    ];
    const create = (featuredActions: unknown) =>
      http()
        .post('/v1/wallet-pass')
        .set(app.owner.auth)
        .send({
          passName: `Actions ${JSON.stringify(featuredActions).length}-${Math.random()}`,
          passMetadata: { ...WALLET_A_KINDS.storeCard.metadata, featuredActions },
          uploadInfoList: images,
          status: 'Published',
        });

    it('writes up to two, in order, as Apple describes them: identifier, type, url', async () => {
      const created = (await create(ACTIONS).expect(201)).body as PassBody & {
        passMetadata: { featuredActions: unknown };
      };
      expect(created.passMetadata.featuredActions).toEqual(ACTIONS);
      const json = await download(`/p/${created.slug}/pass.pkpass`);
      expect(json.featuredActions).toEqual(
        ACTIONS.map((action) => ({ identifier: action.type, ...action })),
      );
    });

    it('refuses a third action, a type twice, an unknown type and a link that is no URL', async () => {
      const more = await create([
        ...ACTIONS,
        { type: 'shop', url: 'https://brand.example/shop' },
      ]).expect(400);
      expect(Object.keys(more.body.context as object)).toEqual(['passMetadata.featuredActions']);
      const twice = await create([ACTIONS[0], { ...ACTIONS[0], url: 'https://b.example' }]).expect(
        400,
      );
      expect(twice.body.context).toEqual({
        'passMetadata.featuredActions[1].type': 'is the type of another featured action',
      });
      // `call` and `place`: Apple does not say what their value is, so the API takes neither.
      for (const type of ['call', 'place', 'openURL']) {
        const unknown = await create([{ type, url: 'https://brand.example' }]).expect(400);
        expect(Object.keys(unknown.body.context as object)).toEqual([
          'passMetadata.featuredActions[0].type',
        ]);
      }
      const notUrl = await create([{ type: 'shop', url: 'shop' }]).expect(400);
      expect(notUrl.body.context).toEqual({
        'passMetadata.featuredActions[0].url': 'must be an http(s) URL',
      });
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
    // One of each kind (the festival is an event ticket, the flights boarding
    // passes), then one of each iOS 27 barcode format.
    const kinds: Record<string, string> = {
      storeCard: 'storeCard',
      coupon: 'coupon',
      eventTicket: 'eventTicket',
      festival: 'eventTicket',
      boardingPass: 'boardingPass',
      flightByCarrier: 'boardingPass',
      semanticBoardingPass: 'boardingPass',
      generic: 'generic',
    };
    const barcodeExamples = { ean13: 'EAN13', code39: 'Code39', codabar: 'Codabar', itf: 'ITF' };
    expect(Object.keys(examples)).toEqual([...Object.keys(kinds), ...Object.keys(barcodeExamples)]);
    for (const [name, { value }] of Object.entries(examples)) {
      const created = await http()
        .post('/v1/wallet-pass')
        .set(app.owner.auth)
        .send({ ...value, passName: `Example ${name}` })
        .expect(201);
      const metadata = (
        created.body as { passMetadata: { passType?: string; barcodeFormat?: string } }
      ).passMetadata;
      if (name in barcodeExamples) {
        expect(metadata.barcodeFormat).toBe(barcodeExamples[name as keyof typeof barcodeExamples]);
      } else {
        expect(metadata.passType ?? 'storeCard').toBe(kinds[name]);
      }
    }
    const festival = examples.festival.value.passMetadata as {
      event: { upcoming: { identifier: string }[] };
    };
    expect(festival.event.upcoming.map((event) => event.identifier)).toEqual([
      'day-1',
      'day-2',
      'day-3',
    ]);
    expect((examples.coupon.value.passMetadata as { barcodeFormat?: string }).barcodeFormat).toBe(
      'Code128',
    );
  });
});
