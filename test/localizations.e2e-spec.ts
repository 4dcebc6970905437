import request from 'supertest';
import { makePng } from './support/png';
import { binaryBody, openPackage } from './support/pkpass';
import type { OwnerSession } from './support/session';
import type { TestApp } from './support/test-app';
import { startWalletAApp, type WalletAApp } from './support/walleta-env';

const METADATA = {
  description: 'Event ticket',
  organizationName: 'Brand Ltd',
  passType: 'eventTicket',
  event: {
    name: 'Summer Gala',
    venueName: 'Riverside Hall',
    startTime: '2026-07-04T19:30:00+02:00',
  },
  primaryFields: [{ key: 'event', label: 'Event', value: 'Summer Gala' }],
  secondaryFields: [
    { key: 'seat', label: 'Seat', value: 'Any' },
    { key: 'row', label: 'Row', value: 'Any' },
  ],
  backFields: [{ key: 'links', label: 'Links', value: [{ link: 'https://brand.example' }] }],
  localizations: {
    de: {
      description: 'Eintrittskarte',
      organizationName: 'Marke GmbH',
      passName: 'Sommergala-Karte',
      fields: {
        event: { value: 'Sommergala' },
        seat: { label: 'Platz', value: 'Beliebig' },
        links: { label: 'Verweise' },
      },
    },
    'fr-CA': { passName: 'Billet du gala', fields: { seat: { label: 'Siège' } } },
  },
};

/** The label and value of the page's field with this key. */
function field(html: string, key: string): [string, string] | undefined {
  const match = new RegExp(
    `data-key="${key}">\\s*<dt class="label">([^<]*)</dt>\\s*<dd class="value">([^<]*)</dd>`,
  ).exec(html);
  return match ? [match[1], match[2]] : undefined;
}

describe('Localizations', () => {
  let walletA: WalletAApp;
  let testApp: TestApp;
  let owner: OwnerSession;
  let uploadInfoList: { fileName: string; uploadKey: string }[];
  const http = () => request(testApp.server);

  beforeAll(async () => {
    walletA = await startWalletAApp();
    testApp = walletA.testApp;
    owner = walletA.owner;
    uploadInfoList = [];
    for (const fileName of ['logo.png', 'icon.png', 'strip.png']) {
      uploadInfoList.push({ fileName, uploadKey: await owner.upload(makePng(), fileName) });
    }
  });
  afterAll(() => walletA.close());

  /** The package's files at `path`: pass.json and each language's pass.strings as text. */
  async function packageAt(path: string): Promise<Record<string, Buffer>> {
    const response = await http().get(path).buffer(true).parse(binaryBody).expect(200);
    const opened = openPackage(response.body as Buffer, walletA.caPem());
    expect(opened.signatureVerifies).toBe(true);
    return opened.files;
  }
  const strings = (files: Record<string, Buffer>, language: string) => {
    const bytes = files[`${language}.lproj/pass.strings`];
    expect(bytes?.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xfe]));
    return bytes?.subarray(2).toString('utf16le');
  };

  let created = 0;
  const create = (passMetadata: object, passName = `Gala ticket ${++created}`) =>
    http()
      .post('/v1/wallet-pass')
      .set(owner.auth)
      .send({ passName, passMetadata, status: 'Published', uploadInfoList });

  it('keeps them on the pass and refuses what names no field of it (400 with the path)', async () => {
    const created = await create(METADATA).expect(201);
    expect((created.body as { passMetadata: object }).passMetadata).toMatchObject({
      localizations: METADATA.localizations,
    });
    const cases: [object, string, string][] = [
      [
        { 'not a tag': {} },
        'passMetadata.localizations.not a tag',
        'must be keyed by a BCP 47 language tag',
      ],
      [
        { de: { fields: { gate: { label: 'Tor' } } } },
        'passMetadata.localizations.de.fields.gate',
        'is not a field of the pass',
      ],
      [
        { de: { fields: { links: { value: 'x' } } } },
        'passMetadata.localizations.de.fields.links.value',
        "is a back field's links: only its label is translated",
      ],
      [{ de: { colour: 'rot' } }, 'passMetadata.localizations.de.colour', 'should not exist'],
    ];
    for (const [localizations, path, message] of cases) {
      const refused = await create({ ...METADATA, localizations }).expect(400);
      expect(refused.body).toMatchObject({
        errorCode: 'INVALID_INPUT',
        context: { [path]: message },
      });
    }
    const notObject = await create({ ...METADATA, localizations: ['de'] }).expect(400);
    expect(Object.keys(notObject.body.context as object)).toEqual(['passMetadata.localizations']);
  });

  it("shows the holder page in the browser's language, a holder's own values untranslated", async () => {
    const pass = (await create(METADATA, 'Gala ticket').expect(201)).body as {
      id: string;
      slug: string;
    };
    const german = await http()
      .get(`/p/${pass.slug}`)
      .set('Accept-Language', 'de-AT,de;q=0.9,en;q=0.5')
      .expect(200);
    expect(german.headers.vary).toMatch(/Accept-Language/i);
    expect(german.text).toContain('<html lang="de">');
    expect(german.text).toContain('<title>Sommergala-Karte</title>');
    expect(german.text).toContain('Eintrittskarte');
    expect(german.text).toContain('Marke GmbH');
    expect(field(german.text, 'event')).toEqual(['Event', 'Sommergala']);
    expect(field(german.text, 'seat')).toEqual(['Platz', 'Beliebig']);
    expect(field(german.text, 'row')).toEqual(['Row', 'Any']);

    const canadian = (await http().get(`/p/${pass.slug}`).set('Accept-Language', 'fr').expect(200))
      .text;
    expect(canadian).toContain('<html lang="fr-CA">');
    expect(canadian).toContain('<title>Billet du gala</title>');
    expect(field(canadian, 'seat')).toEqual(['Siège', 'Any']);

    const english = (
      await http().get(`/p/${pass.slug}`).set('Accept-Language', 'en-GB').expect(200)
    ).text;
    expect(english).toContain('<html lang="en">');
    expect(english).toContain('<title>Gala ticket</title>');
    expect(field(english, 'seat')).toEqual(['Seat', 'Any']);
    const none = (await http().get(`/p/${pass.slug}`).expect(200)).text;
    expect(none).toBe(english);

    const holder = await http()
      .post(`/v1/wallet-pass/${pass.id}/holders`)
      .set(owner.auth)
      .send({ externalId: 'guest-1', fieldValues: { seat: '14' } })
      .expect(201);
    const holderPage = (
      await http()
        .get(new URL((holder.body as { downloadUrl: string }).downloadUrl).pathname)
        .set('Accept-Language', 'de')
        .expect(200)
    ).text;
    expect(field(holderPage, 'seat')).toEqual(['Platz', '14']);
    expect(field(holderPage, 'event')).toEqual(['Event', 'Sommergala']);
  });

  it("puts each language's pass.strings into the packages; a holder's value stays theirs", async () => {
    const pass = (await create(METADATA).expect(201)).body as { id: string; slug: string };
    const shared = await packageAt(`/p/${pass.slug}/pass.pkpass`);
    expect(strings(shared, 'de')).toBe(
      [
        '"Event ticket" = "Eintrittskarte";',
        '"Brand Ltd" = "Marke GmbH";',
        '"Summer Gala" = "Sommergala";',
        '"Seat" = "Platz";',
        '"Any" = "Beliebig";',
        '"Links" = "Verweise";',
        '',
      ].join('\n'),
    );
    expect(strings(shared, 'fr-CA')).toBe('"Seat" = "Siège";\n');
    // pass.json keeps the pass's own texts: the keys Wallet looks up.
    const json = JSON.parse(shared['pass.json'].toString('utf8')) as Record<string, unknown>;
    expect(json.description).toBe('Event ticket');

    const holder = await http()
      .post(`/v1/wallet-pass/${pass.id}/holders`)
      .set(owner.auth)
      .send({ externalId: 'guest-2', fieldValues: { seat: 'Any' } })
      .expect(201);
    const url = new URL((holder.body as { downloadUrl: string }).downloadUrl);
    const own = await packageAt(`${url.pathname}/pass.pkpass`);
    expect(strings(own, 'de')).not.toContain('"Any"');
    expect(strings(own, 'de')).toContain('"Seat" = "Platz";');
  });
});
