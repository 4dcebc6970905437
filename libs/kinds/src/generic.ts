import { NO_TIMES, type KindUnit } from './kind-unit';
import { CARD_FACE } from './store-card';

/** A plain card (a staff badge, a membership): its fields are the brand's alone. */
export const GENERIC: KindUnit<'generic'> = {
  block: null,
  face: CARD_FACE,
  times: () => NO_TIMES,
  facts: () => null,
};
