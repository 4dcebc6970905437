import { PASS_TYPES } from './kind-names';
import { KIND_IMAGES, passImagesOf } from './kind-images';
import { KINDS } from './kinds';

/** One set of brand images, every role at 1x and some at 2x: what serves every kind. */
const BRAND_SET = [
  'icon.png',
  'icon@2x.png',
  'logo.png',
  'strip.png',
  'strip@2x.png',
  'footer.png',
  'thumbnail.png',
  'background.png',
  'artwork.png',
  'artwork@3x.png',
  'primaryLogo.png',
];

describe('images by kind', () => {
  // Apple's Wallet Developer Guide, "Pass Design and Creation", table 4-1, and the HIG's
  // "Pass images" for the posters: which images each style shows.
  it.each([
    ['storeCard', ['strip']],
    ['coupon', ['strip']],
    ['boardingPass', ['footer']],
    ['generic', ['thumbnail', 'artwork', 'primaryLogo']],
  ] as const)('a %s shows the icon, the logo and %j of one set of brand images', (type, roles) => {
    const withoutBackground = BRAND_SET.filter((name) => !name.startsWith('background'));
    const { shown } = passImagesOf(type, withoutBackground, false);
    const expected = withoutBackground.filter((name) =>
      ['icon', 'logo', ...roles].includes(name.replace(/(@[23]x)?\.png$/, '')),
    );
    expect(shown).toEqual(expected);
  });

  it('leaves out of a boarding pass the strip, thumbnail, background and artwork it never shows', () => {
    const { shown, poster, missing } = passImagesOf('boardingPass', BRAND_SET, false);
    expect(shown).toEqual(['icon.png', 'icon@2x.png', 'logo.png', 'footer.png']);
    expect(poster).toBe(false);
    expect(missing).toEqual([]);
  });

  it('shows an event ticket with a background its background and thumbnail, and no strip', () => {
    const { shown, missing } = passImagesOf(
      'eventTicket',
      ['icon.png', 'logo.png', 'strip.png', 'background.png', 'thumbnail.png', 'footer.png'],
      false,
    );
    expect(shown).toEqual(['icon.png', 'logo.png', 'background.png', 'thumbnail.png']);
    // Apple: "If you specify a strip image, do not specify a background image or a thumbnail".
    expect(
      passImagesOf('eventTicket', ['icon.png', 'logo.png', 'thumbnail.png'], false).shown,
    ).toEqual(['icon.png', 'logo.png']);
    expect(missing).toEqual([]);
  });

  it('requires a strip of store cards, coupons and event tickets without a background only', () => {
    const basics = ['logo.png', 'icon.png'];
    expect(passImagesOf('storeCard', basics, false).missing).toEqual(['strip.png']);
    expect(passImagesOf('coupon', basics, false).missing).toEqual(['strip.png']);
    expect(passImagesOf('eventTicket', basics, false).missing).toEqual(['strip.png']);
    expect(passImagesOf('eventTicket', [...basics, 'background.png'], false).missing).toEqual([]);
    expect(passImagesOf('boardingPass', basics, false).missing).toEqual([]);
    expect(passImagesOf('generic', basics, false).missing).toEqual([]);
    // A strip at another scale only is no strip.png.
    expect(passImagesOf('storeCard', [...basics, 'strip@2x.png'], false).missing).toEqual([
      'strip.png',
    ]);
    expect(passImagesOf('generic', ['strip.png'], false).missing).toEqual(['logo.png', 'icon.png']);
  });

  it('says what a Published pass of each kind needs', () => {
    expect(passImagesOf('storeCard', [], false).needed).toBe('logo.png, icon.png and strip.png');
    expect(passImagesOf('eventTicket', [], false).needed).toBe(
      'logo.png, icon.png and strip.png (or background.png)',
    );
    expect(passImagesOf('boardingPass', [], false).needed).toBe('logo.png and icon.png');
  });

  it('makes a poster of an event ticket or a generic pass with artwork, and of nothing else', () => {
    for (const type of PASS_TYPES) {
      const { poster, shown } = passImagesOf(
        type,
        ['logo.png', 'artwork.png', 'primaryLogo.png'],
        true,
      );
      const hasPoster = type === 'eventTicket' || type === 'generic';
      expect([type, poster]).toEqual([type, hasPoster]);
      expect([type, shown]).toEqual([
        type,
        hasPoster ? ['logo.png', 'artwork.png', 'primaryLogo.png'] : ['logo.png'],
      ]);
      expect(KINDS[type].poster !== null).toBe(hasPoster);
    }
    // The primary logo is the poster's: without artwork the classic style shows the logo only.
    expect(passImagesOf('generic', ['logo.png', 'primaryLogo.png'], false).shown).toEqual([
      'logo.png',
    ]);
  });

  it('makes a poster of an event ticket only with NFC, and of a generic pass without it', () => {
    const images = ['logo.png', 'artwork.png', 'primaryLogo.png'];
    // An event ticket stored with artwork before its poster needed NFC: the classic ticket.
    expect(passImagesOf('eventTicket', images, false)).toMatchObject({
      poster: false,
      shown: ['logo.png'],
    });
    expect(passImagesOf('eventTicket', images, true)).toMatchObject({
      poster: true,
      shown: images,
    });
    expect(passImagesOf('generic', images, false)).toMatchObject({ poster: true, shown: images });
  });

  it('names no image twice in a face and requires only images the face shows', () => {
    for (const type of PASS_TYPES) {
      const images = KIND_IMAGES[type];
      expect(new Set(images.face).size).toBe(images.face.length);
      for (const role of images.needs) expect(images.face).toContain(role);
    }
  });
});
