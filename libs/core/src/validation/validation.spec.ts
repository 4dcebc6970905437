import { Type } from 'class-transformer';
import { IsArray, IsOptional, IsString, Matches, ValidateNested } from 'class-validator';
import { InvalidInputError } from '../errors/domain-errors';
import { createValidationPipe, isPaddedBase64, NotEmpty, QueryList, Required } from './validation';

class Field {
  @Required() @IsString() @NotEmpty() key!: string;
  @IsOptional()
  @Matches(/^#[0-9A-Fa-f]{6}$/, { message: 'must be a #RRGGBB colour' })
  colour?: string;
}

class Body {
  @Required() @IsString() @NotEmpty() name!: string;
  @Required() @ValidateNested() @Type(() => Field) top!: Field;
  @IsArray() @ValidateNested({ each: true }) @Type(() => Field) list: Field[] = [];
}

class Query {
  @QueryList() @IsString({ each: true }) status?: string[];
}

async function validate(
  metatype: new () => unknown,
  value: unknown,
  type: 'body' | 'query' = 'body',
) {
  return createValidationPipe().transform(value, { type, metatype });
}

async function contextOf(value: unknown): Promise<Record<string, unknown>> {
  try {
    await validate(Body, value);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidInputError);
    return (error as InvalidInputError).context ?? {};
  }
  throw new Error('expected validation to fail');
}

describe('validation', () => {
  it("uses the spec's messages for missing and empty values", async () => {
    expect(await contextOf({ name: '', top: { key: 'k' } })).toEqual({ name: 'must not be empty' });
    expect(await contextOf({ top: { key: 'k' } })).toEqual({ name: 'must not be null' });
    expect(await contextOf({ name: null, top: { key: 'k' } })).toEqual({
      name: 'must not be null',
    });
  });

  it('keys nested failures by field path, with array indexes', async () => {
    expect(
      await contextOf({
        name: 'n',
        top: { key: 'k', colour: 'red' },
        list: [{ key: 'a' }, { key: '' }],
      }),
    ).toEqual({ 'top.colour': 'must be a #RRGGBB colour', 'list[1].key': 'must not be empty' });
  });

  it('rejects unknown fields, also nested ones', async () => {
    expect(await contextOf({ name: 'n', top: { key: 'k', extra: 1 }, nmae: 'x' })).toEqual({
      nmae: 'is not a known field',
      'top.extra': 'is not a known field',
    });
  });

  it('accepts repeated and comma-separated list parameters alike', async () => {
    const repeated = (await validate(Query, { status: ['Draft', 'Published'] }, 'query')) as Query;
    const commas = (await validate(Query, { status: 'Draft, Published' }, 'query')) as Query;
    expect(repeated.status).toEqual(['Draft', 'Published']);
    expect(commas.status).toEqual(['Draft', 'Published']);
  });

  it('checks padded base64 in one pass, also at file size', () => {
    expect(isPaddedBase64('aGk=')).toBe(true);
    expect(isPaddedBase64('aA==')).toBe(true);
    expect(isPaddedBase64('aGk')).toBe(false);
    expect(isPaddedBase64('a=Gk')).toBe(false);
    expect(isPaddedBase64('====')).toBe(false);
    expect(isPaddedBase64('aGé=')).toBe(false);
    expect(isPaddedBase64('a-_k')).toBe(false);
    // 14 M characters: what a regular expression's backtracking stack could not take.
    expect(isPaddedBase64(Buffer.alloc(10 * 1024 * 1024, 7).toString('base64'))).toBe(true);
  });
});
