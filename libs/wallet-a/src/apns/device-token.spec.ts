import { isValidDeviceToken } from './device-token';

describe('isValidDeviceToken', () => {
  it('accepts hex of 64 characters or more, in either case', () => {
    expect(isValidDeviceToken('a1'.repeat(32))).toBe(true);
    expect(isValidDeviceToken('A1'.repeat(32))).toBe(true);
    expect(isValidDeviceToken('0f'.repeat(100))).toBe(true);
  });

  it('refuses anything else', () => {
    expect(isValidDeviceToken('')).toBe(false);
    expect(isValidDeviceToken('a1'.repeat(31))).toBe(false);
    expect(isValidDeviceToken(`${'a1'.repeat(32)}f`)).toBe(false);
    expect(isValidDeviceToken('g1'.repeat(32))).toBe(false);
    expect(isValidDeviceToken(`${'a1'.repeat(32)}/x`)).toBe(false);
    expect(isValidDeviceToken('ab'.repeat(1000))).toBe(false);
  });
});
