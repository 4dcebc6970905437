export * from './dto/pass-metadata.dto';
export * from './entities/pass.entity';
export * from './entities/short-link.entity';
export * from './google-save-links';
export * from './links/link-click.entity';
export * from './links/link-redirect.service';
export * from './links/link-stats.service';
export { withUtmSource } from './links/utm';
export * from './holder-changes';
export * from './pass-counters';
export * from './pass-job.entity';
export * from './passes.module';
export * from './passes.service';
export * from './short-links.service';

import { Pass } from './entities/pass.entity';
import { ShortLink } from './entities/short-link.entity';
import { LinkClick } from './links/link-click.entity';
export const PASS_ENTITIES = [Pass, ShortLink, LinkClick];
