import { IsArray, IsObject, IsOptional, validateSync } from 'class-validator';
import { InvalidInputError } from '../errors/domain-errors';
import { FreeForm, freeFormValue, plainToDto, stripPrototypeKeys } from './free-form';
import { createValidationPipe, NestedObject } from './validation';

/** Every name of a member of Object.prototype (but `__proto__`, below), and `prototype`. */
const HOSTILE_KEYS = [
  ...Object.getOwnPropertyNames(Object.prototype).filter((key) => key !== '__proto__'),
  'prototype',
];

class Inner {
  @IsOptional() @IsObject() @FreeForm() values?: Record<string, unknown>;
}

class Body {
  @IsOptional() @IsObject() @FreeForm() record?: Record<string, unknown> | null;
  @IsOptional() @NestedObject(() => Inner) inner?: Inner;
  @IsOptional() @IsArray() list?: unknown[];
}

const parsed = (json: string): unknown => JSON.parse(json);

async function piped(value: unknown): Promise<Body> {
  return (await createValidationPipe().transform(value, {
    type: 'body',
    metatype: Body,
  })) as Body;
}

describe('free-form values', () => {
  it('covers the keys of Object.prototype', () => {
    expect(HOSTILE_KEYS).toEqual(
      expect.arrayContaining([
        '__defineGetter__',
        'constructor',
        'valueOf',
        'toString',
        'hasOwnProperty',
        'isPrototypeOf',
        'propertyIsEnumerable',
        'toLocaleString',
        'prototype',
      ]),
    );
  });

  it('keeps every key sent through the global pipe, in order, at any depth', async () => {
    const sent = Object.fromEntries(HOSTILE_KEYS.map((key, index) => [key, `v${index}`]));
    const body = await piped({
      record: { first: 1, ...sent, last: true },
      inner: { values: { ...sent, nested: { constructor: 'deep', valueOf: 2 } } },
    });
    expect(Object.keys(body.record!)).toEqual(['first', ...HOSTILE_KEYS, 'last']);
    expect(body.record).toEqual({ first: 1, ...sent, last: true });
    expect(body.inner!.values).toEqual({ ...sent, nested: { constructor: 'deep', valueOf: 2 } });
    for (const key of HOSTILE_KEYS) expect(Object.hasOwn(body.record!, key)).toBe(true);
    expect(Object.getPrototypeOf(body.record)).toBe(Object.prototype);
  });

  it('keeps __proto__ an own key of the copy, for the rules to refuse, and pollutes nothing', async () => {
    const body = await piped(parsed('{"record": {"__proto__": {"polluted": true}, "a": 1}}'));
    expect(Object.keys(body.record!)).toEqual(['__proto__', 'a']);
    expect(Object.getPrototypeOf(body.record)).toBe(Object.prototype);
    expect((body.record as { polluted?: unknown }).polluted).toBeUndefined();
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it("still refuses what is no object, and leaves the DTO's other checks as they were", async () => {
    for (const record of ['text', 3, ['a']]) {
      await expect(piped({ record })).rejects.toBeInstanceOf(InvalidInputError);
    }
    expect((await piped({ record: null })).record).toBeNull();
    await expect(piped({ record: {}, unknown: 1 })).rejects.toBeInstanceOf(InvalidInputError);
  });

  it('takes prototype keys out of the objects of the rest of the body', async () => {
    // class-transformer would take an own `constructor` for the class of the object (a 500).
    const body = await piped({ list: [{ constructor: 'x', a: 1 }, { prototype: 1 }] });
    expect(body.list).toEqual([{ a: 1 }, {}]);
  });

  it('makes a DTO of a row outside the pipe the same way (an import row)', () => {
    const row = parsed(
      '{"record": {"constructor": "x", "valueOf": 1}, "list": [{"constructor": "y"}]}',
    ) as object;
    const dto = plainToDto(Body, row);
    expect(dto).toBeInstanceOf(Body);
    expect(dto.record).toEqual({ constructor: 'x', valueOf: 1 });
    expect(dto.list).toEqual([{}]);
    expect(validateSync(dto, { whitelist: true, forbidNonWhitelisted: true })).toEqual([]);
  });

  it('copies a value as it was before the strip, sparing the objects of other requests', () => {
    const value = { constructor: 'x', items: [{ prototype: 1, b: 2 }] };
    stripPrototypeKeys(value);
    expect(value).toEqual({ items: [{ b: 2 }] });
    expect(freeFormValue(value)).toEqual({ constructor: 'x', items: [{ prototype: 1, b: 2 }] });
    expect(freeFormValue({ untouched: { a: 1 } })).toEqual({ untouched: { a: 1 } });
    expect(freeFormValue('text')).toBe('text');
    expect(freeFormValue(null)).toBeNull();
  });
});
