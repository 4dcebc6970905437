import { randomFillSync } from 'node:crypto';

/** Ids drawn per call to the random source. */
const IDS_PER_FILL = 256;
const RANDOM_BYTES = 16;
/** `xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx` */
const TEXT_LENGTH = 36;
const DASHES_AFTER_BYTE = new Set([3, 5, 7, 9]);
const HEX_DIGITS = Buffer.from('0123456789abcdef', 'latin1');
const DASH = 0x2d;

/**
 * Version 4 UUIDs for the `apns-id` of each push, each one flat string.
 *
 * `crypto.randomUUID()` joins its id from 20 pieces, so each id is a tree of about 20 strings
 * (some 700 bytes) until it is first read whole; a push keeps its id until APNs answers, long
 * enough in a fan-out for V8 to move the tree to the old generation, where it was the largest
 * single kind of garbage (docs/decisions.md, "What a push leaves behind"). Here the random
 * bytes of 256 ids are drawn at once, as randomUUID does, and written out as text into one
 * buffer; each id is then one string read from it.
 */
export class ApnsIdSource {
  private readonly random = Buffer.alloc(RANDOM_BYTES * IDS_PER_FILL);
  private readonly text = Buffer.alloc(TEXT_LENGTH * IDS_PER_FILL);
  private next = IDS_PER_FILL;

  take(): string {
    if (this.next === IDS_PER_FILL) this.refill();
    const start = this.next++ * TEXT_LENGTH;
    return this.text.toString('latin1', start, start + TEXT_LENGTH);
  }

  private refill(): void {
    randomFillSync(this.random);
    for (let id = 0; id < IDS_PER_FILL; id++) {
      this.write(id * RANDOM_BYTES, id * TEXT_LENGTH);
    }
    this.next = 0;
  }

  /** The 16 bytes at `from` as a UUID's text at `to`, with RFC 9562's version 4 and variant bits. */
  private write(from: number, to: number): void {
    let at = to;
    for (let byte = 0; byte < RANDOM_BYTES; byte++) {
      let value = this.random[from + byte];
      if (byte === 6) value = (value & 0x0f) | 0x40;
      else if (byte === 8) value = (value & 0x3f) | 0x80;
      this.text[at++] = HEX_DIGITS[value >> 4];
      this.text[at++] = HEX_DIGITS[value & 0x0f];
      if (DASHES_AFTER_BYTE.has(byte)) this.text[at++] = DASH;
    }
  }
}
