import { createValidationPipe, InvalidInputError } from '@app/core';
import { ListLocationsQuery } from './list-locations.query';
import { LocationDto, LocationIdParam } from './location.dto';

const VALID = { name: 'Store', latitude: 51.5, longitude: -0.12, relevantText: 'Hello' };

function run(metatype: new () => object, value: unknown, type: 'body' | 'query' | 'param') {
  return createValidationPipe().transform(value, { type, metatype }) as Promise<object>;
}

async function contextOf(
  value: unknown,
  metatype: new () => object = LocationDto,
  type: 'body' | 'query' | 'param' = 'body',
): Promise<Record<string, unknown>> {
  try {
    await run(metatype, value, type);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidInputError);
    return (error as InvalidInputError).context ?? {};
  }
  throw new Error('expected validation to fail');
}

describe('LocationDto', () => {
  it('accepts the required fields alone and the optional ones', async () => {
    await expect(run(LocationDto, VALID, 'body')).resolves.toMatchObject(VALID);
    const full = { ...VALID, enabled: false, altitude: -12.5, walletPass: { id: 'abc-1' } };
    await expect(run(LocationDto, full, 'body')).resolves.toMatchObject(full);
    await expect(
      run(LocationDto, { ...VALID, altitude: null, walletPass: null, enabled: null }, 'body'),
    ).resolves.toBeInstanceOf(LocationDto);
  });

  it("uses the spec's messages for missing and empty fields", async () => {
    expect(await contextOf({})).toEqual({
      name: 'must not be null',
      latitude: 'must not be null',
      longitude: 'must not be null',
      relevantText: 'must not be null',
    });
    expect(await contextOf({ ...VALID, name: '', relevantText: '' })).toEqual({
      name: 'must not be empty',
      relevantText: 'must not be empty',
    });
    expect(await contextOf({ ...VALID, walletPass: {} })).toEqual({
      'walletPass.id': 'must not be null',
    });
  });

  it('keeps latitude and longitude on the globe', async () => {
    for (const latitude of [90, -90, 0]) {
      await expect(run(LocationDto, { ...VALID, latitude }, 'body')).resolves.toBeDefined();
    }
    for (const longitude of [180, -180]) {
      await expect(run(LocationDto, { ...VALID, longitude }, 'body')).resolves.toBeDefined();
    }
    expect(Object.keys(await contextOf({ ...VALID, latitude: 90.0001 }))).toEqual(['latitude']);
    expect(Object.keys(await contextOf({ ...VALID, latitude: -91 }))).toEqual(['latitude']);
    expect(Object.keys(await contextOf({ ...VALID, longitude: 181 }))).toEqual(['longitude']);
    expect(Object.keys(await contextOf({ ...VALID, longitude: -180.5 }))).toEqual(['longitude']);
  });

  it('takes numbers and booleans only as JSON numbers and booleans', async () => {
    expect(
      Object.keys(
        await contextOf({
          ...VALID,
          latitude: '12',
          longitude: '1',
          altitude: '3',
          enabled: 'true',
        }),
      ).sort(),
    ).toEqual(['altitude', 'enabled', 'latitude', 'longitude']);
  });

  it('limits name and relevantText to 255 characters', async () => {
    const long = 'x'.repeat(256);
    expect(
      Object.keys(await contextOf({ ...VALID, name: long, relevantText: long })).sort(),
    ).toEqual(['name', 'relevantText']);
    await expect(
      run(LocationDto, { ...VALID, name: 'x'.repeat(255) }, 'body'),
    ).resolves.toBeDefined();
  });

  it('ignores read-only fields sent back and refuses unknown ones', async () => {
    const echoed = {
      ...VALID,
      id: 'x',
      accountId: 'a',
      workspaceId: 'w',
      createdTime: 't',
      updatedTime: 't',
      createdBy: 'u',
      updatedBy: 'u',
    };
    await expect(run(LocationDto, echoed, 'body')).resolves.toBeDefined();
    expect(await contextOf({ ...VALID, radius: 5, walletPass: { id: 'a', name: 'n' } })).toEqual({
      radius: 'is not a known field',
      'walletPass.name': 'is not a known field',
    });
  });

  it('checks the pass id and the path id against the id pattern', async () => {
    expect(Object.keys(await contextOf({ ...VALID, walletPass: { id: 'a b' } }))).toEqual([
      'walletPass.id',
    ]);
    expect(await contextOf({ locationId: 'a/b' }, LocationIdParam, 'param')).toEqual({
      locationId: 'must match ^[a-zA-Z0-9-_]+$',
    });
  });
});

describe('ListLocationsQuery', () => {
  it('reads lists repeated or comma-separated', async () => {
    const query = (await run(
      ListLocationsQuery,
      { passSerialNumbers: ['a', 'b,c'], ids: 'x, y' },
      'query',
    )) as ListLocationsQuery;
    expect(query.passSerialNumbers).toEqual(['a', 'b', 'c']);
    expect(query.ids).toEqual(['x', 'y']);
  });

  it('checks ids, lengths and the page size', async () => {
    expect(
      Object.keys(
        await contextOf(
          {
            passSerialNumbers: 'ok,not ok',
            keyword: 'k'.repeat(256),
            name: 'n'.repeat(256),
            limit: '21',
          },
          ListLocationsQuery,
          'query',
        ),
      ).sort(),
    ).toEqual(['keyword', 'limit', 'name', 'passSerialNumbers']);
  });
});
