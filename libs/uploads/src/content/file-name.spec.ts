import { sanitizeFileName } from './file-name';

describe('sanitizeFileName', () => {
  it.each([
    ['logo.png', 'logo.png'],
    ['Logo_2x-final.PNG', 'Logo_2x-final.PNG'],
    ['../../etc/passwd', 'passwd'],
    ['C:\\Users\\me\\strip.png', 'strip.png'],
    ['/var/tmp/', 'file'],
    ['my logo (1).png', 'my_logo_1_.png'],
    ['a  &  b.png', 'a_b.png'],
    ['Résumé.pdf', 'Resume.pdf'],
    ['名前.png', '_.png'],
    ['line\nbreak\t.png', 'linebreak.png'],
    ['nul\u0000byte.png', 'nulbyte.png'],
    ['  spaced.png  ', 'spaced.png'],
    ['.htaccess', 'htaccess'],
    ['..', 'file'],
    ['...png', 'png'],
    ['', 'file'],
    ['\u0000\u0001', 'file'],
  ])('%j → %j', (input, expected) => {
    expect(sanitizeFileName(input)).toBe(expected);
  });

  it('keeps at most 255 characters, and the extension', () => {
    const long = sanitizeFileName(`${'a'.repeat(300)}.png`);
    expect(long).toHaveLength(255);
    expect(long.endsWith('.png')).toBe(true);

    const noExtension = sanitizeFileName('b'.repeat(300));
    expect(noExtension).toBe('b'.repeat(255));
  });

  it('only ever returns names a storage key accepts', () => {
    for (const input of ['..', '.', '../..', '/', '\\', '.hidden', 'a/..', '..\\..']) {
      expect(sanitizeFileName(input)).toMatch(/^[A-Za-z0-9_-][A-Za-z0-9._-]*$/);
    }
  });
});
