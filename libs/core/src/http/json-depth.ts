/** Deeper than any body the API documents (a pass's back-field links are 5 levels deep). */
export const MAX_JSON_DEPTH = 32;

/**
 * How deeply the arrays and objects of a JSON text nest, without parsing it. Brackets inside
 * strings do not count.
 */
export function jsonNestingDepth(text: Buffer): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const byte = text[index];
    if (inString) {
      if (byte === 0x5c)
        index += 1; // backslash: skip the escaped character
      else if (byte === 0x22) inString = false;
    } else if (byte === 0x22) {
      inString = true;
    } else if (byte === 0x7b || byte === 0x5b) {
      depth += 1;
      if (depth > deepest) deepest = depth;
    } else if (byte === 0x7d || byte === 0x5d) {
      depth -= 1;
    }
  }
  return deepest;
}

/**
 * The JSON body parser's `verify` hook: a body nested deeper than {@link MAX_JSON_DEPTH} is a
 * 400, before the validation pipe's recursive transform overflows the stack on it (a 500).
 * body-parser wraps what this throws (type `entity.verify.failed`, status 400); the exception
 * filter turns that into INVALID_INPUT. A plain Error: body-parser sets `status` on it.
 */
export function rejectDeeplyNestedJson(_request: unknown, _response: unknown, body: Buffer): void {
  if (jsonNestingDepth(body) > MAX_JSON_DEPTH) {
    throw Object.assign(new Error(`Request body is nested deeper than ${MAX_JSON_DEPTH} levels`), {
      status: 400,
    });
  }
}
