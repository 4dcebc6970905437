import { passTypeOf, type PassMetadataDto, type TransitType } from '@app/passes';
import type { PassJsonField } from './pass-json';

/** The slots a kind's fields go to; a face field whose slot the brand filled goes to the back. */
export const KIND_FACE_SLOTS = ['primaryFields', 'secondaryFields', 'auxiliaryFields'] as const;
type KindFaceSlot = (typeof KIND_FACE_SLOTS)[number];

/** The fields a pass's kind block gives pass.json, slot by slot. */
export type KindFields = Partial<Record<KindFaceSlot | 'backFields', PassJsonField[]>>;

/** What the kind's fields read of a pass and of a holder's copy of it. */
export interface KindFieldsSource {
  metadata: Pick<PassMetadataDto, 'passType' | 'event' | 'offer' | 'transit'>;
  /** A holder's own day (its `relevantDate`): a ticket for that day shows it as its date. */
  holderDate?: string | null;
}

/**
 * The words of a kind's details, in English like every text the API writes itself (a brand's
 * own field wins); the package and the holder page both use them.
 */
export const REDEMPTION = {
  instore: 'In store',
  online: 'Online',
  both: 'In store or online',
} as const;
export const TRANSIT_MODE: Record<TransitType, string> = {
  air: 'Flight',
  train: 'Train',
  bus: 'Bus',
  boat: 'Boat',
  generic: 'Trip',
};

const DATE_AND_TIME = { dateStyle: 'PKDateStyleMedium', timeStyle: 'PKDateStyleShort' } as const;
const TIME_ONLY = { dateStyle: 'PKDateStyleNone', timeStyle: 'PKDateStyleShort' } as const;

/**
 * The event, offer or trip as Wallet fields (DESIGN.md §9): what a ticket, coupon or boarding
 * pass shows of its kind when the brand has not put its own fields where Wallet shows it.
 * Keys are prefixed by the block (`event.name`, `transit.origin`), which keeps them apart from
 * the brand's; store cards and generic passes have no block and get none.
 */
export function kindFields({ metadata, holderDate }: KindFieldsSource): KindFields {
  switch (passTypeOf(metadata)) {
    case 'eventTicket': {
      const event = metadata.event;
      if (!event) return {};
      // A holder's own day replaces the event's date; the pass's end belongs to the pass's day.
      const ownDay = holderDate ?? null;
      return {
        primaryFields: [{ key: 'event.name', label: 'Event', value: event.name }],
        secondaryFields: [
          { key: 'event.start', label: 'Date', value: ownDay ?? event.startTime, ...DATE_AND_TIME },
          { key: 'event.venue', label: 'Venue', value: event.venueName },
        ],
        auxiliaryFields: event.doorsOpen
          ? [{ key: 'event.doors', label: 'Doors', value: event.doorsOpen, ...TIME_ONLY }]
          : [],
        backFields: [
          ...(event.endTime && ownDay === null
            ? [{ key: 'event.end', label: 'Ends', value: event.endTime, ...DATE_AND_TIME }]
            : []),
          ...(event.venueAddress
            ? [{ key: 'event.address', label: 'Address', value: event.venueAddress }]
            : []),
        ],
      };
    }
    case 'coupon': {
      const offer = metadata.offer;
      if (!offer) return {};
      return {
        // The provider heads the offer: whose offer it is, above what it is.
        primaryFields: [{ key: 'offer.title', label: offer.provider, value: offer.title }],
        backFields: [
          {
            key: 'offer.redemption',
            label: 'Redeem',
            value: REDEMPTION[offer.redemptionChannel],
          },
          ...(offer.finePrint
            ? [{ key: 'offer.finePrint', label: 'Terms', value: offer.finePrint }]
            : []),
        ],
      };
    }
    case 'boardingPass': {
      const transit = metadata.transit;
      if (!transit) return {};
      const mode = TRANSIT_MODE[transit.transitType];
      const service = transit.number
        ? [{ key: 'transit.number', label: transit.carrier || mode, value: transit.number }]
        : transit.carrier
          ? [{ key: 'transit.carrier', label: mode, value: transit.carrier }]
          : [];
      return {
        // Codes are what a boarding pass shows large, with the place's name as the label.
        primaryFields: [
          { key: 'transit.origin', label: transit.origin.name, value: transit.origin.code },
          {
            key: 'transit.destination',
            label: transit.destination.name,
            value: transit.destination.code,
          },
        ],
        secondaryFields: [
          {
            key: 'transit.departure',
            label: 'Departs',
            value: transit.departureTime,
            ...DATE_AND_TIME,
          },
          ...(transit.arrivalTime
            ? [
                {
                  key: 'transit.arrival',
                  label: 'Arrives',
                  value: transit.arrivalTime,
                  ...DATE_AND_TIME,
                },
              ]
            : []),
        ],
        auxiliaryFields: service,
      };
    }
    default:
      return {};
  }
}

/** The front of the pass: what the brand put in each slot. */
export type FaceSlots = Record<'headerFields' | KindFaceSlot, PassJsonField[]>;

/**
 * Puts the kind's fields where the brand left room: a face slot the brand left empty takes the
 * kind's fields for it; a slot the brand filled stays the brand's alone, and the kind's fields
 * for it go to the back, after the brand's back fields, so nothing of the event, offer or trip
 * is lost. A kind field whose key the pass already uses (`usedKeys`) is left out: keys stay
 * unique, and the brand's field of that key wins.
 */
export function placeKindFields(
  face: FaceSlots,
  backFields: PassJsonField[],
  kind: KindFields,
  usedKeys: ReadonlySet<string>,
): { face: FaceSlots; backFields: PassJsonField[] } {
  const unused = (fields: PassJsonField[] | undefined) =>
    (fields ?? []).filter((field) => !usedKeys.has(field.key));
  const placed: FaceSlots = { ...face };
  const moved: PassJsonField[] = [];
  for (const slot of KIND_FACE_SLOTS) {
    const fields = unused(kind[slot]);
    if (face[slot].length === 0) placed[slot] = fields;
    else moved.push(...fields);
  }
  return { face: placed, backFields: [...backFields, ...moved, ...unused(kind.backFields)] };
}
