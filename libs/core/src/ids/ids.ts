import { randomFillSync } from 'node:crypto';

let lastMillis = 0;
let sequence = 0;

// Every request and record takes an id: random bytes are drawn 4 KiB at a time rather than
// 18 bytes per id, as node's own randomUUID does.
const POOL_BYTES = 4096;
const pool = Buffer.alloc(POOL_BYTES);
let poolOffset = POOL_BYTES;

/**
 * `length` (at most 4,096) bytes from the CSPRNG, each handed out once, taken from a pool
 * filled 4 KiB at a time: `crypto.randomBytes` of a few bytes costs a call into OpenSSL each
 * (a pass's slug took 15 µs per POST under bench:api's load).
 */
export function pooledRandomBytes(length: number): Buffer {
  if (poolOffset + length > POOL_BYTES) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const slice = Buffer.from(pool.subarray(poolOffset, poolOffset + length));
  poolOffset += length;
  return slice;
}

/**
 * A UUIDv7 (RFC 9562): 48 bits of Unix milliseconds, then a 12-bit counter and random bits.
 * Ids made by one process are strictly increasing, so their text sorts by creation order;
 * lists page on the id alone ("newest first" = id descending) with a keyset cursor.
 */
export function newId(): string {
  let now = Date.now();
  if (now <= lastMillis) {
    sequence += 1;
    if (sequence > 0xfff) {
      // 4096 ids in one millisecond: borrow the next millisecond rather than repeat.
      lastMillis += 1;
      sequence = 0;
    }
    now = lastMillis;
  } else {
    lastMillis = now;
    sequence = pooledRandomBytes(2).readUInt16BE() & 0x3ff; // leave headroom for the counter
  }

  const bytes = pooledRandomBytes(16);
  bytes.writeUIntBE(now, 0, 6);
  bytes[6] = 0x70 | (sequence >> 8);
  bytes[7] = sequence & 0xff;
  bytes[8] = 0x80 | (bytes[8] & 0x3f);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The pattern the spec gives for every id used in a path or query. */
export const ID_PATTERN = /^[a-zA-Z0-9-_]+$/;
