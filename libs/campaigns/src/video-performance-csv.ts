import { CsvSyntaxError, InvalidInputError, readCsv, type CsvRecord } from '@app/core';
import {
  MAX_IMPORT_RECORDS,
  REQUIRED_VIDEO_PERFORMANCE_FIELDS,
  VIDEO_PERFORMANCE_COUNTS,
  VIDEO_PERFORMANCE_FIELDS,
  validateVideoPerformance,
  type VideoPerformanceField,
  type VideoPerformanceInputDto,
} from './dto/video-performance.dto';

/** Failures listed at most; the rest of a bad file is not reported. */
const MAX_REPORTED_ERRORS = 20;

const utf8 = new TextDecoder('utf-8', { fatal: true });
const COUNT_FIELDS: readonly string[] = VIDEO_PERFORMANCE_COUNTS;
const INTEGER = /^[+-]?\d+$/;

/** `line N` of the file's CSV text: the header is line 1. */
const lineKey = (field: string, line: number) => `${field}.line ${line}`;

function decode(bytes: Buffer, field: string): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new InvalidInputError({ [field]: 'is not UTF-8 text' });
  }
}

/** Header names → column positions; unknown, repeated and missing required columns refused. */
function readHeader(header: CsvRecord, field: string): Map<VideoPerformanceField, number> {
  const byLowerName = new Map(VIDEO_PERFORMANCE_FIELDS.map((name) => [name.toLowerCase(), name]));
  const columns = new Map<VideoPerformanceField, number>();
  const errors: Record<string, string> = {};
  const at = lineKey(field, header.line);
  header.fields.forEach((raw, index) => {
    const text = raw.trim();
    const name = byLowerName.get(text.toLowerCase());
    if (name === undefined) {
      errors[`${at}.${text === '' ? `column ${index + 1}` : text}`] =
        `is not a known column; the columns are ${VIDEO_PERFORMANCE_FIELDS.join(',')}`;
    } else if (columns.has(name)) {
      errors[`${at}.${name}`] = 'appears more than once';
    } else {
      columns.set(name, index);
    }
  });
  for (const name of REQUIRED_VIDEO_PERFORMANCE_FIELDS) {
    if (!columns.has(name)) errors[`${at}.${name}`] = 'is a required column';
  }
  if (Object.keys(errors).length > 0) throw new InvalidInputError(errors);
  return columns;
}

/**
 * The record a CSV line describes, as JSON would carry it: cells trimmed, an empty cell of an
 * optional column left out, integers as numbers (anything else stays text and fails validation).
 */
function toPlainRecord(
  record: CsvRecord,
  columns: Map<VideoPerformanceField, number>,
): Record<string, unknown> {
  const plain: Record<string, unknown> = {};
  for (const [name, index] of columns) {
    const cell = record.fields[index].trim();
    const required = REQUIRED_VIDEO_PERFORMANCE_FIELDS.includes(name);
    if (cell === '' && !required) continue;
    plain[name] = COUNT_FIELDS.includes(name) && INTEGER.test(cell) ? Number(cell) : cell;
  }
  return plain;
}

/**
 * Reads the video-performance records of an uploaded CSV file: UTF-8,
 * comma-separated, a header with the record's field names in any order (case ignored), one
 * record a line, quoted fields as RFC 4180. Every line is checked as a JSON record would be;
 * any failure throws an {@link InvalidInputError} keyed `<field>.line <n>[.<column>]`, the
 * header being line 1, and nothing is returned. `field` is the campaign field that names the file.
 */
export function readVideoPerformanceCsv(bytes: Buffer, field: string): VideoPerformanceInputDto[] {
  const records: VideoPerformanceInputDto[] = [];
  const errors: Record<string, string> = {};
  let failures = 0;
  try {
    const lines = readCsv(decode(bytes, field));
    const first = lines.next();
    if (first.done === true) {
      throw new InvalidInputError({ [field]: 'has no header row' });
    }
    const columns = readHeader(first.value, field);
    for (const line of lines) {
      if (records.length + failures >= MAX_IMPORT_RECORDS) {
        throw new InvalidInputError({
          [field]: `has more than ${MAX_IMPORT_RECORDS} records; split it into several files`,
        });
      }
      const at = lineKey(field, line.line);
      if (line.fields.length !== columns.size) {
        errors[at] = `has ${line.fields.length} fields; the header has ${columns.size}`;
        failures += 1;
      } else {
        const result = validateVideoPerformance(toPlainRecord(line, columns), at);
        if (result.errors === undefined) {
          records.push(result.record);
        } else {
          Object.assign(errors, result.errors);
          failures += 1;
        }
      }
      if (failures >= MAX_REPORTED_ERRORS) break;
    }
  } catch (error) {
    if (!(error instanceof CsvSyntaxError)) throw error;
    errors[lineKey(field, error.line)] = error.message;
  }
  if (Object.keys(errors).length > 0) throw new InvalidInputError(errors);
  return records;
}
