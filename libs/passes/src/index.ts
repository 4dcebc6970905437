export * from './audiences/audience';
export * from './audiences/audiences.service';
export * from './audiences/dto/audience.dto';
export * from './audiences/segment.entity';
export * from './audiences/segments.service';
export * from './dto/featured-action.dto';
export * from './dto/nfc.dto';
export * from './dto/kind-examples';
export * from './dto/pass-kind.dto';
export * from './dto/pass-metadata.dto';
export * from './entities/pass.entity';
export * from './entities/short-link.entity';
export * from './google-save-links';
export * from './links/link-click.entity';
export * from './links/link-redirect.service';
export * from './links/link-stats.service';
export { withUtmSource } from './links/utm';
export * from './holder-changes';
export * from './holders/holder.entity';
export * from './holders/bulk/holder-bulk-change.entity';
export * from './holders/bulk/holder-bulk-change.worker';
export * from './holders/bulk/holder-bulk-changes.service';
export * from './holders/bundles/dto/holder-bundle.dto';
export * from './holders/bundles/holder-bundle.entity';
export * from './holders/bundles/holder-bundles.service';
export * from './holders/holders.service';
export { shownNfcMessage } from './holders/holder-edit';
export { shownMessage } from './pass-content';
export * from './pass-kinds';
export * from './kinds/barcode-formats';
export * from './kinds/boarding-pass';
export * from './kinds/coupon';
export * from './kinds/kind-images';
export {
  FIELD_ROLES,
  fieldRoleValue,
  roleReader,
  type FieldRole,
  type RoleReader,
} from './kinds/field-roles';
export * from './kinds/kind-names';
export * from './kinds/kind-unit';
export * from './kinds/kinds';
export { nextEvent } from './kinds/schedule';
export * from './kinds/time-zones';
export * from './kinds/wall-clock';
export * from './pass-counters';
export * from './localizations';
export * from './pass-job.entity';
export * from './passes.module';
export * from './passes.service';
export * from './short-links.service';
export * from './stats/pass-daily-stats.entity';
export * from './stats/pass-stats.module';
export * from './stats/pass-stats.service';

import { Segment } from './audiences/segment.entity';
import { Pass } from './entities/pass.entity';
import { ShortLink } from './entities/short-link.entity';
import { HolderBulkChange } from './holders/bulk/holder-bulk-change.entity';
import { HolderBundle } from './holders/bundles/holder-bundle.entity';
import { Holder } from './holders/holder.entity';
import { LinkClick } from './links/link-click.entity';
import { PassDailyStats } from './stats/pass-daily-stats.entity';
export const PASS_ENTITIES = [
  Pass,
  ShortLink,
  LinkClick,
  Holder,
  Segment,
  HolderBulkChange,
  HolderBundle,
  PassDailyStats,
];
