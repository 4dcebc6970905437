import { InFlight, InFlightList } from './in-flight-list';

describe('InFlightList', () => {
  const entries = (deadlines: number[], expired: number[]) =>
    deadlines.map((deadline) => new InFlight(deadline, () => expired.push(deadline)));

  it('times out, oldest first, the entries that are due, and stops at the first in time', () => {
    const expired: number[] = [];
    const list = new InFlightList();
    const [first, second, third] = entries([10, 20, 30], expired);
    for (const entry of [first, second, third]) list.add(entry);

    list.expireDue(20);

    expect(expired).toEqual([10, 20]);
    expect(list.size).toBe(1);
    expect(third.listed).toBe(true);
    list.expireDue(29);
    expect(expired).toEqual([10, 20]);
  });

  it('unlinks an entry from the head, the middle or the tail, and drops its expire', () => {
    for (const removedAt of [0, 1, 2]) {
      const expired: number[] = [];
      const list = new InFlightList();
      const all = entries([1, 2, 3], expired);
      for (const entry of all) list.add(entry);

      list.remove(all[removedAt]);

      expect(list.size).toBe(2);
      expect(all[removedAt]).toMatchObject({ listed: false, previous: null, next: null });
      expect(all[removedAt].expire).toBeNull();
      list.expireDue(3);
      expect(expired).toEqual([1, 2, 3].filter((_, n) => n !== removedAt));
      expect(list.size).toBe(0);
    }
  });

  it('lets an expire remove its own entry (a push settling on its timeout) and others', () => {
    const list = new InFlightList();
    const later = new InFlight(50, () => undefined);
    const calls: string[] = [];
    const due: InFlight = new InFlight(5, () => {
      calls.push('due');
      list.remove(due);
      list.remove(later);
    });
    list.add(due);
    list.add(later);

    list.expireDue(10);
    list.expireDue(100);

    expect(calls).toEqual(['due']);
    expect(list.size).toBe(0);
  });

  it('adds an entry once and removes it once', () => {
    const list = new InFlightList();
    const entry = new InFlight(1, () => undefined);

    list.add(entry);
    list.add(entry);
    expect(list.size).toBe(1);
    list.remove(entry);
    list.remove(entry);
    expect(list.size).toBe(0);
  });
});
