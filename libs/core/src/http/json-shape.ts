/** Deeper than any body the API documents (a pass's back-field links are 5 levels deep). */
export const MAX_JSON_DEPTH = 32;

/** How large a JSON text's structure may be. */
export interface JsonShapeLimits {
  /** Arrays and objects nested in one another. */
  maxDepth: number;
  /** Members of any one object. */
  maxKeys: number;
  /** Elements of any one array. */
  maxItems: number;
  /** Object members and array elements in the whole text, at every level. */
  maxValues: number;
}

/** The first limit a text crosses: `path` as validation errors name fields (`a.b[3]`). */
export interface JsonShapeViolation {
  path: string;
  message: string;
}

/** What {@link scanJsonShape} saw, up to where it stopped. */
export interface JsonShape {
  /** Deepest nesting. */
  depth: number;
  /** Most members of one object. */
  keys: number;
  /** Most elements of one array. */
  items: number;
  /** Members and elements in all. */
  values: number;
  /** Set when a limit was crossed; the scan stopped there. */
  violation?: JsonShapeViolation;
}

/** The path of the whole body in a violation. */
export const BODY_PATH = 'body';
/** Keys in a violation's path are cut to this many characters. */
const MAX_PATH_KEY_LENGTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

function isWhitespace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

/** Whether the quote at `index` is escaped: preceded by an odd number of backslashes. */
function isEscaped(text: Buffer, index: number): boolean {
  let backslashes = 0;
  for (let at = index - 1; at >= 0 && text[at] === BACKSLASH; at -= 1) backslashes += 1;
  return backslashes % 2 === 1;
}

/** The index of the quote that closes the string opened at `start`, or -1. */
function closingQuote(text: Buffer, start: number): number {
  let end = text.indexOf(QUOTE, start + 1);
  while (end !== -1 && isEscaped(text, end)) end = text.indexOf(QUOTE, end + 1);
  return end;
}

function keyText(text: Buffer, start: number, end: number): string {
  const raw = text.toString('utf8', start, Math.min(end + 1, start + MAX_PATH_KEY_LENGTH * 6 + 2));
  let key: string;
  try {
    key = JSON.parse(raw.endsWith('"') ? raw : `${raw}"`) as string;
  } catch {
    key = raw.replace(/^"|"$/g, '');
  }
  return key.length > MAX_PATH_KEY_LENGTH ? `${key.slice(0, MAX_PATH_KEY_LENGTH)}…` : key;
}

/**
 * Measures a JSON text's structure in one pass over its bytes, without parsing it, and stops at
 * the first limit crossed: nesting depth, members of one object, elements of one array, and
 * values in all. Brackets, commas and quotes inside strings do not count; a string is skipped
 * with `indexOf` (a base64 upload costs almost nothing). The text need not be valid JSON (the
 * counts of a malformed text are approximate; JSON.parse refuses it afterwards).
 *
 * Run before JSON.parse and class-transformer, so that a body of 200,000 keys or of an array
 * of 200,000 empty objects costs one scan instead of seconds of transformation.
 */
export function scanJsonShape(text: Buffer, limits: JsonShapeLimits): JsonShape {
  const levels = limits.maxDepth + 2;
  // Per nesting level (1 = the outermost container): its kind, members begun so far, and for
  // objects the byte range of the key being read and whether a key comes next.
  const isObject = new Uint8Array(levels);
  const members = new Float64Array(levels);
  const keyStart = new Float64Array(levels);
  const keyEnd = new Float64Array(levels);
  const expectKey = new Uint8Array(levels);

  const shape: JsonShape = { depth: 0, keys: 0, items: 0, values: 0 };
  let depth = 0;

  const pathTo = (level: number): string => {
    let path = '';
    for (let at = 1; at <= level; at += 1) {
      if (isObject[at] === 1) {
        const key = keyText(text, keyStart[at], keyEnd[at]);
        path = path === '' ? key : `${path}.${key}`;
      } else {
        path = `${path}[${Math.max(0, members[at] - 1)}]`;
      }
    }
    return path === '' ? BODY_PATH : path;
  };

  /** A member or element begins in the container at `depth`: false when over a limit. */
  const begin = (): boolean => {
    members[depth] += 1;
    shape.values += 1;
    const count = members[depth];
    if (isObject[depth] === 1) {
      if (count > shape.keys) shape.keys = count;
      if (count > limits.maxKeys) {
        shape.violation = {
          path: pathTo(depth - 1),
          message: `must have at most ${limits.maxKeys} fields`,
        };
        return false;
      }
    } else {
      if (count > shape.items) shape.items = count;
      if (count > limits.maxItems) {
        shape.violation = {
          path: pathTo(depth - 1),
          message: `must have at most ${limits.maxItems} elements`,
        };
        return false;
      }
    }
    if (shape.values > limits.maxValues) {
      shape.violation = {
        path: BODY_PATH,
        message: `must hold at most ${limits.maxValues} values in all`,
      };
      return false;
    }
    return true;
  };

  for (let index = 0; index < text.length; index += 1) {
    const byte = text[index];
    if (byte === QUOTE) {
      const end = closingQuote(text, index);
      if (depth > 0) {
        if (members[depth] === 0 && !begin()) return shape;
        if (expectKey[depth] === 1) {
          keyStart[depth] = index;
          keyEnd[depth] = end === -1 ? text.length - 1 : end;
          expectKey[depth] = 0;
        }
      }
      if (end === -1) break;
      index = end;
    } else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
      if (depth > 0 && members[depth] === 0 && !begin()) return shape;
      depth += 1;
      if (depth > shape.depth) shape.depth = depth;
      if (depth > limits.maxDepth) {
        shape.violation = {
          path: BODY_PATH,
          message: `is nested deeper than ${limits.maxDepth} levels`,
        };
        return shape;
      }
      isObject[depth] = byte === OPEN_OBJECT ? 1 : 0;
      expectKey[depth] = isObject[depth];
      members[depth] = 0;
    } else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) {
      if (depth > 0) depth -= 1;
    } else if (byte === COMMA) {
      if (depth > 0) {
        if (!begin()) return shape;
        if (isObject[depth] === 1) expectKey[depth] = 1;
      }
    } else if (byte !== COLON && !isWhitespace(byte)) {
      // A number or literal: it begins a member only as an array's first element.
      if (depth > 0 && members[depth] === 0 && !begin()) return shape;
    }
  }
  return shape;
}
