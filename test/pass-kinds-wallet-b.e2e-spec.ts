import { WalletBClassTypes1764090000000 } from '@app/core/database/migrations/1764090000000-wallet-b-class-types';
import { Pass } from '@app/passes';
import { GOOGLE_SAVE_URL_PREFIX, WalletBClass } from '@app/wallet-b';
import request from 'supertest';
import { DataSource } from 'typeorm';
import {
  classProblems,
  GoogleWalletFake,
  objectProblems,
  verifyRs256Jwt,
  type FakeClassType,
} from './fakes/google-wallet-fake';
import {
  KIND_FIXTURES,
  KIND_NAMES,
  type KindClassType,
  type KindName,
} from './support/pass-kind-fixtures';
import { makePng } from './support/png';
import { OwnerSession } from './support/session';
import { startTestApp, type TestApp } from './support/test-app';
import { TEST_DB } from './support/test-database';
import { notifyAndWait, waitFor } from './support/walleta-env';
import { SCHEMAS, typeCheckPayloads, type Payload } from './support/walletobjects-typecheck';

const ISSUER_ID = '3388000000044445555';

type Resource = Record<string, unknown> & { id: string };
const en = (value: string) => ({ defaultValue: { language: 'en', value } });

/**
 * What each kind's class, shared object and personal holder's object must carry at Google
 * (besides what the fake requires of every resource of the type), and the holder's values.
 */
const EXPECTED: Record<
  KindName,
  {
    barcode: string;
    classHas: Record<string, unknown>;
    objectHas: Record<string, unknown>;
    holderValues: Record<string, string>;
    /** A boarding pass holder's passenger. */
    passengerName?: { givenName: string; familyName: string };
    holderHas: Record<string, unknown>;
  }
> = {
  storeCard: {
    barcode: 'QR_CODE',
    classHas: {
      issuerName: 'Brand Ltd',
      programName: 'storeCard pass',
      programLogo: { sourceUri: { uri: expect.stringContaining('logo.png') } },
      reviewStatus: 'UNDER_REVIEW',
      hexBackgroundColor: '#102030',
    },
    objectHas: {},
    holderValues: { points: '250', name: 'Maya Rivera' },
    holderHas: {},
  },
  coupon: {
    barcode: 'CODE_128',
    classHas: {
      issuerName: 'Brand Ltd',
      title: '20 % off your next visit',
      provider: 'Brand Ltd',
      redemptionChannel: 'BOTH',
      finePrint: 'One per customer.',
      reviewStatus: 'UNDER_REVIEW',
    },
    objectHas: {},
    holderValues: { code: 'MAYA20' },
    holderHas: {},
  },
  eventTicket: {
    barcode: 'QR_CODE',
    classHas: {
      issuerName: 'Brand Ltd',
      eventName: en('Summer Gala'),
      venue: { name: en('Riverside Hall'), address: en('1 River Street, Springfield') },
      dateTime: {
        doorsOpen: '2026-07-01T18:30:00+02:00',
        start: '2026-07-01T19:30:00+02:00',
        end: '2026-07-01T23:00:00+02:00',
      },
      logo: { sourceUri: { uri: expect.stringContaining('logo.png') } },
    },
    objectHas: { seatInfo: { section: en('Floor'), row: en('-'), seat: en('-'), gate: en('A') } },
    holderValues: { seat: '12', row: 'F' },
    holderHas: { seatInfo: { section: en('Floor'), row: en('F'), seat: en('12'), gate: en('A') } },
  },
  festival: {
    barcode: 'QR_CODE',
    classHas: {
      eventName: en('Riverside Festival'),
      venue: { name: en('Riverside Park'), address: en('1 Park Road, Springfield') },
      // Every event is past by now: the ticket is dated by its last one.
      dateTime: { start: '2026-07-12T20:00:00+02:00' },
      textModulesData: expect.arrayContaining([
        {
          id: 'event.upcoming.0',
          header: 'Opening night',
          body: 'Fri 10 July 2026, 18:00–23:30\nMain Stage',
        },
        {
          id: 'event.upcoming.1',
          header: 'Jazz afternoon',
          body: 'Sat 11 July 2026, 14:00–18:00\nRiverside Park',
        },
        {
          id: 'event.upcoming.2',
          header: 'Closing concert',
          body: 'Sun 12 July 2026, 20:00\nRiverside Park',
        },
      ]),
    },
    objectHas: {},
    holderValues: { pass: 'Day' },
    holderHas: {},
  },
  flight: {
    barcode: 'PDF_417',
    classHas: {
      issuerName: 'Brand Ltd',
      flightHeader: {
        carrier: { carrierIataCode: 'BA', airlineName: en('Brand Air') },
        flightNumber: '123',
      },
      origin: { airportIataCode: 'LHR', airportNameOverride: en('London Heathrow') },
      destination: { airportIataCode: 'SFO', airportNameOverride: en('San Francisco') },
      localScheduledDepartureDateTime: '2026-05-01T08:00:00',
      localScheduledArrivalDateTime: '2026-05-01T11:10:00',
    },
    objectHas: { passengerName: 'Guest', reservationInfo: { confirmationCode: 'ABC123' } },
    holderValues: { passenger: 'RIVERA/MAYA', seat: '12C' },
    holderHas: {
      passengerName: 'RIVERA/MAYA',
      boardingAndSeatingInfo: { seatNumber: '12C', boardingGroup: '1' },
    },
  },
  semanticFlight: {
    barcode: 'PDF_417',
    classHas: {
      // By carrier and number; its times at each airport's clock, whatever offset they have.
      flightHeader: { carrier: { carrierIataCode: 'LX' }, flightNumber: '318' },
      localBoardingDateTime: '2026-05-01T12:25:00',
      localScheduledDepartureDateTime: '2026-05-01T13:05:00',
      localScheduledArrivalDateTime: '2026-05-01T15:55:00',
    },
    objectHas: { passengerName: 'semanticFlight pass' },
    holderValues: { seat: '3A' },
    passengerName: { givenName: 'Maya', familyName: 'Rivera' },
    holderHas: {
      passengerName: 'Maya Rivera',
      boardingAndSeatingInfo: { seatNumber: '3A', boardingGroup: '2' },
    },
  },
  transit: {
    barcode: 'AZTEC',
    classHas: {
      issuerName: 'Brand Ltd',
      transitType: 'BUS',
      transitOperatorName: en('Brand Shuttle'),
      logo: { sourceUri: { uri: expect.stringContaining('logo.png') } },
    },
    objectHas: {
      tripType: 'ONE_WAY',
      ticketLeg: expect.objectContaining({
        originStationCode: 'AIR',
        destinationName: en('City centre'),
        departureDateTime: '2026-05-01T09:00:00+01:00',
      }),
    },
    holderValues: { passenger: 'Maya Rivera', seat: '4A' },
    holderHas: {
      passengerNames: 'Maya Rivera',
      ticketLeg: expect.objectContaining({ ticketSeat: { seat: '4A' } }),
    },
  },
  generic: {
    barcode: 'QR_CODE',
    classHas: {},
    objectHas: {
      cardTitle: en('Brand Ltd'),
      header: en('generic pass'),
      hexBackgroundColor: '#102030',
    },
    holderValues: { level: 'Gold' },
    holderHas: { header: en('generic pass') },
  },
};

interface PassBody {
  id: string;
  slug: string;
  status: string;
  googleSaveUrl: string | null;
  googleActiveCount: number;
}

interface HolderBody {
  id: string;
  serialNumber: string;
  downloadUrl: string;
  googleSaveUrl: string | null;
  googleInstalledCount: number;
}

describe(`WalletB for every kind of pass (${TEST_DB})`, () => {
  let fake: GoogleWalletFake;
  let testApp: TestApp;
  let owner: OwnerSession;
  let images: { fileName: string; uploadKey: string }[];
  /** Every save link's payload, for the type check at the end. */
  const saveLinkPayloads: Payload[] = [];

  const http = () => request(testApp.server);
  const dataSource = () => testApp.app.get(DataSource);
  const getPass = async (id: string) =>
    (await http().get(`/v1/wallet-pass/${id}`).set(owner.auth).expect(200)).body as PassBody;
  const createPass = async (passName: string, passMetadata: object, status = 'Published') =>
    (
      await http()
        .post('/v1/wallet-pass')
        .set(owner.auth)
        .send({ passName, passMetadata, status, uploadInfoList: images })
        .expect(201)
    ).body as PassBody;
  /** The save link's JWT payload: `{<type>Objects: [object]}`. */
  const payloadOf = (url: string, name: string): Record<string, Resource[]> => {
    expect(url.startsWith(GOOGLE_SAVE_URL_PREFIX)).toBe(true);
    const payload = verifyRs256Jwt(url.slice(GOOGLE_SAVE_URL_PREFIX.length), fake.publicKey).claims
      .payload as Record<string, Resource[]>;
    saveLinkPayloads.push({ name, schema: 'Resources', value: payload });
    return payload;
  };
  const holderLink = async (holder: HolderBody) => {
    const redirect = await http().get(new URL(holder.googleSaveUrl!).pathname).expect(302);
    return String(redirect.headers.location);
  };
  const callback = (eventType: 'save' | 'del', classId: string, objectId: string) =>
    http()
      .post('/callbacks/wallet-b')
      .send(fake.callbackSigner.build({ classId, objectId, eventType }, { recipientId: ISSUER_ID }))
      .expect(200);
  const stored = (type: FakeClassType, objectId: string) => fake.objectsOf(type).get(objectId);

  beforeAll(async () => {
    fake = await GoogleWalletFake.start({ issuerId: ISSUER_ID });
    testApp = await startTestApp({
      PUBLIC_BASE_URL: 'https://wallet.test',
      ...fake.serviceEnv(),
      SCHEDULER_INTERVAL_MS: '200',
    });
    owner = await OwnerSession.start(testApp.server);
    images = [];
    for (const fileName of ['logo.png', 'icon.png', 'strip.png']) {
      images.push({ fileName, uploadKey: await owner.upload(makePng(), fileName) });
    }
  });
  afterAll(async () => {
    await testApp.close();
    await fake.close();
  });

  // First: it runs the migration again over the passes there are, which must be this one only.
  it('keeps a pass Published before class types a generic class, and its kind (409)', async () => {
    const storeCard = KIND_FIXTURES.storeCard.metadata;
    const legacy = await createPass('legacy pass', storeCard, 'Draft');
    // Published before the migration: no class type recorded, a generic class at Google.
    await dataSource().getRepository(Pass).update({ id: legacy.id }, { status: 'Published' });
    const migration = new WalletBClassTypes1764090000000();
    const runner = dataSource().createQueryRunner();
    try {
      await migration.down(runner);
      await migration.up(runner);
    } finally {
      await runner.release();
    }
    expect(
      await dataSource().getRepository(WalletBClass).findBy({ passId: legacy.id }),
    ).toMatchObject([{ classType: 'generic' }]);

    const classId = `${ISSUER_ID}.${legacy.id}`;
    await http()
      .patch(`/v1/wallet-pass/${legacy.id}`)
      .set(owner.auth)
      .send({ passName: 'legacy pass, renamed', passMetadata: storeCard })
      .expect(200);
    await waitFor(() => fake.classesOf('generic').has(classId), 'the generic class');
    expect(fake.classTypeOf(classId)).toBe('generic');
    const payload = payloadOf((await getPass(legacy.id)).googleSaveUrl!, 'legacy save link');
    expect(Object.keys(payload)).toEqual(['genericObjects']);
    expect(payload.genericObjects[0]).toMatchObject({
      classId,
      cardTitle: en('Brand Ltd'),
      header: en('legacy pass, renamed'),
    });
    await notifyAndWait(owner, legacy.id, { notificationMessage: 'Still generic' });
    expect(
      fake.callsTo('POST', `/walletobjects/v1/genericClass/${classId}/addMessage`),
    ).toHaveLength(1);

    // Its kind cannot change now that it is Published, so neither can its class type.
    await http()
      .patch(`/v1/wallet-pass/${legacy.id}`)
      .set(owner.auth)
      .send({ passName: 'legacy pass', passMetadata: KIND_FIXTURES.coupon.metadata })
      .expect(409);
    expect(
      await dataSource().getRepository(WalletBClass).findOneBy({ passId: legacy.id }),
    ).toMatchObject({ classType: 'generic' });
  });

  it.each(KIND_NAMES)(
    'issues a %s pass as its own class type: class, save link, sync, messages, holders',
    async (name) => {
      const fixture = KIND_FIXTURES[name];
      const type: KindClassType = fixture.classType;
      const expected = EXPECTED[name];
      const pass = await createPass(`${name} pass`, fixture.metadata);
      const classId = `${ISSUER_ID}.${pass.id}`;

      // The class, in its type's collection, with what the type requires filled from the pass.
      await waitFor(() => fake.classesOf(type).has(classId), `the ${type} class`);
      expect(fake.classTypeOf(classId)).toBe(type);
      const created = fake.classesOf(type).get(classId)!;
      expect(classProblems(type, created)).toEqual([]);
      expect(created).toMatchObject(expected.classHas);
      expect(fake.callsTo('POST', `/walletobjects/v1/${type}Class`)).not.toHaveLength(0);

      // The pass's save link: an object of the type under the type's payload key.
      const payload = payloadOf((await getPass(pass.id)).googleSaveUrl!, `${name} save link`);
      expect(Object.keys(payload)).toEqual([`${type}Objects`]);
      const object = payload[`${type}Objects`][0];
      expect(object).toMatchObject({
        classId,
        state: 'ACTIVE',
        barcode: { type: expected.barcode, value: fixture.metadata.qrUrl },
        ...expected.objectHas,
      });
      // The pass's expirationDate ends the object's validity.
      const expires = (fixture.metadata as { expirationDate?: string }).expirationDate;
      expect(object.validTimeInterval).toEqual(
        expires !== undefined ? { end: { date: expires } } : undefined,
      );
      expect(objectProblems(type, object)).toEqual([]);
      expect(fake.saveFromLink(payload)).toBe(type);
      await callback('save', classId, object.id);
      expect((await getPass(pass.id)).googleActiveCount).toBe(1);

      // A change of the pass patches its class and its objects, in the type's collections.
      const expirationDate = '2028-01-31T00:00:00+01:00';
      await http()
        .patch(`/v1/wallet-pass/${pass.id}`)
        .set(owner.auth)
        .send({
          passName: `${name} pass`,
          passMetadata: { ...fixture.metadata, description: 'Changed', expirationDate },
        })
        .expect(200);
      await waitFor(
        () =>
          (stored(type, object.id)?.validTimeInterval as { end?: { date?: string } } | undefined)
            ?.end?.date === expirationDate,
        `the ${type} object's new validity`,
      );
      expect(fake.callsTo('PATCH', `/walletobjects/v1/${type}Class/${classId}`)).not.toHaveLength(
        0,
      );
      expect(fake.objectsOf(type).get(object.id)).toMatchObject(expected.objectHas);

      // A notification is a message of the class.
      const everyone = await notifyAndWait(owner, pass.id, {
        notificationMessage: `News for ${name}`,
      });
      expect(everyone.googleNotificationSentCount).toBe(1);
      expect(fake.classesOf(type).get(classId)!.messages).toContainEqual(
        expect.objectContaining({ id: everyone.id, body: `News for ${name}` }),
      );

      // A personal holder: its own object, values, validity, messages, and expiry.
      const holder = (
        await http()
          .post(`/v1/wallet-pass/${pass.id}/holders`)
          .set(owner.auth)
          .send({
            externalId: `maya-${name}`,
            fieldValues: expected.holderValues,
            ...(expected.passengerName ? { passengerName: expected.passengerName } : {}),
            barcodeValue: `HOLDER-${name}`,
            expirationDate: '2026-12-31T23:00:00+01:00',
          })
          .expect(201)
      ).body as HolderBody;
      const holderObjectId = `${ISSUER_ID}.${holder.serialNumber}`;
      const holderPayload = payloadOf(await holderLink(holder), `${name} holder's save link`);
      const holderObject = holderPayload[`${type}Objects`][0];
      expect(holderObject).toMatchObject({
        id: holderObjectId,
        classId,
        barcode: { type: expected.barcode, value: `HOLDER-${name}` },
        validTimeInterval: { end: { date: '2026-12-31T23:00:00+01:00' } },
        textModulesData: expect.arrayContaining(
          Object.entries(expected.holderValues).map(([key, value]) =>
            expect.objectContaining({ id: key, body: value }),
          ),
        ),
        ...expected.holderHas,
      });
      fake.saveFromLink(holderPayload);
      await callback('save', classId, holderObjectId);
      await waitFor(
        async () =>
          (
            (
              await http()
                .get(`/v1/wallet-pass/${pass.id}/holders/${holder.id}`)
                .set(owner.auth)
                .expect(200)
            ).body as HolderBody
          ).googleInstalledCount === 1,
        "the holder's save",
      );

      const [key] = Object.keys(expected.holderValues);
      await http()
        .patch(`/v1/wallet-pass/${pass.id}/holders/${holder.id}`)
        .set(owner.auth)
        .send({ fieldValues: { [key]: 'Changed' } })
        .expect(200);
      await waitFor(
        () => JSON.stringify(stored(type, holderObjectId)?.textModulesData).includes('"Changed"'),
        "the holder's object to show its new value",
      );
      expect(
        fake.callsTo('PATCH', `/walletobjects/v1/${type}Object/${holderObjectId}`),
      ).not.toHaveLength(0);

      const targeted = await notifyAndWait(owner, pass.id, {
        notificationMessage: `Just for Maya (${name})`,
        holderIds: [holder.id],
      });
      expect(targeted.googleNotificationSentCount).toBe(1);
      expect(stored(type, holderObjectId)!.messages).toContainEqual(
        expect.objectContaining({ id: targeted.id }),
      );
      expect(
        fake.callsTo('POST', `/walletobjects/v1/${type}Object/${holderObjectId}/addMessage`),
      ).toHaveLength(1);

      await http()
        .delete(`/v1/wallet-pass/${pass.id}/holders/${holder.id}`)
        .set(owner.auth)
        .expect(204);
      await waitFor(
        () => stored(type, holderObjectId)?.state === 'EXPIRED',
        "the voided holder's object to expire",
      );
      expect(stored(type, object.id)!.state).toBe('ACTIVE');
    },
  );

  it("dates a season ticket's class by its next event, and again when the pass changes", async () => {
    const season = (upcoming: object[]) => ({
      ...KIND_FIXTURES.festival.metadata,
      event: { ...KIND_FIXTURES.festival.metadata.event, upcoming },
    });
    const past = { identifier: 'game-1', name: 'Opening game', startTime: '2020-03-14T15:00:00Z' };
    const next = {
      identifier: 'game-2',
      name: 'Derby',
      startTime: '2099-04-04T18:30:00+02:00',
      endTime: '2099-04-04T20:30:00+02:00',
    };
    const later = { identifier: 'game-3', name: 'Final', startTime: '2099-05-30T20:00:00+02:00' };
    // Not in date order: the next event is the earliest of those not yet past.
    const pass = await createPass('Season ticket', season([past, later, next]));
    const classId = `${ISSUER_ID}.${pass.id}`;
    const dateTime = () =>
      fake.classesOf('eventTicket').get(classId)?.dateTime as Record<string, string> | undefined;
    await waitFor(() => dateTime() !== undefined, 'the season ticket class');
    expect(dateTime()).toEqual({ start: next.startTime, end: next.endTime });

    // The derby is called off: the class is dated by the final.
    await http()
      .patch(`/v1/wallet-pass/${pass.id}`)
      .set(owner.auth)
      .send({ passName: 'Season ticket', passMetadata: season([past, later]) })
      .expect(200);
    await waitFor(() => dateTime()?.start === later.startTime, 'the class dated by the final');
    expect(dateTime()).toEqual({ start: later.startTime });
    const modules = fake.classesOf('eventTicket').get(classId)!.textModulesData as {
      id: string;
    }[];
    expect(modules.map((module) => module.id)).toEqual([
      'pass',
      'event.upcoming.0',
      'event.upcoming.1',
    ]);
  });

  it('refuses an air trip Google could not fly: no flight number, no airport code', async () => {
    const metadata = KIND_FIXTURES.flight.metadata;
    const refused = await http()
      .post('/v1/wallet-pass')
      .set(owner.auth)
      .send({
        passName: 'No flight number',
        passMetadata: { ...metadata, transit: { ...metadata.transit, number: 'Shuttle' } },
        status: 'Published',
        uploadInfoList: images,
      })
      .expect(400);
    expect(JSON.stringify(refused.body)).toContain('passMetadata.transit.number');
  });

  it.each([
    ['EAN13', '4006381333931', undefined, 'EAN_13'],
    ['Code39', 'STAFF-0042', undefined, 'CODE_39'],
    ['Codabar', 'A40156B', 'Code128', 'CODABAR'],
    ['ITF', '15400141288763', undefined, 'ITF_14'],
    // An ITF value that is no GTIN-14: Google gets the fallback's type.
    ['ITF', '1234567890', 'Code128', 'CODE_128'],
    ['ITF', '12345678', undefined, 'QR_CODE'],
  ])(
    'sends an iOS 27 %s barcode of %s as Google names it, or in the fallback',
    async (barcodeFormat, qrUrl, barcodeFallbackFormat, type) => {
      const fixture = KIND_FIXTURES.generic;
      const pass = await createPass(`${barcodeFormat} ${qrUrl}`, {
        ...fixture.metadata,
        barcodeFormat,
        ...(barcodeFallbackFormat ? { barcodeFallbackFormat } : {}),
        qrUrl,
      });
      const payload = payloadOf((await getPass(pass.id)).googleSaveUrl!, `${barcodeFormat} link`);
      const object = payload[`${fixture.classType}Objects`][0];
      expect(object.barcode).toEqual({ type, value: qrUrl });
      expect(objectProblems(fixture.classType, object)).toEqual([]);
      // The fake would have refused a fixed-length type of another length.
      expect(
        objectProblems(fixture.classType, { ...object, barcode: { type: 'ITF_14', value: '12' } }),
      ).toEqual([expect.stringContaining("Invalid value at 'barcode.value'")]);
      // A holder's own value, in the same rule.
      const holder = (
        await http()
          .post(`/v1/wallet-pass/${pass.id}/holders`)
          .set(owner.auth)
          .send({ externalId: `${barcodeFormat}-${qrUrl}`, barcodeValue: qrUrl })
          .expect(201)
      ).body as HolderBody;
      const own = payloadOf(await holderLink(holder), `${barcodeFormat} holder link`);
      expect(own[`${fixture.classType}Objects`][0].barcode).toEqual({ type, value: qrUrl });
    },
  );

  it("sends only what Google's typings define, for every class type", () => {
    const payloads: Payload[] = [...saveLinkPayloads];
    for (const call of fake.calls) {
      const match =
        /^\/walletobjects\/v1\/([a-zA-Z]+?)(Class|Object)(\/[^/]+)?(\/addMessage)?$/.exec(
          call.path,
        );
      if (match === null || call.body === undefined || call.status !== 200) continue;
      const [, type, kind, , addMessage] = match;
      payloads.push({
        name: `${call.method} ${call.path}`,
        schema:
          addMessage !== undefined
            ? 'AddMessageRequest'
            : SCHEMAS[type][kind === 'Class' ? 'class' : 'object'],
        value: call.body,
      });
    }
    const kinds = new Set(payloads.map((payload) => payload.schema));
    for (const type of Object.values(SCHEMAS)) {
      expect(kinds).toContain(type.class);
      expect(kinds).toContain(type.object);
    }
    expect(typeCheckPayloads(payloads)).toEqual([]);
  });
});
