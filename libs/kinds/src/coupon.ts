import type { RedemptionChannel } from './kind-names';
import { NO_TIMES, type KindUnit } from './kind-unit';
import { CARD_FACE } from './store-card';

/** Where an offer is redeemed, in words. */
export const REDEMPTION: Record<RedemptionChannel, string> = {
  instore: 'In store',
  online: 'Online',
  both: 'In store or online',
};

/**
 * A coupon: its offer's title headed by the provider (whose offer it is, above what it is), the
 * provider, where it is redeemed and its terms. An offer has no time of its own.
 */
export const COUPON: KindUnit<'coupon'> = {
  block: 'offer',
  face: CARD_FACE,
  problem: () => null,
  passenger: false,
  poster: null,
  times: () => NO_TIMES,
  facts: (offer) => ({
    heading: offer.title,
    title: { key: 'offer.title', label: offer.provider, value: offer.title },
    provider: { key: 'offer.provider', label: 'From', value: offer.provider },
    redemption: {
      key: 'offer.redemption',
      label: 'Redeem',
      value: REDEMPTION[offer.redemptionChannel],
    },
    ...(offer.finePrint
      ? { terms: { key: 'offer.finePrint', label: 'Terms', value: offer.finePrint } }
      : {}),
  }),
};
