import { SerialOwners } from '@app/wallet-a/signing/serial-owners';
import request from 'supertest';
import { DataSource } from 'typeorm';
import type { OwnerSession } from './support/session';
import type { TestApp } from './support/test-app';
import {
  deviceToken,
  packageAuthToken,
  PASS_TYPE_ID,
  publishedPassWithDevices,
  startWalletAApp,
  type WalletAApp,
} from './support/walleta-env';

interface HolderBody {
  id: string;
  serialNumber: string;
  downloadUrl: string;
}

/**
 * Each instance keeps a serial number's owner (pass, workspace, holder, token hash) for good,
 * unasked and untold (SerialOwners). These drive the writes the API offers over passes and
 * holders and check that what an instance kept is still what the database says.
 */
describe("A serial number's kept owner", () => {
  let walletA: WalletAApp;
  let testApp: TestApp;
  let owner: OwnerSession;
  let kept: SerialOwners;
  /** What a new instance, which has kept nothing, reads. */
  const stored = (serial: string) => new SerialOwners(testApp.app.get(DataSource)).ownerOf(serial);

  beforeAll(async () => {
    walletA = await startWalletAApp();
    ({ testApp, owner } = walletA);
    kept = testApp.app.get(SerialOwners);
  });
  afterAll(() => walletA.close());

  const http = () => request(testApp.server);
  let library = 0;
  const register = (serial: string, token: string) =>
    http()
      .post(`/passkit/v1/devices/kept-${++library}/registrations/${PASS_TYPE_ID}/${serial}`)
      .set('Authorization', `ApplePass ${token}`)
      .send({ pushToken: deviceToken(library) });

  it('is not kept before its token exists, so the first package lets devices in', async () => {
    const { pass } = await publishedPassWithDevices(owner, 0);
    const holder = (
      await http()
        .post(`/v1/wallet-pass/${pass.id}/holders`)
        .set(owner.auth)
        .send({ externalId: 'early' })
        .expect(201)
    ).body as HolderBody;
    await register(holder.serialNumber, 'no-token-yet').expect(401);
    expect(await kept.ownerOf(holder.serialNumber)).toBeNull();

    const token = await packageAuthToken(
      testApp.server,
      `${new URL(holder.downloadUrl).pathname}/pass.pkpass`,
    );
    await register(holder.serialNumber, token).expect(201);
    expect(await kept.ownerOf(holder.serialNumber)).toEqual({
      passId: pass.id,
      workspaceId: owner.defaultWorkspaceId,
      tokenHash: expect.stringMatching(/^[0-9a-f]{64}$/),
      holderId: holder.id,
    });
  });

  it('stays what the database holds through every edit, void and delete', async () => {
    const { pass, authToken } = await publishedPassWithDevices(owner, 1);
    const holders = `/v1/wallet-pass/${pass.id}/holders`;
    const holder = (
      await http().post(holders).set(owner.auth).send({ externalId: 'kept' }).expect(201)
    ).body as HolderBody;
    const holderToken = await packageAuthToken(
      testApp.server,
      `${new URL(holder.downloadUrl).pathname}/pass.pkpass`,
    );
    await register(holder.serialNumber, holderToken).expect(201);
    const serials = [pass.id, holder.serialNumber];
    const keptBefore = await Promise.all(serials.map((serial) => kept.ownerOf(serial)));
    expect(keptBefore).toEqual(await Promise.all(serials.map(stored)));
    expect(keptBefore.every((each) => each !== null)).toBe(true);

    const writes: [string, () => Promise<unknown>][] = [
      [
        'holder edited',
        () =>
          http()
            .patch(`${holders}/${holder.id}`)
            .set(owner.auth)
            .send({ externalId: 'renamed', barcodeValue: 'new-code', barcodeText: 'New' })
            .expect(200),
      ],
      [
        'holder imported over',
        async () => {
          const imported = await http()
            .post(`${holders}/import`)
            .set(owner.auth)
            .send([{ externalId: 'renamed', barcodeValue: 'imported-code' }])
            .expect(200);
          expect(imported.body).toEqual({ created: 0, updated: 1 });
        },
      ],
      [
        'pass edited',
        () =>
          http()
            .patch(`/v1/wallet-pass/${pass.id}`)
            .set(owner.auth)
            .send({
              passName: `Renamed ${pass.id}`,
              passMetadata: { description: 'Renamed card', organizationName: 'Brand' },
            })
            .expect(200),
      ],
      [
        'packages fetched again',
        async () => {
          await packageAuthToken(testApp.server, `/p/${pass.slug}/pass.pkpass`);
          await packageAuthToken(
            testApp.server,
            `${new URL(holder.downloadUrl).pathname}/pass.pkpass`,
          );
        },
      ],
      ['holder voided', () => http().delete(`${holders}/${holder.id}`).set(owner.auth).expect(204)],
      [
        'pass deleted',
        () => http().delete(`/v1/wallet-pass/${pass.id}`).set(owner.auth).expect(204),
      ],
    ];
    for (const [write, run] of writes) {
      await run();
      const now = await Promise.all(serials.map((serial) => kept.ownerOf(serial)));
      expect({ write, owners: now }).toEqual({ write, owners: keptBefore });
      expect({ write, owners: await Promise.all(serials.map(stored)) }).toEqual({
        write,
        owners: keptBefore,
      });
    }
    // The tokens handed out first still open the web service for both serials.
    await http()
      .get(`/passkit/v1/passes/${PASS_TYPE_ID}/${pass.id}`)
      .set('Authorization', `ApplePass ${authToken}`)
      .expect(200);
    await http()
      .get(`/passkit/v1/passes/${PASS_TYPE_ID}/${holder.serialNumber}`)
      .set('Authorization', `ApplePass ${holderToken}`)
      .expect(200);
  });
});
