import { SerialOwners } from './serial-owners';

describe('SerialOwners', () => {
  it('offers reads and a token set once, and no way to change or drop an owner', () => {
    // Its kept owners need no invalidation across instances only while nothing here can change
    // one: a method that replaces a token or moves a serial needs that invalidation first.
    expect(Object.getOwnPropertyNames(SerialOwners.prototype).sort()).toEqual([
      'constructor',
      'issue',
      'ownerOf',
    ]);
  });
});
