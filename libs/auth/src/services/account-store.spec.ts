import { AccountStore } from './account-store';

describe('AccountStore', () => {
  it('offers reads and inserts, and no way to change or drop an account', () => {
    // Its kept default accounts need no invalidation across instances only while nothing here
    // can change one: a method that updates or deletes accounts needs that invalidation first.
    expect(Object.getOwnPropertyNames(AccountStore.prototype).sort()).toEqual([
      'constructor',
      'defaultOf',
      'insert',
      'insertDefault',
      'insertOther',
    ]);
  });
});
