import { registrationSource } from './registration-source';

describe('registrationSource', () => {
  it('keeps an IPv4 address as it is', () => {
    expect(registrationSource('203.0.113.7')).toBe('203.0.113.7');
  });

  it('reads an IPv4-mapped IPv6 address as its IPv4 address', () => {
    expect(registrationSource('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(registrationSource('::FFFF:198.51.100.1')).toBe('198.51.100.1');
  });

  it('counts an IPv6 address by its /64, whatever its spelling', () => {
    const source = registrationSource('2001:db8:0:1::1');
    expect(source).toBe('2001:db8:0:1::/64');
    expect(registrationSource('2001:0DB8:0000:0001:ffff:eeee:dddd:cccc')).toBe(source);
    expect(registrationSource('2001:db8::1:0:0:0:5')).toBe(source);
    expect(registrationSource('2001:db8:0:2::1')).not.toBe(source);
  });

  it('expands compressed and IPv4-tailed forms', () => {
    expect(registrationSource('::1')).toBe('0:0:0:0::/64');
    expect(registrationSource('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(registrationSource('64:ff9b::192.0.2.33')).toBe('64:ff9b:0:0::/64');
    expect(registrationSource('2001:db8:1:2:3:4:192.0.2.33')).toBe('2001:db8:1:2::/64');
  });

  it('passes anything else through, bounded', () => {
    expect(registrationSource('unknown')).toBe('unknown');
    expect(registrationSource('x'.repeat(100))).toHaveLength(64);
  });
});
