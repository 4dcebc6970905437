export * from './dto/location.response';
export * from './entities/pass-location.entity';
export * from './location-rules';
export * from './locations.module';
export * from './locations.service';

import { PassLocation } from './entities/pass-location.entity';
export const LOCATION_ENTITIES = [PassLocation];
