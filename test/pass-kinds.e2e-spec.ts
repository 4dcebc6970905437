import request from 'supertest';
import { makePng } from './support/png';
import { binaryBody, openPackage } from './support/pkpass';
import { startWalletAApp, type WalletAApp } from './support/walleta-env';

const METADATA = {
  description: 'Coupon of Brand',
  organizationName: 'Brand Ltd',
  topField: { key: 'offer', label: 'Offer', value: '10 % off' },
};

describe('Kinds of pass: barcode formats and dates', () => {
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

    // The holder page draws QR codes; the other formats show their message as text.
    const page = (await http().get(`/p/${pass.slug}`).expect(200)).text;
    expect(page).toContain('data-barcode-message="MEMBER-10442"');
    if (format === 'QR') expect(page).toContain('<svg');
    else expect(page).toContain('<code>MEMBER-10442</code>');
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
  });
});
