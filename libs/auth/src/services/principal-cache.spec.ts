import { PrincipalCache } from './principal-cache';

describe('PrincipalCache', () => {
  it('serves an entry for its TTL from the start of the lookup that read it', () => {
    const cache = new PrincipalCache<string>(1000);
    cache.set('k', 'v', cache.begin(10_000));
    expect(cache.get('k', 10_999)).toBe('v');
    expect(cache.get('k', 11_000)).toBeUndefined();
  });

  it('does not store what a lookup read before a drop', () => {
    const cache = new PrincipalCache<string>(1000);
    const lookup = cache.begin(0);
    cache.drop();
    cache.set('k', 'stale', lookup);
    expect(cache.get('k', 1)).toBeUndefined();
    cache.set('k', 'fresh', cache.begin(1));
    expect(cache.get('k', 2)).toBe('fresh');
  });

  it('holds nothing while disabled, and nothing from before', () => {
    const cache = new PrincipalCache<string>(1000);
    cache.set('k', 'v', cache.begin(0));
    const lookup = cache.begin(0);
    cache.setEnabled(false);
    expect(cache.get('k', 1)).toBeUndefined();
    cache.set('k', 'v', cache.begin(1));
    expect(cache.get('k', 2)).toBeUndefined();
    cache.setEnabled(true);
    cache.set('k', 'read while disabled', lookup);
    expect(cache.get('k', 3)).toBeUndefined();
  });
});
