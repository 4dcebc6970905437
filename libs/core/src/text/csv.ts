/** One record of a CSV text and the line it starts on (1 = the first line of the text). */
export interface CsvRecord {
  line: number;
  fields: string[];
}

/** The text is not well-formed CSV; `line` is where the problem is. */
export class CsvSyntaxError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(message);
    this.name = 'CsvSyntaxError';
  }
}

const BOM = '\ufeff';

function countNewlines(text: string, from: number, to: number): number {
  let count = 0;
  for (let at = text.indexOf('\n', from); at !== -1 && at < to; at = text.indexOf('\n', at + 1)) {
    count += 1;
  }
  return count;
}

/** Length of the line break at `at` (LF or CRLF), 0 when there is none. */
function lineBreakAt(text: string, at: number): number {
  if (text[at] === '\n') return 1;
  if (text[at] === '\r' && text[at + 1] === '\n') return 2;
  return 0;
}

/**
 * Reads comma-separated text as RFC 4180 describes it, lazily, one record at a time:
 * records end with CRLF or LF; a field in double quotes may hold commas, line breaks and
 * quotes written twice (`""`); a UTF-8 byte-order mark at the start is skipped; line breaks
 * after the last record are allowed, an empty line between records is not. Fields are
 * returned exactly as written (no trimming, no type conversion).
 */
export function* readCsv(text: string): Generator<CsvRecord> {
  const end = text.length;
  let at = text.startsWith(BOM) ? BOM.length : 0;
  let line = 1;

  while (at < end) {
    if (lineBreakAt(text, at) > 0) {
      // An empty line: fine if only line breaks follow, an error otherwise.
      if (/^(\r?\n)*$/.test(text.slice(at))) return;
      throw new CsvSyntaxError(line, 'is empty; remove empty lines between records');
    }

    const record: CsvRecord = { line, fields: [] };
    for (;;) {
      if (text[at] === '"') {
        const opened = line;
        let value = '';
        at += 1;
        for (;;) {
          const quote = text.indexOf('"', at);
          if (quote === -1) {
            throw new CsvSyntaxError(opened, 'has a quoted field that is never closed');
          }
          value += text.slice(at, quote);
          line += countNewlines(text, at, quote);
          at = quote + 1;
          if (text[at] !== '"') break;
          value += '"';
          at += 1;
        }
        if (at < end && text[at] !== ',' && lineBreakAt(text, at) === 0) {
          throw new CsvSyntaxError(
            line,
            'has text after the closing quote of a field; write a quote inside a quoted field as ""',
          );
        }
        record.fields.push(value);
      } else {
        let stop = at;
        while (stop < end && text[stop] !== ',' && text[stop] !== '\n' && text[stop] !== '\r') {
          if (text[stop] === '"') {
            throw new CsvSyntaxError(
              line,
              'has a quote inside an unquoted field; quote the whole field and write the quote as ""',
            );
          }
          stop += 1;
        }
        record.fields.push(text.slice(at, stop));
        at = stop;
      }

      if (at >= end) break;
      if (text[at] === ',') {
        at += 1;
        continue;
      }
      const lineBreak = lineBreakAt(text, at);
      if (lineBreak === 0) {
        throw new CsvSyntaxError(line, 'has a carriage return that does not end the line');
      }
      at += lineBreak;
      line += 1;
      break;
    }
    yield record;
  }
}
