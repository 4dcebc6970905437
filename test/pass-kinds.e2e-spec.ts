import { Pass } from '@app/passes';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { NFC } from './support/pass-kind-fixtures';
import { makePng } from './support/png';
import { binaryBody, openPackage } from './support/pkpass';
import { startWalletAApp, type WalletAApp } from './support/walleta-env';

const METADATA = {
  description: 'Coupon of Brand',
  organizationName: 'Brand Ltd',
  topField: { key: 'offer', label: 'Offer', value: '10 % off' },
};

describe('Kinds of pass: face fields, barcode formats and dates', () => {
  let app: WalletAApp;
  let images: { fileName: string; uploadKey: string }[];
  const http = () => request(app.testApp.server);

  beforeAll(async () => {
    app = await startWalletAApp({ PUBLIC_BASE_URL: 'https://wallet.test' });
    images = [];
    for (const fileName of ['logo.png', 'icon.png', 'strip.png']) {
      images.push({ fileName, uploadKey: await app.owner.upload(makePng(), fileName) });
    }
  });
  afterAll(() => app.close());

  const create = (passName: string, passMetadata: Record<string, unknown>) =>
    http()
      .post('/v1/wallet-pass')
      .set(app.owner.auth)
      .send({ passName, passMetadata, status: 'Published', uploadInfoList: images });

  const passJson = async (slug: string) => {
    const response = await http()
      .get(`/p/${slug}/pass.pkpass`)
      .buffer(true)
      .parse(binaryBody)
      .expect(200);
    const opened = openPackage(response.body as Buffer, app.caPem());
    expect(opened.signatureVerifies).toBe(true);
    return opened.passJson;
  };

  it.each([
    ['QR', 'PKBarcodeFormatQR'],
    ['PDF417', 'PKBarcodeFormatPDF417'],
    ['Aztec', 'PKBarcodeFormatAztec'],
    ['Code128', 'PKBarcodeFormatCode128'],
  ])('writes a %s barcode of any text as %s, with the dates', async (format, pkFormat) => {
    const pass = (
      await create(`Barcode ${format}`, {
        ...METADATA,
        barcodeFormat: format,
        qrUrl: 'MEMBER-10442',
        qrText: 'Member 10442',
        relevantDate: '2026-05-01T19:30:00+02:00',
        expirationDate: '2026-05-02T04:00:00+02:00',
      }).expect(201)
    ).body as { slug: string; passMetadata: Record<string, unknown> };
    expect(pass.passMetadata.barcodeFormat).toBe(format);
    const json = await passJson(pass.slug);
    expect(json.barcodes).toEqual([
      {
        format: pkFormat,
        message: 'MEMBER-10442',
        messageEncoding: 'iso-8859-1',
        altText: 'Member 10442',
      },
    ]);
    expect(json.barcode).toBeUndefined();
    expect(json.relevantDate).toBe('2026-05-01T19:30:00+02:00');
    expect(json.expirationDate).toBe('2026-05-02T04:00:00+02:00');
    expect(json.storeCard).toBeDefined();

    // The holder page draws every format.
    const page = (await http().get(`/p/${pass.slug}`).expect(200)).text;
    expect(page).toContain(`data-barcode-format="${pkFormat}" data-barcode-message="MEMBER-10442"`);
    expect(page).toMatch(/<figure class="barcode[^"]*" role="img"[^>]*>\s*<svg /);
    expect(page).not.toContain('<code>MEMBER-10442</code>');
  });

  it.each([
    ['EAN13', '4006381333931', 'PKBarcodeFormatEAN13', undefined, 'PKBarcodeFormatQR'],
    ['Code39', 'STAFF-0042', 'PKBarcodeFormatCode39', 'Code128', 'PKBarcodeFormatCode128'],
    ['Codabar', 'A40156B', 'PKBarcodeFormatCodabar', 'QR', 'PKBarcodeFormatQR'],
    ['ITF', '15400141288763', 'PKBarcodeFormatI2of5', 'Code128', 'PKBarcodeFormatCode128'],
  ])(
    'writes an iOS 27 %s barcode first, then the fallback older iPhones render',
    async (format, message, pkFormat, fallback, pkFallback) => {
      const pass = (
        await create(`Barcode ${format}`, {
          ...METADATA,
          barcodeFormat: format,
          ...(fallback ? { barcodeFallbackFormat: fallback } : {}),
          qrUrl: message,
        }).expect(201)
      ).body as { slug: string; passMetadata: Record<string, unknown> };
      expect(pass.passMetadata).toMatchObject({ barcodeFormat: format, qrUrl: message });
      const json = await passJson(pass.slug);
      expect(json.barcodes).toEqual([
        { format: pkFormat, message, messageEncoding: 'iso-8859-1' },
        { format: pkFallback, message, messageEncoding: 'iso-8859-1' },
      ]);
      expect(json.barcode).toBeUndefined();
      // The holder page draws the iOS 27 format, its message under it.
      const page = (await http().get(`/p/${pass.slug}`).expect(200)).text;
      expect(page).toContain(`data-barcode-format="${pkFormat}"`);
      expect(page).toContain(`<figcaption>${message}</figcaption>`);
    },
  );

  it.each([
    [
      'EAN13',
      '4006381333932',
      'must end in its check digit for an EAN13 barcode (1 for these 12 digits)',
    ],
    ['EAN13', '978-3-16-148410-0', 'must be 13 digits for an EAN13 barcode'],
    [
      'Code39',
      'staff-0042',
      'must be Code39 characters for a Code39 barcode: digits, capital letters A-Z, space and - . $ / + %',
    ],
    [
      'Codabar',
      'A40156',
      'must be Codabar characters for a Codabar barcode: digits and - $ : / . +, either between a start and a stop letter A-D or without them',
    ],
    ['ITF', '12345', 'must be an even number of digits for an ITF barcode'],
  ])(
    'refuses a %s barcode of %s, naming qrUrl, and writes nothing',
    async (format, qrUrl, message) => {
      const passName = `Refused ${format} ${qrUrl}`;
      const response = await create(passName, { ...METADATA, barcodeFormat: format, qrUrl }).expect(
        400,
      );
      expect(response.body).toMatchObject({
        errorCode: 'INVALID_INPUT',
        context: { 'passMetadata.qrUrl': message },
      });
      const list = await http()
        .get('/v1/wallet-pass')
        .query({ keyword: passName })
        .set(app.owner.auth)
        .expect(200);
      expect((list.body as { items: unknown[] }).items).toEqual([]);
    },
  );

  it('takes QR or Code128 as the fallback, nothing else', async () => {
    const response = await create('Bad fallback', {
      ...METADATA,
      barcodeFormat: 'EAN13',
      barcodeFallbackFormat: 'PDF417',
      qrUrl: '4006381333931',
    }).expect(400);
    expect(response.body.context).toEqual({
      'passMetadata.barcodeFallbackFormat': 'must be one of the following values: QR, Code128',
    });
  });

  it('writes a pass without the new fields as before: QR and no dates', async () => {
    const pass = (
      await create('Plain', { ...METADATA, qrUrl: 'https://brand.example/m/1' }).expect(201)
    ).body as { slug: string };
    const json = await passJson(pass.slug);
    expect((json.barcodes as { format: string }[])[0].format).toBe('PKBarcodeFormatQR');
    expect(json).not.toHaveProperty('relevantDate');
    expect(json).not.toHaveProperty('expirationDate');
  });

  it('refuses non-ASCII text in a Code128 barcode and dates that are not ISO 8601', async () => {
    const code = await create('Bad code', {
      ...METADATA,
      barcodeFormat: 'Code128',
      qrUrl: 'Café-1',
    }).expect(400);
    expect(code.body.errorCode).toBe('INVALID_INPUT');
    expect(code.body.context).toEqual({
      'passMetadata.qrUrl': 'must be ASCII text for a Code128 barcode',
    });
    const date = await create('Bad date', { ...METADATA, relevantDate: '1 May 2026' }).expect(400);
    expect(date.body.context).toEqual({
      'passMetadata.relevantDate':
        'must be an ISO 8601 date-time with its offset (e.g. 2026-05-01T19:30:00+02:00)',
    });
  });

  it('checks an update the same way', async () => {
    const pass = (await create('Updated', METADATA).expect(201)).body as { id: string };
    const response = await http()
      .patch(`/v1/wallet-pass/${pass.id}`)
      .set(app.owner.auth)
      .send({
        passName: 'Updated',
        passMetadata: { ...METADATA, barcodeFormat: 'Code128', qrUrl: 'Ticket №1' },
      })
      .expect(400);
    expect(response.body.context).toEqual({
      'passMetadata.qrUrl': 'must be ASCII text for a Code128 barcode',
    });
    const ean = await http()
      .patch(`/v1/wallet-pass/${pass.id}`)
      .set(app.owner.auth)
      .send({
        passName: 'Updated',
        passMetadata: { ...METADATA, barcodeFormat: 'EAN13', qrUrl: '1' },
      })
      .expect(400);
    expect(ean.body.context).toEqual({
      'passMetadata.qrUrl': 'must be 13 digits for an EAN13 barcode',
    });
    const kept = await http().get(`/v1/wallet-pass/${pass.id}`).set(app.owner.auth).expect(200);
    expect((kept.body as { passMetadata: object }).passMetadata).not.toHaveProperty(
      'barcodeFormat',
    );
  });
  it("puts every face field in its slot, with date styles and holders' values", async () => {
    const pass = (
      await create('Face slots', {
        ...METADATA,
        headerFields: [{ key: 'level', label: 'Level', value: 'Gold' }],
        primaryFields: [{ key: 'name', label: 'Member', value: 'Member' }],
        secondaryFields: [
          {
            key: 'since',
            label: 'Since',
            value: '2026-05-01T19:30:00+02:00',
            dateStyle: 'medium',
            timeStyle: 'none',
          },
        ],
        auxiliaryFields: [{ key: 'seat', label: 'Seat', value: '-' }],
      }).expect(201)
    ).body as { id: string; slug: string };
    const json = await passJson(pass.slug);
    expect(json.storeCard).toEqual({
      headerFields: [
        { key: 'offer', label: 'Offer', value: '10 % off' },
        { key: 'level', label: 'Level', value: 'Gold' },
      ],
      primaryFields: [{ key: 'name', label: 'Member', value: 'Member' }],
      secondaryFields: [
        {
          key: 'since',
          label: 'Since',
          value: '2026-05-01T19:30:00+02:00',
          dateStyle: 'PKDateStyleMedium',
          timeStyle: 'PKDateStyleNone',
        },
      ],
      auxiliaryFields: [{ key: 'seat', label: 'Seat', value: '-' }],
      backFields: [],
    });

    const holders = `/v1/wallet-pass/${pass.id}/holders`;
    const holder = (
      await http()
        .post(holders)
        .set(app.owner.auth)
        .send({ externalId: 'maya', fieldValues: { seat: '12A', name: 'Maya', level: 'Silver' } })
        .expect(201)
    ).body as { downloadUrl: string };
    const response = await http()
      .get(`${new URL(holder.downloadUrl).pathname}/pass.pkpass`)
      .buffer(true)
      .parse(binaryBody)
      .expect(200);
    const card = openPackage(response.body as Buffer, app.caPem()).passJson.storeCard as Record<
      string,
      { key: string; value: string }[]
    >;
    expect(card.headerFields.map((field) => field.value)).toEqual(['10 % off', 'Silver']);
    expect(card.primaryFields[0].value).toBe('Maya');
    expect(card.auxiliaryFields[0].value).toBe('12A');
    const page = (await http().get(new URL(holder.downloadUrl).pathname).expect(200)).text;
    expect(page).toContain('12A');

    const unknown = await http()
      .post(holders)
      .set(app.owner.auth)
      .send({ externalId: 'ann', fieldValues: { gate: '4' } })
      .expect(400);
    expect(unknown.body.context).toEqual({
      'fieldValues.gate':
        "is not a field of the pass; its face fields' keys are offer, level, name, since, seat",
    });
  });

  it("names the slot and the limit past a store card's limits", async () => {
    const four = [1, 2, 3].map((n) => ({ key: `s${n}`, value: 'x' }));
    const rows = await create('Rows', {
      ...METADATA,
      secondaryFields: four,
      auxiliaryFields: [
        { key: 'a1', value: 'x' },
        { key: 'a2', value: 'x' },
      ],
    }).expect(400);
    expect(rows.body.context).toEqual({
      'passMetadata.auxiliaryFields':
        'a storeCard has at most 4 secondaryFields and auxiliaryFields together (5 given)',
    });
    const primary = await create('Primary', {
      ...METADATA,
      primaryFields: [
        { key: 'p1', value: 'x' },
        { key: 'p2', value: 'x' },
      ],
    }).expect(400);
    expect(primary.body.context).toEqual({
      'passMetadata.primaryFields': 'a storeCard has at most 1 primaryFields (2 given)',
    });
    const keys = await create('Keys', {
      ...METADATA,
      auxiliaryFields: [{ key: 'offer', value: 'x' }],
    }).expect(400);
    expect(keys.body.context).toEqual({
      'passMetadata.auxiliaryFields[0].key': 'is used by another field of the pass',
    });
    const dated = await create('Dated', {
      ...METADATA,
      primaryFields: [{ key: 'when', value: 'Friday', dateStyle: 'short' }],
    }).expect(400);
    expect(dated.body.context).toEqual({
      'passMetadata.primaryFields[0].value':
        'must be an ISO 8601 date-time with its offset (e.g. 2026-05-01T19:30:00+02:00) when dateStyle or timeStyle is set',
    });
  });

  describe("a festival's or a season ticket's upcoming events", () => {
    const EVENT = {
      name: 'Riverside Festival',
      venueName: 'Riverside Park',
      // What the poster event ticket, which shows upcoming events, needs of its venue.
      venueRegion: 'Springfield',
      venueRoom: 'Main Stage',
      startTime: '2026-07-10T16:00:00+02:00',
    };
    const day = (n: number, changes: Record<string, unknown> = {}) => ({
      identifier: `day-${n}`,
      name: `Day ${n}`,
      startTime: `2026-08-${String(n).padStart(2, '0')}T18:00:00+02:00`,
      endTime: `2026-08-${String(n).padStart(2, '0')}T23:00:00+02:00`,
      ...changes,
    });
    const ticket = (upcoming: unknown, changes: Record<string, unknown> = {}) => ({
      ...METADATA,
      passType: 'eventTicket',
      event: { ...EVENT, upcoming },
      qrUrl: 'FESTIVAL',
      // The poster event ticket needs NFC.
      nfc: { ...NFC, message: 'FESTIVAL' },
      ...changes,
    });
    const TWENTY = Array.from({ length: 20 }, (_, i) => day(i + 1));
    /** A poster event ticket (its artwork), which Wallet shows upcoming events on. */
    let posterImages: { fileName: string; uploadKey: string }[];
    beforeAll(async () => {
      const artwork = makePng({ width: 358, height: 448 });
      posterImages = [
        ...images,
        { fileName: 'artwork.png', uploadKey: await app.owner.upload(artwork, 'artwork.png') },
      ];
    });
    const createPoster = (passName: string, passMetadata: Record<string, unknown>) =>
      http()
        .post('/v1/wallet-pass')
        .set(app.owner.auth)
        .send({ passName, passMetadata, status: 'Published', uploadInfoList: posterImages });
    const ISO = 'must be an ISO 8601 date-time with its offset (e.g. 2026-05-01T19:30:00+02:00)';
    /** Every pass row there is, in the database itself: a refused request writes none. */
    const passCount = () => app.testApp.app.get(DataSource).getRepository(Pass).count();

    it('takes 20 events: one relevant date and one upcomingPassInformation entry each', async () => {
      const pass = (await createPoster('Twenty days', ticket(TWENTY)).expect(201)).body as {
        slug: string;
        passMetadata: { event: { upcoming: unknown[] } };
      };
      expect(pass.passMetadata.event.upcoming).toEqual(TWENTY);
      const json = await passJson(pass.slug);
      expect(json.relevantDates).toEqual(
        TWENTY.map((event) => ({ startDate: event.startTime, endDate: event.endTime })),
      );
      const entries = json.upcomingPassInformation as Record<string, unknown>[];
      expect(entries.map((entry) => entry.identifier)).toEqual(TWENTY.map((e) => e.identifier));
      expect(entries[3]).toMatchObject({
        type: 'event',
        name: 'Day 4',
        dateInformation: { date: '2026-08-04T18:00:00+02:00' },
        semantics: { venueName: 'Riverside Park', eventEndDate: '2026-08-04T23:00:00+02:00' },
      });
      expect((entries[3].backFields as unknown[]).length).toBeGreaterThan(0);
      expect(json.preferredStyleSchemes).toEqual(['posterEventTicket', 'eventTicket']);
    });

    it("lists a classic ticket's events on its back: upcomingPassInformation is a poster's", async () => {
      const pass = (await create('Two days', ticket([day(1), day(2)])).expect(201)).body as {
        slug: string;
      };
      const json = await passJson(pass.slug);
      expect(json.upcomingPassInformation).toBeUndefined();
      expect(json.preferredStyleSchemes).toBeUndefined();
      expect((json.relevantDates as unknown[]).length).toBe(2);
      const back = (json.eventTicket as { backFields: { key: string; value: string }[] })
        .backFields;
      expect(back.find((field) => field.key === 'event.upcoming')?.value).toContain('Day 2');
    });

    it.each([
      [
        'more than 20 events',
        () => ticket([...TWENTY, day(21)]),
        { 'passMetadata.event.upcoming': 'must have at most 20 events' },
      ],
      [
        'a duplicate identifier',
        () => ticket([day(1), day(2), day(3), day(4, { identifier: 'day-2' })]),
        {
          'passMetadata.event.upcoming[3].identifier':
            'is used by another upcoming event of the pass',
        },
      ],
      [
        'a bad date',
        () => ticket([day(1), day(2), day(3), day(4, { startTime: '4 August 2026' })]),
        { 'passMetadata.event.upcoming[3].startTime': ISO },
      ],
      [
        'an end before the start',
        () => ticket([day(1), day(2, { endTime: '2026-08-02T17:00:00+02:00' })]),
        { 'passMetadata.event.upcoming[1].endTime': 'must not be before its startTime' },
      ],
      [
        'an event without a name',
        () => ticket([day(1, { name: undefined })]),
        { 'passMetadata.event.upcoming[0].name': 'must not be null' },
      ],
      [
        'upcoming events on a coupon',
        () => ({
          ...ticket([day(1)]),
          passType: 'coupon',
          offer: { title: '10 % off', provider: 'Brand', redemptionChannel: 'both' },
        }),
        { 'passMetadata.event.upcoming': 'is for an eventTicket, not a coupon' },
      ],
    ])(
      'refuses %s with a 400 naming the field, writing nothing',
      async (_name, metadata, context) => {
        const before = await passCount();
        const refused = await create('Refused', metadata()).expect(400);
        expect(refused.body.errorCode).toBe('INVALID_INPUT');
        expect(refused.body.context).toEqual(context);
        expect(await passCount()).toBe(before);
      },
    );

    it('refuses a bad update the same way and leaves the pass as it was', async () => {
      const pass = (await createPoster('Season', ticket([day(1), day(2)])).expect(201)).body as {
        id: string;
        slug: string;
        version: number;
      };
      const before = (
        await http().get(`/v1/wallet-pass/${pass.id}`).set(app.owner.auth).expect(200)
      ).body as Record<string, unknown>;
      const refused = await http()
        .patch(`/v1/wallet-pass/${pass.id}`)
        .set(app.owner.auth)
        .send({ passName: 'Season', passMetadata: ticket([day(1), day(1, { name: 'Again' })]) })
        .expect(400);
      expect(refused.body.context).toEqual({
        'passMetadata.event.upcoming[1].identifier':
          'is used by another upcoming event of the pass',
      });
      const after = (await http().get(`/v1/wallet-pass/${pass.id}`).set(app.owner.auth).expect(200))
        .body as Record<string, unknown>;
      expect(after).toEqual(before);
      const json = await passJson(pass.slug);
      expect((json.upcomingPassInformation as unknown[]).length).toBe(2);
    });
  });

  describe('flights by carrier and number, and the semantic boarding pass', () => {
    const FLIGHT = {
      transitType: 'air',
      origin: { code: 'ZRH', name: 'Zurich', timeZone: 'Europe/Zurich' },
      destination: { code: 'JFK', name: 'New York', timeZone: 'America/New_York' },
      boardingTime: '2026-05-01T12:25:00+02:00',
      departureTime: '2026-05-01T13:05:00+02:00',
      arrivalTime: '2026-05-01T15:55:00-04:00',
    };
    const flight = (transit: Record<string, unknown>) => ({
      description: 'Boarding pass',
      organizationName: 'Brand Air',
      passType: 'boardingPass',
      transit: { ...FLIGHT, ...transit },
      headerFields: [{ key: 'gate', label: 'Gate', value: '-' }],
      auxiliaryFields: [{ key: 'seat', label: 'Seat', value: '-' }],
      barcodeFormat: 'PDF417',
      qrUrl: 'M1RIVERA/MAYA EABC123 ZRHJFKLX 0318',
    });
    const problem = async (transit: Record<string, unknown>) =>
      (await create('Bad flight', flight(transit)).expect(400)).body as {
        context: Record<string, string>;
      };

    it('takes carrier LX and number 318 as the flight LX318 that number LX318 is', async () => {
      for (const transit of [{ carrier: 'LX', number: '318' }, { number: 'LX318' }]) {
        const pass = (
          await create(`Flight ${JSON.stringify(transit)}`, flight(transit)).expect(201)
        ).body as {
          slug: string;
        };
        const json = await passJson(pass.slug);
        expect(json.semantics).toMatchObject({
          airlineCode: 'LX',
          flightCode: 'LX318',
          flightNumber: 318,
        });
        const fields = Object.values(json.boardingPass as Record<string, unknown>)
          .filter(Array.isArray)
          .flat() as { key: string; value: string }[];
        expect(fields.find((item) => item.key === 'transit.number')?.value).toBe('LX318');
        // The shared pass has no passenger: the classic boarding pass.
        expect(json.preferredStyleSchemes).toBeUndefined();
        const page = (await http().get(`/p/${pass.slug}`).expect(200)).text;
        expect(page).toContain('LX318');
      }
    });

    it('refuses a bare number without a carrier code, a contradicting carrier, a malformed code', async () => {
      expect((await problem({ number: '318' })).context).toHaveProperty([
        'passMetadata.transit.carrier',
      ]);
      expect((await problem({ carrier: 'Swiss', number: '318' })).context).toHaveProperty([
        'passMetadata.transit.carrier',
      ]);
      expect((await problem({ carrier: 'BA', number: 'LX318' })).context).toEqual({
        'passMetadata.transit.carrier':
          'is BA but transit.number is a flight of LX: they must name the same airline',
      });
      expect((await problem({ carrier: 'L1X', number: '318' })).context).toEqual({
        'passMetadata.transit.carrier':
          "must be the airline's IATA code (2 letters or digits) or ICAO code (3 letters), e.g. LX",
      });
      expect((await problem({ carrier: 'LX', number: 'three' })).context).toHaveProperty([
        'passMetadata.transit.number',
      ]);
    });

    it('refuses a time zone that is no IANA name, naming the field', async () => {
      expect(
        (await problem({ number: 'LX318', origin: { ...FLIGHT.origin, timeZone: '+02:00' } }))
          .context,
      ).toEqual({
        'passMetadata.transit.origin.timeZone':
          'must be an IANA time zone name, such as Europe/Zurich (not an offset)',
      });
      expect(
        (
          await problem({
            number: 'LX318',
            destination: { ...FLIGHT.destination, timeZone: 'America/Atlantis' },
          })
        ).context,
      ).toHaveProperty(['passMetadata.transit.destination.timeZone']);
      expect((await problem({ number: 'LX318', boardingTime: 'at noon' })).context).toHaveProperty([
        'passMetadata.transit.boardingTime',
      ]);
      // An alias is a zone too, written as the time zone database names it.
      const pass = (
        await create(
          'Flight UTC',
          flight({ number: 'LX318', destination: { ...FLIGHT.destination, timeZone: 'Etc/UTC' } }),
        ).expect(201)
      ).body as { slug: string };
      expect((await passJson(pass.slug)).semantics).toMatchObject({
        destinationLocationTimeZone: 'UTC',
      });
    });

    it('gives a holder with a passenger the semantic boarding pass, and one without the classic', async () => {
      const pass = (
        await create('Flight LX318 of Maya', flight({ carrier: 'LX', number: '318' })).expect(201)
      ).body as { id: string };
      const holderJson = async (body: Record<string, unknown>) => {
        const holder = (
          await http()
            .post(`/v1/wallet-pass/${pass.id}/holders`)
            .set(app.owner.auth)
            .send(body)
            .expect(201)
        ).body as { downloadUrl: string; passengerName: unknown };
        const response = await http()
          .get(`${new URL(holder.downloadUrl).pathname}/pass.pkpass`)
          .buffer(true)
          .parse(binaryBody)
          .expect(200);
        return { holder, json: openPackage(response.body as Buffer, app.caPem()).passJson };
      };
      const passengerName = { givenName: 'Maya', familyName: 'Rivera' };
      const semantic = await holderJson({
        externalId: 'maya',
        passengerName,
        fieldValues: { gate: 'E44', seat: '3A' },
      });
      expect(semantic.holder.passengerName).toEqual(passengerName);
      expect(semantic.json.preferredStyleSchemes).toEqual(['semanticBoardingPass', 'boardingPass']);
      expect(semantic.json.semantics).toMatchObject({
        airlineCode: 'LX',
        flightNumber: 318,
        originalDepartureDate: '2026-05-01T13:05:00+02:00',
        originalArrivalDate: '2026-05-01T15:55:00-04:00',
        originalBoardingDate: '2026-05-01T12:25:00+02:00',
        departureAirportCode: 'ZRH',
        destinationAirportCode: 'JFK',
        departureCityName: 'Zurich',
        destinationCityName: 'New York',
        departureLocationTimeZone: 'Europe/Zurich',
        destinationLocationTimeZone: 'America/New_York',
        departureGate: 'E44',
        seats: [{ seatNumber: '3A' }],
        passengerName,
      });
      // The classic fields stay for phones before iOS 26.
      expect(semantic.json.boardingPass).toMatchObject({ transitType: 'PKTransitTypeAir' });

      const classic = await holderJson({ externalId: 'guest', fieldValues: { seat: '4C' } });
      expect(classic.holder.passengerName).toBeNull();
      expect(classic.json.preferredStyleSchemes).toBeUndefined();
      expect(classic.json.semantics).not.toHaveProperty('departureCityName');
    });

    it('keeps the classic boarding pass without a boarding time or a zone', async () => {
      const withoutBoarding: Partial<typeof FLIGHT> = { ...FLIGHT };
      delete withoutBoarding.boardingTime;
      for (const transit of [
        { ...withoutBoarding, carrier: 'LX', number: '318' },
        { ...FLIGHT, carrier: 'LX', number: '318', origin: { code: 'ZRH', name: 'Zurich' } },
      ]) {
        const metadata = { ...flight({}), transit };
        const pass = (
          await create(`Classic flight ${Object.keys(transit).length}`, metadata).expect(201)
        ).body as { id: string };
        const holder = (
          await http()
            .post(`/v1/wallet-pass/${pass.id}/holders`)
            .set(app.owner.auth)
            .send({
              externalId: 'maya',
              passengerName: { givenName: 'Maya', familyName: 'Rivera' },
            })
            .expect(201)
        ).body as { downloadUrl: string };
        const response = await http()
          .get(`${new URL(holder.downloadUrl).pathname}/pass.pkpass`)
          .buffer(true)
          .parse(binaryBody)
          .expect(200);
        const json = openPackage(response.body as Buffer, app.caPem()).passJson;
        expect(json.preferredStyleSchemes).toBeUndefined();
        // Its passenger is still told to Wallet.
        expect(json.semantics).toMatchObject({
          passengerName: { givenName: 'Maya', familyName: 'Rivera' },
        });
      }
    });
  });
});
