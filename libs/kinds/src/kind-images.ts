import { passImageRole, type PassImageRole } from '@app/uploads/content/pass-images';
import type { PassType } from './kind-names';
import { KINDS } from './kinds';

/**
 * Which images each kind's WalletA style shows (docs/decisions.md, "Images by kind"): Apple's
 * Wallet Developer Guide, "Pass Design and Creation", table 4-1 (boarding pass: logo, icon,
 * footer; coupon and store card: logo, icon, strip; event ticket: logo, icon, and a strip or a
 * background and a thumbnail; generic: logo, icon, thumbnail), and the Human Interface
 * Guidelines, Wallet, "Pass images", for the posters (`artwork.png` and `primaryLogo.png`: the
 * poster event ticket and the poster generic pass).
 */
export interface KindImages {
  /** The images of its face besides the icon and the logo, which every style shows. */
  face: readonly PassImageRole[];
  /**
   * The images its face shows instead when the pass has the first of them: an event ticket
   * with a background shows the background and a thumbnail, and no strip.
   */
  instead?: readonly PassImageRole[];
  /** The face's images a Published pass must have, unless it has the `instead` face. */
  needs: readonly PassImageRole[];
}

/** What every style shows (the icon on the lock screen and in notifications). */
const EVERY_STYLE: readonly PassImageRole[] = ['logo', 'icon'];
/**
 * What a poster shows (HIG, Wallet, "Pass images"), on a kind whose unit has one (`poster`),
 * besides its classic face, which stays in the package for older devices.
 */
const POSTER: readonly PassImageRole[] = ['artwork', 'primaryLogo'];

/** Every kind's images, one entry per kind, which the compiler checks. */
export const KIND_IMAGES: { [K in PassType]: KindImages } = {
  storeCard: { face: ['strip'], needs: ['strip'] },
  coupon: { face: ['strip'], needs: ['strip'] },
  eventTicket: { face: ['strip'], instead: ['background', 'thumbnail'], needs: ['strip'] },
  boardingPass: { face: ['footer'], needs: [] },
  generic: { face: ['thumbnail'], needs: [] },
};

/** A pass's images as its kind's style shows them. */
export interface PassImages {
  /** The given file names the style shows, in the order given: what the package holds. */
  shown: string[];
  /**
   * The poster is shown: the kind has one, the pass has an artwork image, and NFC where the
   * poster needs it.
   */
  poster: boolean;
  /** The images a Published pass of the kind lacks (`strip.png`), none when complete. */
  missing: string[];
  /** What a Published pass of the kind needs, in words: "logo.png, icon.png and strip.png". */
  needed: string;
}

/**
 * Which of a pass's images (`logo.png`, `strip@2x.png`, ...) its kind's style shows, whether it
 * is a poster, and what a Published pass of the kind lacks. An image the style never shows is
 * no error: one set of brand images serves every kind, and the package leaves it out. `nfc`:
 * the pass has NFC. An event ticket stored with artwork before its poster needed NFC is shown
 * as the classic ticket, never as a poster Wallet would refuse.
 */
export function passImagesOf(
  passType: PassType,
  fileNames: readonly string[],
  nfc: boolean,
): PassImages {
  const images = KIND_IMAGES[passType];
  const kindPoster = KINDS[passType].poster;
  const given = new Set(fileNames.map(passImageRole));
  const face =
    images.instead !== undefined && given.has(images.instead[0]) ? images.instead : images.face;
  const poster = kindPoster !== null && given.has('artwork') && (!kindPoster.needsNfc || nfc);
  const shows = new Set([...EVERY_STYLE, ...face, ...(poster ? POSTER : [])]);
  const needs = [...EVERY_STYLE, ...(face === images.face ? images.needs : [])].map(
    (role) => `${role}.png`,
  );
  const names = new Set(fileNames);
  return {
    shown: fileNames.filter((name) => {
      const role = passImageRole(name);
      return role !== undefined && shows.has(role);
    }),
    poster,
    missing: needs.filter((name) => !names.has(name)),
    needed: neededInWords(images),
  };
}

/** "logo.png, icon.png and strip.png (or background.png)". */
function neededInWords(images: KindImages): string {
  const names = [...EVERY_STYLE, ...images.needs].map((role) => `${role}.png`);
  const list = `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
  return images.instead !== undefined && images.needs.length > 0
    ? `${list} (or ${images.instead[0]}.png)`
    : list;
}
