export * from './bundles/dto/holder-bundle.dto';
export * from './bundles/holder-bundle.entity';
export * from './bundles/holder-bundles.service';
export * from './holder-edit';
export * from './holder-import';
export * from './holder-input.dto';
export * from './holder-segment-filter';
export * from './holder-targeting';
export * from './holder.response';
export * from './holders.module';
export * from './holders.service';
export * from './list-holders.query';
export * from './targeting-value';

import { HolderBundle } from './bundles/holder-bundle.entity';
export const HOLDER_ENTITIES = [HolderBundle];
