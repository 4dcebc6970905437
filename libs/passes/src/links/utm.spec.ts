import { withUtmSource } from './utm';

describe('withUtmSource', () => {
  it('adds utm_source to a URL without a query', () => {
    expect(withUtmSource('https://brand.example/stores', 'wallet')).toBe(
      'https://brand.example/stores?utm_source=wallet',
    );
  });

  it('appends to an existing query, keeping its parameters byte for byte and in order', () => {
    expect(
      withUtmSource('https://brand.example/s?q=a%20b&x=1+2&flag&list=a,b&e=%7E', 'wallet'),
    ).toBe('https://brand.example/s?q=a%20b&x=1+2&flag&list=a,b&e=%7E&utm_source=wallet');
  });

  it('keeps the fragment last', () => {
    expect(withUtmSource('https://brand.example/s?q=1#opening-hours', 'wallet')).toBe(
      'https://brand.example/s?q=1&utm_source=wallet#opening-hours',
    );
    expect(withUtmSource('https://brand.example/s#top', 'wallet')).toBe(
      'https://brand.example/s?utm_source=wallet#top',
    );
    expect(withUtmSource('https://brand.example/s#a?b=1', 'wallet')).toBe(
      'https://brand.example/s?utm_source=wallet#a?b=1',
    );
  });

  it('replaces an existing utm_source instead of repeating it', () => {
    expect(
      withUtmSource('https://brand.example/s?utm_source=old&q=1&utm_source=older', 'wallet'),
    ).toBe('https://brand.example/s?q=1&utm_source=wallet');
    expect(withUtmSource('https://brand.example/s?utm%5Fsource=old', 'wallet')).toBe(
      'https://brand.example/s?utm_source=wallet',
    );
    expect(withUtmSource('https://brand.example/s?utm_source', 'wallet')).toBe(
      'https://brand.example/s?utm_source=wallet',
    );
  });

  it('leaves other utm parameters and names that only look alike', () => {
    expect(
      withUtmSource('https://brand.example/s?utm_medium=pass&UTM_SOURCE=x&utm_source_id=3', 'w'),
    ).toBe('https://brand.example/s?utm_medium=pass&UTM_SOURCE=x&utm_source_id=3&utm_source=w');
  });

  it('encodes the utm_source value', () => {
    expect(withUtmSource('https://brand.example/', 'wallet pass&co=1#x')).toBe(
      'https://brand.example/?utm_source=wallet%20pass%26co%3D1%23x',
    );
  });

  it('drops empty pairs left by stray ampersands', () => {
    expect(withUtmSource('https://brand.example/s?&a=1&&', 'w')).toBe(
      'https://brand.example/s?a=1&utm_source=w',
    );
    expect(withUtmSource('https://brand.example/s?', 'w')).toBe(
      'https://brand.example/s?utm_source=w',
    );
  });

  it('keeps a pair whose name is not valid percent-encoding', () => {
    expect(withUtmSource('https://brand.example/s?%E0%A4%A=1', 'w')).toBe(
      'https://brand.example/s?%E0%A4%A=1&utm_source=w',
    );
  });

  it('returns the target unchanged without a utmSource, its own utm_source included', () => {
    const target = 'https://brand.example/s?utm_source=newsletter#x';
    expect(withUtmSource(target, null)).toBe(target);
    expect(withUtmSource(target, '')).toBe(target);
  });
});
