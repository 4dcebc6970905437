/** One device asking Apple's web service to be told of a pass's (or a holder's copy's) changes. */
export interface RegistrationRequest {
  serialNumber: string;
  /** The holder whose copy it is; null: the shared pass. */
  holderId: string | null;
  deviceLibraryId: string;
  pushToken: string;
  /** `registrationSource` of the client, for the shared pass; null for a holder's copy. */
  source: string | null;
}

/** A stored registration of one of the requests' (serial number, device) pairs. */
export interface KnownRegistration {
  id: string;
  serialNumber: string;
  deviceLibraryId: string;
  active: boolean;
}

/**
 * Registrations that keep a bounded number of active devices together: a source's of the shared
 * pass, or one holder's copy's.
 */
export interface DeviceGroup {
  serialNumber: string;
  /** The source, for the shared pass; undefined: every device of the serial number. */
  source?: string;
}

export interface PlannedWrite<T extends RegistrationRequest = RegistrationRequest> {
  request: T;
  /** Counted as a device that holds the pass now (false: it replaced an older one). */
  counted: boolean;
  /** Stored already replaced: the batch brought more devices of its group than the cap. */
  retired: boolean;
}

export interface RegistrationPlan<T extends RegistrationRequest = RegistrationRequest> {
  /** Per request, in order: 201 for a device new (or back) on the serial, else 200. */
  outcomes: ('created' | 'existing')[];
  inserts: PlannedWrite<T>[];
  /** Removed registrations the device comes back to. */
  returning: { id: string; write: PlannedWrite<T> }[];
  /** Active registrations the device repeats (a new push token, say). */
  refreshed: { id: string; request: T }[];
  /** How many of a group's oldest active registrations the batch's newer devices replace. */
  retireOldest: { group: DeviceGroup; count: number }[];
}

const pairKey = (serialNumber: string, deviceLibraryId: string) =>
  `${serialNumber}\n${deviceLibraryId}`;

export const groupOf = (request: RegistrationRequest): DeviceGroup =>
  request.holderId === null
    ? { serialNumber: request.serialNumber, source: request.source ?? '' }
    : { serialNumber: request.serialNumber };

/** A group's key in maps. */
export const groupKey = (group: DeviceGroup): string =>
  group.source === undefined
    ? `h\n${group.serialNumber}`
    : `s\n${group.serialNumber}\n${group.source}`;

/**
 * What a batch of registrations of one pass writes, decided in memory from what is stored.
 * A device is never refused: every request is stored. What bounds the public token of the
 * shared pass is the cap on a group's active devices (`capOf`): past it, newer devices replace
 * the group's oldest, and those replacements move no counter, so one source inflates a pass's
 * counters by at most its cap.
 *
 * @param known the stored registrations of the requests' (serial number, device) pairs
 * @param activeIn how many active registrations a group has now
 */
export function planRegistrations<T extends RegistrationRequest>(
  requests: readonly T[],
  known: readonly KnownRegistration[],
  activeIn: (group: DeviceGroup) => number,
  capOf: (group: DeviceGroup) => number,
): RegistrationPlan<T> {
  const stored = new Map(known.map((row) => [pairKey(row.serialNumber, row.deviceLibraryId), row]));
  const plan: RegistrationPlan<T> = {
    outcomes: [],
    inserts: [],
    returning: [],
    refreshed: [],
    retireOldest: [],
  };
  // A device repeated within the batch is written once, with its latest push token.
  const latest = new Map<string, T>();
  for (const request of requests) {
    latest.set(pairKey(request.serialNumber, request.deviceLibraryId), request);
  }
  const arriving = new Map<string, { group: DeviceGroup; writes: PlannedWrite<T>[] }>();
  const seen = new Set<string>();
  for (const request of requests) {
    const key = pairKey(request.serialNumber, request.deviceLibraryId);
    if (seen.has(key)) {
      plan.outcomes.push('existing');
      continue;
    }
    seen.add(key);
    const row = stored.get(key);
    const write = latest.get(key)!;
    if (row?.active === true) {
      plan.outcomes.push('existing');
      plan.refreshed.push({ id: row.id, request: write });
      continue;
    }
    plan.outcomes.push('created');
    const planned: PlannedWrite<T> = { request: write, counted: true, retired: false };
    if (row === undefined) plan.inserts.push(planned);
    else plan.returning.push({ id: row.id, write: planned });
    const group = groupOf(write);
    const entry = arriving.get(groupKey(group)) ?? { group, writes: [] };
    entry.writes.push(planned);
    arriving.set(groupKey(group), entry);
  }

  for (const { group, writes } of arriving.values()) {
    const active = activeIn(group);
    // Never more replacements than arrivals: a group over a lowered cap stays where it is.
    const replacing = Math.min(writes.length, Math.max(0, active + writes.length - capOf(group)));
    if (replacing === 0) continue;
    const fromStored = Math.min(replacing, active);
    if (fromStored > 0) plan.retireOldest.push({ group, count: fromStored });
    writes.slice(0, replacing).forEach((write, index) => {
      write.counted = false;
      // The batch alone brings more than the cap: its own earliest arrivals make room.
      write.retired = index < replacing - fromStored;
    });
  }
  return plan;
}
