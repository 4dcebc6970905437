import { NO_TIMES, type KindUnit } from './kind-unit';
import { CARD_FACE } from './store-card';

/**
 * A plain card (a staff badge, a membership): its fields are the brand's alone. An artwork image
 * makes it a poster on iOS 27.
 */
export const GENERIC: KindUnit<'generic'> = {
  block: null,
  face: CARD_FACE,
  problem: () => null,
  passenger: false,
  // iOS 27's poster generic pass needs nothing of the pass besides the artwork.
  poster: { name: 'poster generic pass', needs: [], needsNfc: false },
  times: () => NO_TIMES,
  facts: () => null,
};
