import { Holder, Pass } from '@app/passes';
import { KIND_FIXTURES, KIND_NAMES } from '../../../../test/support/pass-kind-fixtures';
import {
  SCHEMAS,
  typeCheckPayloads,
  type Payload,
} from '../../../../test/support/walletobjects-typecheck';
import { saveLinkPayload } from './class-types';
import {
  buildHolderObjectContent,
  buildObjectContent,
  buildPassClass,
  holderObjectId,
  newObjectId,
} from './pass-resources';
import type { ClassType, WalletObject } from './wallet-objects.types';

const ISSUER = '3388000000012345678';
const IMAGES = { logoUrl: 'https://files.test/logo.png', heroUrl: 'https://files.test/strip.png' };

function payloadsOf(name: string, type: ClassType, pass: Pass, holder: Holder): Payload[] {
  const schema = SCHEMAS[type];
  const classId = `${ISSUER}.${pass.id}`;
  const object = {
    id: newObjectId(ISSUER, pass.id),
    classId,
    ...buildObjectContent(pass, type, IMAGES),
  } as WalletObject;
  const holderObject = {
    id: holderObjectId(ISSUER, holder),
    classId,
    ...buildHolderObjectContent(pass, type, holder, IMAGES),
  } as WalletObject;
  const message = { id: 'n1', header: 'Hello', body: 'News', messageType: 'TEXT_AND_NOTIFY' };
  return [
    {
      name: `${name} class`,
      schema: schema.class,
      value: buildPassClass(pass, type, ISSUER, IMAGES, 'https://wallet.test/callbacks/wallet-b'),
    },
    { name: `${name} object`, schema: schema.object, value: object },
    { name: `${name} holder's object`, schema: schema.object, value: holderObject },
    { name: `${name} save link`, schema: 'Resources', value: saveLinkPayload(type, object) },
    {
      name: `${name} holder's save link`,
      schema: 'Resources',
      value: saveLinkPayload(type, holderObject),
    },
    {
      name: `${name} bundle's save link`,
      schema: 'Resources',
      value: saveLinkPayload(
        type,
        { ...holderObject, groupingInfo: { groupingId: 'bundle-1', sortIndex: 1 } },
        {
          ...holderObject,
          id: `${ISSUER}.b2`,
          groupingInfo: { groupingId: 'bundle-1', sortIndex: 2 },
        },
      ),
    },
    { name: `${name} message`, schema: 'AddMessageRequest', value: { message } },
  ];
}

describe("WalletB payloads against Google's typings (@googleapis/walletobjects)", () => {
  it('type-check for every class type, with excess-property checks that do catch', () => {
    const holder = Object.assign(new Holder(), {
      id: 'holder-1',
      serialNumber: '0123456789abcdef0123456789abcdef',
      status: 'Active',
      fieldValues: { seat: '12C', passenger: 'Maya Rivera', row: 'F', points: '250' },
      barcodeValue: 'HOLDER-1',
      barcodeText: null,
      relevantDate: '2026-07-03T18:00:00+02:00',
      expirationDate: '2026-07-04T04:00:00+02:00',
      // Read on a boarding pass's copy only.
      passengerName: { givenName: 'Maya', familyName: 'Rivera' },
    });
    const passOf = (metadata: Pass['passMetadata']) =>
      Object.assign(new Pass(), {
        id: 'pass-1',
        passName: 'Summer pass',
        status: 'Published',
        deletedTime: null,
        passMetadata: metadata,
        uploadInfoList: [],
      });
    /** Every text of the pass translated: each LocalizedString carries translatedValues. */
    const localizedOf = (metadata: Pass['passMetadata']): Pass['passMetadata'] => {
      const face = [
        ...(metadata.topField ? [metadata.topField] : []),
        ...(metadata.headerFields ?? []),
        ...(metadata.primaryFields ?? []),
        ...(metadata.secondaryFields ?? []),
        ...(metadata.auxiliaryFields ?? []),
      ];
      return {
        ...metadata,
        localizations: {
          de: {
            description: 'Karte',
            organizationName: 'Marke GmbH',
            passName: 'Sommerkarte',
            fields: Object.fromEntries([
              ...face.map((field) => [field.key, { label: 'Feld', value: 'Wert' }]),
              ...(metadata.backFields ?? []).map((field) => [field.key, { label: 'Verweise' }]),
            ]),
          },
        },
      };
    };
    const payloads = KIND_NAMES.flatMap((name) => {
      const fixture = KIND_FIXTURES[name];
      return [
        ...payloadsOf(name, fixture.classType, passOf(fixture.metadata), holder),
        ...payloadsOf(
          `localized ${name}`,
          fixture.classType,
          passOf(localizedOf(fixture.metadata)),
          holder,
        ),
      ];
    });
    // A store card Published before class types existed keeps a generic class.
    payloads.push(
      ...payloadsOf(
        'legacy store card',
        'generic',
        passOf(KIND_FIXTURES.storeCard.metadata),
        holder,
      ),
    );
    // One payload with a property Google does not define: the check must name it.
    const offer = payloads.find((payload) => payload.schema === 'OfferClass')!;
    payloads.push({
      name: 'invented',
      schema: 'OfferClass',
      value: { ...(offer.value as object), inventedProperty: 'x' },
    });

    expect(payloads.filter((payload) => payload.name !== 'invented')).toHaveLength(
      (KIND_NAMES.length * 2 + 1) * 7,
    );
    expect(typeCheckPayloads(payloads)).toEqual([
      expect.stringMatching(
        /^invented: Object literal may only specify known properties, and '"inventedProperty"' does not exist in type 'Schema\$OfferClass'/,
      ),
    ]);
  });
});
