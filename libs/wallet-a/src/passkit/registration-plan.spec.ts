import {
  planRegistrations,
  type DeviceGroup,
  type KnownRegistration,
  type RegistrationRequest,
} from './registration-plan';

const PASS = 'pass-1';
const shared = (device: number, source = '203.0.113.7'): RegistrationRequest => ({
  serialNumber: PASS,
  holderId: null,
  deviceLibraryId: `device-${device}`,
  pushToken: `token-${device}`,
  source,
});
const personal = (device: number, holder = 'h1'): RegistrationRequest => ({
  serialNumber: `serial-${holder}`,
  holderId: holder,
  deviceLibraryId: `device-${device}`,
  pushToken: `token-${device}`,
  source: null,
});
const none = () => 0;
const plenty = () => 1000;

describe('planRegistrations', () => {
  it('stores every new device, counted, under the cap', () => {
    const plan = planRegistrations([shared(1), shared(2), personal(3)], [], none, plenty);
    expect(plan.outcomes).toEqual(['created', 'created', 'created']);
    expect(plan.inserts.map((write) => [write.request.deviceLibraryId, write.counted])).toEqual([
      ['device-1', true],
      ['device-2', true],
      ['device-3', true],
    ]);
    expect(plan.retireOldest).toEqual([]);
  });

  it('tells a repeated device from a returning one', () => {
    const known: KnownRegistration[] = [
      { id: 'r1', serialNumber: PASS, deviceLibraryId: 'device-1', active: true },
      { id: 'r2', serialNumber: PASS, deviceLibraryId: 'device-2', active: false },
    ];
    const plan = planRegistrations([shared(1), shared(2)], known, none, plenty);
    expect(plan.outcomes).toEqual(['existing', 'created']);
    expect(plan.refreshed.map((row) => row.id)).toEqual(['r1']);
    expect(plan.returning.map((row) => [row.id, row.write.counted])).toEqual([['r2', true]]);
    expect(plan.inserts).toEqual([]);
  });

  it('writes a device repeated within the batch once, with its latest push token', () => {
    const again = { ...shared(1), pushToken: 'token-new' };
    const plan = planRegistrations([shared(1), again], [], none, plenty);
    expect(plan.outcomes).toEqual(['created', 'existing']);
    expect(plan.inserts).toHaveLength(1);
    expect(plan.inserts[0].request.pushToken).toBe('token-new');
  });

  it("replaces a full source's oldest devices, and the replacements count for nothing", () => {
    const active = (group: DeviceGroup) => (group.source === '203.0.113.7' ? 4 : 0);
    const cap = () => 5;
    const plan = planRegistrations(
      [shared(1), shared(2), shared(3), shared(4, '198.51.100.1')],
      [],
      active,
      cap,
    );
    expect(plan.outcomes).toEqual(['created', 'created', 'created', 'created']);
    expect(plan.retireOldest).toEqual([
      { group: { serialNumber: PASS, source: '203.0.113.7' }, count: 2 },
    ]);
    expect(plan.inserts.map((write) => [write.counted, write.retired])).toEqual([
      [false, false],
      [false, false],
      [true, false],
      [true, false],
    ]);
  });

  it('keeps only the newest of a batch larger than the cap', () => {
    const requests = Array.from({ length: 7 }, (_, index) => shared(index));
    const plan = planRegistrations(requests, [], none, () => 3);
    expect(plan.retireOldest).toEqual([]);
    expect(plan.inserts.map((write) => [write.counted, write.retired])).toEqual([
      [false, true],
      [false, true],
      [false, true],
      [false, true],
      [true, false],
      [true, false],
      [true, false],
    ]);
  });

  it('bounds a holder copy by its own cap, whatever the source', () => {
    const plan = planRegistrations(
      [personal(1), personal(2), personal(3, 'h2')],
      [],
      (group) => (group.serialNumber === 'serial-h1' ? 2 : 0),
      (group) => (group.source === undefined ? 3 : 1),
    );
    expect(plan.retireOldest).toEqual([{ group: { serialNumber: 'serial-h1' }, count: 1 }]);
    expect(plan.inserts.map((write) => write.counted)).toEqual([false, true, true]);
  });

  it('retires nothing stored for a group already over a lowered cap, beyond its arrivals', () => {
    const plan = planRegistrations(
      [shared(1)],
      [],
      () => 10,
      () => 5,
    );
    expect(plan.retireOldest).toEqual([
      { group: { serialNumber: PASS, source: '203.0.113.7' }, count: 1 },
    ]);
    expect(plan.inserts[0].counted).toBe(false);
  });
});
