import { isIPv4, isIPv6 } from 'node:net';

/**
 * The source a shared-pass registration is counted against: an IPv4 address as it is, an IPv6
 * address by its /64 (what one subscriber or one host is handed, so a single machine cannot
 * become thousands of sources), an IPv4-mapped IPv6 address as its IPv4 address.
 */
export function registrationSource(clientIp: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(clientIp);
  if (mapped !== null && isIPv4(mapped[1])) return mapped[1];
  if (!isIPv6(clientIp)) return clientIp.slice(0, 64);
  return `${ipv6Groups(clientIp).slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of an IPv6 address, in lower-case hex without leading zeros. */
function ipv6Groups(address: string): string[] {
  const withoutZone = address.split('%')[0];
  const [head, tail] = withoutZone.includes('::') ? withoutZone.split('::') : [withoutZone, ''];
  const headGroups = head === '' ? [] : head.split(':');
  let tailGroups = tail === '' ? [] : tail.split(':');
  // An embedded IPv4 tail (`::1.2.3.4`) is two groups.
  const last = tailGroups.at(-1) ?? headGroups.at(-1);
  if (last !== undefined && isIPv4(last)) {
    const octets = last.split('.').map(Number);
    const groups = [(octets[0] << 8) | octets[1], (octets[2] << 8) | octets[3]].map((g) =>
      g.toString(16),
    );
    if (tailGroups.length > 0) tailGroups = [...tailGroups.slice(0, -1), ...groups];
    else headGroups.splice(-1, 1, ...groups);
  }
  const missing = 8 - headGroups.length - tailGroups.length;
  return [...headGroups, ...Array<string>(Math.max(0, missing)).fill('0'), ...tailGroups].map(
    (group) => parseInt(group, 16).toString(16),
  );
}
