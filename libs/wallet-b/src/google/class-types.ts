import { passTypeOf, type PassType } from '@app/kinds';
import { type KindMetadata } from '@app/passes';
import type { ClassType, WalletObject } from './wallet-objects.types';

/** Google's REST collections of a class type, and the save-link payload key of its objects. */
export interface ClassCollections {
  classes: string;
  objects: string;
  saveLinkKey: string;
}

export const COLLECTIONS: Record<ClassType, ClassCollections> = {
  generic: { classes: 'genericClass', objects: 'genericObject', saveLinkKey: 'genericObjects' },
  loyalty: { classes: 'loyaltyClass', objects: 'loyaltyObject', saveLinkKey: 'loyaltyObjects' },
  offer: { classes: 'offerClass', objects: 'offerObject', saveLinkKey: 'offerObjects' },
  eventTicket: {
    classes: 'eventTicketClass',
    objects: 'eventTicketObject',
    saveLinkKey: 'eventTicketObjects',
  },
  flight: { classes: 'flightClass', objects: 'flightObject', saveLinkKey: 'flightObjects' },
  transit: { classes: 'transitClass', objects: 'transitObject', saveLinkKey: 'transitObjects' },
};

/**
 * The class type each kind gets on WalletB when its class is first made: a store
 * card (a pass that names no kind) is a loyalty card, a coupon an offer, a boarding pass a
 * flight when it flies and a transit ticket otherwise.
 */
const CLASS_TYPES: { [K in PassType]: (metadata: KindMetadata) => ClassType } = {
  storeCard: () => 'loyalty',
  coupon: () => 'offer',
  eventTicket: () => 'eventTicket',
  boardingPass: (metadata) => (metadata.transit?.transitType === 'air' ? 'flight' : 'transit'),
  generic: () => 'generic',
};

/**
 * The class type a new class of the pass gets. A pass keeps the type it got: see
 * `WalletBClassesService.classTypeOf`.
 */
export function classTypeFor(metadata: KindMetadata): ClassType {
  return CLASS_TYPES[passTypeOf(metadata)](metadata);
}

/**
 * A save link's JWT `payload`: the objects (one, or a bundle's several) under their class
 * type's key (`loyaltyObjects`, ...).
 */
export function saveLinkPayload(
  type: ClassType,
  ...objects: WalletObject[]
): Record<string, WalletObject[]> {
  return { [COLLECTIONS[type].saveLinkKey]: objects };
}
