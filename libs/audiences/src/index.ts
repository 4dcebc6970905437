export * from './audience';
export * from './audience-sql';
export * from './audiences.module';
export * from './audiences.service';
export * from './bulk/bulk-change.dto';
export * from './bulk/bulk-changes';
export * from './bulk/holder-bulk-change.entity';
export * from './bulk/holder-bulk-change.worker';
export * from './bulk/holder-bulk-changes.module';
export * from './bulk/holder-bulk-changes.service';
export * from './dto/audience.dto';
export * from './segment.entity';
export * from './segments.service';

import { HolderBulkChange } from './bulk/holder-bulk-change.entity';
import { Segment } from './segment.entity';
export const AUDIENCE_ENTITIES = [Segment, HolderBulkChange];
