import { createValidationPipe } from '@app/core';
import { HolderInputDto, validateHolderInput } from './holder-input.dto';

/** Every attribute key that names a member of Object.prototype, and `prototype`. */
const KEYS = [
  ...Object.getOwnPropertyNames(Object.prototype).filter((key) => /^[A-Za-z]/.test(key)),
  'prototype',
];

const body = {
  externalId: 'member-1',
  attributes: Object.fromEntries(KEYS.map((key, index) => [key, `v${index}`])),
  fieldValues: { constructor: '10', __defineGetter__: 'x' },
};

describe('HolderInputDto: attribute and field value keys named like Object.prototype members', () => {
  it('keeps every key through the global pipe', async () => {
    const input = (await createValidationPipe().transform(JSON.parse(JSON.stringify(body)), {
      type: 'body',
      metatype: HolderInputDto,
    })) as HolderInputDto;
    expect(Object.keys(input.attributes!)).toEqual(KEYS);
    expect(input.attributes).toEqual(body.attributes);
    expect(input.fieldValues).toEqual(body.fieldValues);
  });

  it('keeps every key of an import row', () => {
    const result = validateHolderInput(JSON.parse(JSON.stringify(body)));
    if (result.errors !== undefined) throw new Error(JSON.stringify(result.errors));
    expect(result.input.attributes).toEqual(body.attributes);
    expect(result.input.fieldValues).toEqual(body.fieldValues);
  });
});
