import { createValidationPipe } from '@app/core';
import { CreateBulkChangeDto } from './bulk-change.dto';

describe('CreateBulkChangeDto: keys named like Object.prototype members', () => {
  it('keeps every key of set.attributes, set.fieldValues and increment', async () => {
    const sent = {
      holderIds: ['019a2b3c-2222-7f60-8a1b-2c3d4e5f6a7b'],
      set: {
        attributes: { constructor: 'x', toString: null },
        fieldValues: { valueOf: '3' },
      },
      increment: { hasOwnProperty: 1, isPrototypeOf: 2, prototype: 3 },
    };
    const dto = (await createValidationPipe().transform(JSON.parse(JSON.stringify(sent)), {
      type: 'body',
      metatype: CreateBulkChangeDto,
    })) as CreateBulkChangeDto;
    expect(dto.set?.attributes).toEqual(sent.set.attributes);
    expect(dto.set?.fieldValues).toEqual(sent.set.fieldValues);
    expect(dto.increment).toEqual(sent.increment);
  });
});
