import type { EventDto, OfferDto, TransitDto } from './kind-payloads';
import { BOARDING_PASS } from './boarding-pass';
import { COUPON } from './coupon';
import { EVENT_TICKET } from './event-ticket';
import { GENERIC } from './generic';
import { passTypeOf, type PassType } from './kind-names';
import {
  NO_TIMES,
  type KindBlocks,
  type KindUnit,
  type PassKind,
  type PassengerName,
  type PassKindOf,
} from './kind-unit';
import { scheduleOf } from './schedule';
import { STORE_CARD } from './store-card';

/** Every kind of pass, one unit each (docs/architecture.md, "Adding a kind of pass"). */
export const KINDS: { [K in PassType]: KindUnit<K> } = {
  storeCard: STORE_CARD,
  coupon: COUPON,
  eventTicket: EVENT_TICKET,
  boardingPass: BOARDING_PASS,
  generic: GENERIC,
};

/**
 * What a pass's kind is read from: its metadata, stored or a request's. The passes' metadata
 * request class satisfies it, so the rules read either without the validation libraries.
 */
export interface KindSource {
  passType?: PassType;
  event?: EventDto;
  offer?: OfferDto;
  transit?: TransitDto;
  relevantDate?: string;
}

/** What a holder's copy changes of its pass's kind. */
export interface KindHolderSource {
  /** Its own day. */
  relevantDate?: string | null;
  /** Its passenger (a boarding pass's holder). */
  passengerName?: PassengerName | null;
}

/**
 * The kind of a pass, or of a holder's copy of it (`holder`: its own `relevantDate`, its day,
 * and a boarding pass's passenger), worked out once for everything that shows it: the type, the
 * block, the schedule, the facts and the passenger.
 */
export function passKindOf(metadata: KindSource, holder?: KindHolderSource | null): PassKind {
  // kindOf keeps each kind's type, block and facts together; TypeScript sees them apart.
  return kindOf(passTypeOf(metadata), metadata, holder ?? {}) as PassKind;
}

function kindOf<K extends PassType>(
  type: K,
  metadata: KindSource,
  holder: KindHolderSource,
): PassKindOf<K> {
  const holderDate = holder.relevantDate ?? null;
  const unit = KINDS[type];
  // The rules refuse a passenger on the holder of a kind that has none.
  const passengerName = unit.passenger ? (holder.passengerName ?? null) : null;
  // The unit names its block, and KindBlocks says which DTO that block is.
  const block = (unit.block === null ? null : (metadata[unit.block] ?? null)) as
    KindBlocks[K] | null;
  if (block === null) {
    return {
      type,
      block,
      schedule: scheduleOf(NO_TIMES, metadata.relevantDate, holderDate),
      facts: null,
      passengerName,
    };
  }
  const present = block as NonNullable<KindBlocks[K]>;
  const schedule = scheduleOf(unit.times(present), metadata.relevantDate, holderDate);
  return {
    type,
    block,
    schedule,
    facts: unit.facts(present, schedule, { passengerName }),
    passengerName,
  };
}
