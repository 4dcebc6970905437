import {
  CsvSyntaxError,
  InvalidInputError,
  MalformedRequestError,
  readCsv,
  type CsvRecord,
} from '@app/core';
import { ATTRIBUTE_KEY_PATTERN } from './holder-targeting';
import { validateHolderInput, type HolderInputDto } from './holder-input.dto';

/** Rows one import takes at most; more is a 400, nothing written. */
export const MAX_IMPORT_ROWS = 10_000;

/** Problems listed at most; a file with thousands of bad rows still answers a short 400. */
const MAX_REPORTED_ROWS = 50;

/** The CSV columns every import may have besides one column per field key. */
export const CSV_FIXED_COLUMNS = [
  'externalId',
  'barcodeValue',
  'barcodeText',
  'relevantDate',
  'expirationDate',
  'nfcMessage',
] as const;

/** The CSV columns of a boarding pass holder's `passengerName`, by its property. */
export const CSV_PASSENGER_COLUMNS = {
  'passengerName.givenName': 'givenName',
  'passengerName.familyName': 'familyName',
} as const;
type PassengerColumn = keyof typeof CSV_PASSENGER_COLUMNS;
const isPassengerColumn = (name: string): name is PassengerColumn =>
  Object.prototype.hasOwnProperty.call(CSV_PASSENGER_COLUMNS, name);

/** The CSV column of a holder's tags, separated by `|` in a cell. */
export const CSV_TAGS_COLUMN = 'tags';
/** A CSV column `attr.<key>` holds the attribute `<key>`. */
export const CSV_ATTRIBUTE_PREFIX = 'attr.';

/** A JSON number, as a cell of an attribute column may hold one. */
const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/**
 * An attribute cell's value: a JSON number is a number, `true`/`false` a
 * boolean, an empty cell no value (null: the key is removed), anything else the text itself.
 */
export function attributeCell(cell: string): string | number | boolean | null {
  if (cell === '') return null;
  if (cell === 'true' || cell === 'false') return cell === 'true';
  if (JSON_NUMBER.test(cell)) {
    const number = Number(cell);
    if (Number.isFinite(number)) return number;
  }
  return cell;
}

/**
 * One row of an import and how its problems are told: JSON rows as `"<index>.<field>"`, CSV
 * rows as `"line <n>"` (the header is line 1) with the field named in the message.
 */
export interface ImportRow {
  input: HolderInputDto;
  problem(field: string, message: string): [key: string, message: string];
}

const jsonProblem =
  (index: number) =>
  (field: string, message: string): [string, string] => [
    field === '' ? String(index) : `${index}.${field}`,
    message,
  ];

const csvProblem =
  (line: number) =>
  (field: string, message: string): [string, string] => [
    `line ${line}`,
    field === '' ? message : `${field} ${message}`,
  ];

/** Adds a row's problems to `into`, the first one per key winning (a CSV line has one key). */
function collect(
  into: Record<string, string>,
  problem: ImportRow['problem'],
  errors: Record<string, string>,
): void {
  for (const [field, message] of Object.entries(errors)) {
    const [key, text] = problem(field, message);
    into[key] ??= text;
  }
}

function tooMany(rows: string): never {
  throw new MalformedRequestError(
    `The import has ${rows} rows; an import takes at most ${MAX_IMPORT_ROWS}: split it into several`,
    { limit: MAX_IMPORT_ROWS },
  );
}

/** A JSON import body: an array of HolderInput, every row checked before any is used. */
export function readJsonImport(body: unknown): ImportRow[] {
  if (!Array.isArray(body)) {
    throw new MalformedRequestError(
      'The body must be a JSON array of HolderInput, or a multipart form with a CSV `file`',
    );
  }
  if (body.length > MAX_IMPORT_ROWS) tooMany(String(body.length));
  const rows: ImportRow[] = [];
  const errors: Record<string, string> = {};
  let failures = 0;
  body.forEach((plain: unknown, index) => {
    if (failures >= MAX_REPORTED_ROWS) return;
    const result = validateHolderInput(plain);
    if (result.errors === undefined) {
      rows.push({ input: result.input, problem: jsonProblem(index) });
    } else {
      collect(errors, jsonProblem(index), result.errors);
      failures += 1;
    }
  });
  if (failures > 0) throw new InvalidInputError(errors);
  return rows;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Column positions by name; unknown, repeated and a missing externalId column refused. */
function readHeader(header: CsvRecord, fieldKeys: readonly string[]): Map<string, number> {
  const known = new Set<string>([
    ...CSV_FIXED_COLUMNS,
    ...Object.keys(CSV_PASSENGER_COLUMNS),
    CSV_TAGS_COLUMN,
    ...fieldKeys,
  ]);
  const columns = new Map<string, number>();
  const problems: string[] = [];
  header.fields.forEach((raw, index) => {
    const name = raw.trim();
    if (!known.has(name) && !name.startsWith(CSV_ATTRIBUTE_PREFIX)) {
      problems.push(
        `column ${index + 1} (${JSON.stringify(name)}) is not one of ${[...known].join(',')} or attr.<key>`,
      );
    } else if (
      name.startsWith(CSV_ATTRIBUTE_PREFIX) &&
      !ATTRIBUTE_KEY_PATTERN.test(name.slice(CSV_ATTRIBUTE_PREFIX.length))
    ) {
      problems.push(`column ${name}: attribute keys must match ${ATTRIBUTE_KEY_PATTERN.source}`);
    } else if (columns.has(name)) {
      problems.push(`column ${name} appears more than once`);
    } else {
      columns.set(name, index);
    }
  });
  if (!columns.has('externalId')) problems.push('has no externalId column');
  if (problems.length > 0) throw new InvalidInputError({ 'line 1': problems.join('; ') });
  return columns;
}

/**
 * A CSV line as the JSON row it stands for: cells trimmed, an empty cell not set. Field values
 * and attributes are gathered as entries: their keys are the file's (a face field may be keyed
 * `constructor`), never assigned into an object.
 */
function toPlainRow(record: CsvRecord, columns: Map<string, number>): Record<string, unknown> {
  const plain: Record<string, unknown> = {};
  const fieldValues: [string, string][] = [];
  const attributes: [string, unknown][] = [];
  const passengerName: Record<string, string> = {};
  for (const [name, index] of columns) {
    const cell = record.fields[index].trim();
    if (name === CSV_TAGS_COLUMN) {
      // The cell lists the holder's tags: an empty one, none.
      plain.tags = cell === '' ? [] : cell.split('|').map((tag) => tag.trim());
    } else if (name.startsWith(CSV_ATTRIBUTE_PREFIX)) {
      attributes.push([name.slice(CSV_ATTRIBUTE_PREFIX.length), attributeCell(cell)]);
    } else if (cell === '') {
      continue;
    } else if (isPassengerColumn(name)) {
      passengerName[CSV_PASSENGER_COLUMNS[name]] = cell;
    } else if ((CSV_FIXED_COLUMNS as readonly string[]).includes(name)) {
      plain[name] = cell;
    } else {
      fieldValues.push([name, cell]);
    }
  }
  if (fieldValues.length > 0) plain.fieldValues = Object.fromEntries(fieldValues);
  if (attributes.length > 0) plain.attributes = Object.fromEntries(attributes);
  // Either name alone is a row's problem (the other one "must not be null").
  if (Object.keys(passengerName).length > 0) plain.passengerName = passengerName;
  return plain;
}

/**
 * A CSV import file (UTF-8, RFC 4180, header `externalId` plus any of `barcodeValue`,
 * `barcodeText`, `relevantDate`, `expirationDate`, `nfcMessage`, `passengerName.givenName` and
 * `passengerName.familyName` (a boarding pass's holders), `tags` (separated by `|`), one column per
 * field key of the pass and one `attr.<key>` per attribute, in any order; only `externalId` is
 * required). Every line
 * is checked as a JSON row would be; any problem is a 400 keyed `"line <n>"`.
 */
export function readCsvImport(bytes: Buffer, fieldKeys: readonly string[]): ImportRow[] {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new InvalidInputError({ file: 'is not UTF-8 text' });
  }
  const rows: ImportRow[] = [];
  const errors: Record<string, string> = {};
  let failures = 0;
  try {
    const lines = readCsv(text);
    const first = lines.next();
    if (first.done === true) throw new InvalidInputError({ file: 'has no header line' });
    const columns = readHeader(first.value, fieldKeys);
    const width = first.value.fields.length;
    for (const record of lines) {
      if (rows.length + failures >= MAX_IMPORT_ROWS) tooMany(`more than ${MAX_IMPORT_ROWS}`);
      const problem = csvProblem(record.line);
      if (record.fields.length !== width) {
        collect(errors, problem, {
          '': `has ${record.fields.length} cells; the header has ${width}`,
        });
        failures += 1;
      } else {
        const result = validateHolderInput(toPlainRow(record, columns));
        if (result.errors === undefined) {
          rows.push({ input: result.input, problem });
        } else {
          collect(errors, problem, result.errors);
          failures += 1;
        }
      }
      if (failures >= MAX_REPORTED_ROWS) break;
    }
  } catch (error) {
    if (!(error instanceof CsvSyntaxError)) throw error;
    errors[`line ${error.line}`] = error.message;
  }
  if (Object.keys(errors).length > 0) throw new InvalidInputError(errors);
  return rows;
}
