import { ID_PATTERN, newId, pooledRandomBytes } from './ids';

describe('newId', () => {
  it('makes RFC 9562 version-7 UUIDs that match the spec id pattern', () => {
    const id = newId();
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(ID_PATTERN.test(id)).toBe(true);
  });

  it('carries the creation time in its first 48 bits', () => {
    const before = Date.now();
    const id = newId();
    const millis = parseInt(id.replace(/-/g, '').slice(0, 12), 16);
    expect(millis).toBeGreaterThanOrEqual(before);
    expect(millis).toBeLessThanOrEqual(Date.now() + 1);
  });

  it('is strictly increasing as text within a process, even within one millisecond', () => {
    const ids = Array.from({ length: 20000 }, () => newId());
    for (let i = 1; i < ids.length; i++) expect(ids[i] > ids[i - 1]).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('pooledRandomBytes', () => {
  it('hands out each byte once, across refills of the pool', () => {
    // 600 draws of 20 bytes cross the 4 KiB pool's end twice; no two draws may be the same.
    const draws = Array.from({ length: 600 }, () => pooledRandomBytes(20).toString('hex'));
    expect(draws.every((hex) => hex.length === 40)).toBe(true);
    expect(new Set(draws).size).toBe(draws.length);
  });

  it('gives copies: changing one leaves the next draws alone', () => {
    const first = pooledRandomBytes(16);
    first.fill(0);
    expect(pooledRandomBytes(16).equals(Buffer.alloc(16))).toBe(false);
  });
});
