import { readCsvImport, readJsonImport } from './holder-import';

/** Keys named like members of Object.prototype, as attribute keys may be. */
const KEYS = ['constructor', 'valueOf', 'toString', 'hasOwnProperty', 'isPrototypeOf', 'prototype'];

describe('import rows with keys named like members of Object.prototype', () => {
  it('JSON rows keep every attribute and field value key sent', () => {
    const attributes = Object.fromEntries(KEYS.map((key, index) => [key, index]));
    const [row] = readJsonImport(
      JSON.parse(
        JSON.stringify([{ externalId: 'a', attributes, fieldValues: { constructor: '5' } }]),
      ),
    );
    expect(row.input.attributes).toEqual(attributes);
    expect(row.input.fieldValues).toEqual({ constructor: '5' });
  });

  it('reads a row with prototype keys elsewhere as the global pipe reads a body', () => {
    // Its tags are then refused by the tag rules (a 400), not a TypeError (a 500).
    const [row] = readJsonImport([{ externalId: 'a', tags: [{ constructor: 'x' }] }]);
    expect(row.input.tags).toEqual([{}]);
  });

  it('CSV attr.<key> columns and face field columns keep their keys', () => {
    const csv =
      'externalId,attr.constructor,attr.hasOwnProperty,attr.valueOf,constructor,toString\n' +
      'a,x,3,true,7,\n';
    const [row] = readCsvImport(Buffer.from(csv), ['constructor', 'toString']);
    expect(row.input.attributes).toEqual({ constructor: 'x', hasOwnProperty: 3, valueOf: true });
    // An empty field cell is not set: the holder shows the pass's value.
    expect(row.input.fieldValues).toEqual({ constructor: '7' });
  });
});
