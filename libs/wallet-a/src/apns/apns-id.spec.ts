import { ApnsIdSource } from './apns-id';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('ApnsIdSource', () => {
  it('gives version 4 UUIDs in canonical lower-case form, all different, across refills', () => {
    const source = new ApnsIdSource();
    const ids = Array.from({ length: 2000 }, () => source.take());
    expect(ids.filter((id) => !UUID_V4.test(id))).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('uses every hex digit in every random position', () => {
    const source = new ApnsIdSource();
    const seen = Array.from({ length: 36 }, () => new Set<string>());
    for (let i = 0; i < 2000; i++) {
      [...source.take()].forEach((char, position) => seen[position].add(char));
    }
    const sizes = seen.map((chars) => chars.size);
    // Dashes and the version digit are fixed; the variant digit is one of 8, 9, a and b.
    expect(sizes).toEqual(
      Array.from({ length: 36 }, (_, position) =>
        [8, 13, 18, 23, 14].includes(position) ? 1 : position === 19 ? 4 : 16,
      ),
    );
  });
});
