import { NO_TIMES, type FaceLimits, type KindUnit } from './kind-unit';

/**
 * The face of a card (store card, coupon, generic pass): secondary and auxiliary fields share
 * one row budget.
 */
export const CARD_FACE: FaceLimits = {
  headerFields: 3,
  primaryFields: 1,
  secondaryFields: 4,
  auxiliaryFields: 4,
  secondaryAndAuxiliary: 4,
};

/** A loyalty card, the kind of a pass that names none: its fields are the brand's alone. */
export const STORE_CARD: KindUnit<'storeCard'> = {
  block: null,
  face: CARD_FACE,
  problem: () => null,
  passenger: false,
  poster: null,
  times: () => NO_TIMES,
  facts: () => null,
};
