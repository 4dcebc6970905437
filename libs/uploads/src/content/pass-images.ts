import { pngSizeBound, type PngHeader } from './png-header';

/**
 * The largest size of each pass image role in Apple's pass design guide, in points. Wallet
 * shows @1x, @2x and @3x files; any of them may be up to the @3x size in pixels, since Wallet
 * scales an image down to fit but never needs more pixels than that.
 */
const ROLE_POINTS = {
  icon: { width: 38, height: 38 },
  logo: { width: 160, height: 50 },
  strip: { width: 375, height: 144 },
  thumbnail: { width: 90, height: 90 },
  background: { width: 180, height: 220 },
  footer: { width: 286, height: 15 },
  // The poster's picture (iOS 26's poster event ticket, iOS 27's poster generic pass), behind
  // the whole front of the pass.
  artwork: { width: 358, height: 448 },
  // The poster's logo, at the top of its front (HIG, Wallet, "Pass images").
  primaryLogo: { width: 126, height: 30 },
} as const;

export type PassImageRole = keyof typeof ROLE_POINTS;

const MAX_SCALE = 3;

/** Every image of a pass together: a package stays well below what a phone fetches quickly. */
export const PASS_IMAGES_MAX_BYTES = 10 * 1024 * 1024;

/** The largest pixel size of an image in this role. */
export function maxPixels(role: PassImageRole): { width: number; height: number } {
  const points = ROLE_POINTS[role];
  return { width: points.width * MAX_SCALE, height: points.height * MAX_SCALE };
}

/** The role an image file name (`logo@2x.png`) stands for, or `undefined`. */
export function passImageRole(fileName: string): PassImageRole | undefined {
  const role = /^([A-Za-z]+)(@[23]x)?\.png$/.exec(fileName)?.[1];
  return role !== undefined && Object.hasOwn(ROLE_POINTS, role)
    ? (role as PassImageRole)
    : undefined;
}

/** The largest pixel size of any pass image: what an upload to the pass-assets bucket may be. */
const ANY_ROLE = Object.keys(ROLE_POINTS).reduce(
  (largest, role) => {
    const { width, height } = maxPixels(role as PassImageRole);
    return { width: Math.max(largest.width, width), height: Math.max(largest.height, height) };
  },
  { width: 0, height: 0 },
);

/**
 * Why a PNG cannot be a pass image (in `role`, or in any role when none is given), or
 * `undefined` when it can: larger than the role's pixel size, or more bytes than a picture of
 * its size needs (a small header in front of megabytes of other data).
 */
export function passImageProblem(
  header: PngHeader,
  size: number,
  role?: PassImageRole,
): string | undefined {
  const limit = role === undefined ? ANY_ROLE : maxPixels(role);
  if (header.width > limit.width || header.height > limit.height) {
    return `is ${header.width}×${header.height} pixels; ${role === undefined ? 'a pass image' : `a ${role} image`} is at most ${limit.width}×${limit.height}`;
  }
  const bound = pngSizeBound(header);
  if (size > bound) {
    return `has ${size} bytes, more than a ${header.width}×${header.height} PNG needs (at most ${bound})`;
  }
  return undefined;
}
