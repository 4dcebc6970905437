export * from './automation-rules';
export * from './automation.entity';
export * from './automations.module';
export * from './automations.service';
export * from './dto/automation.dto';

import { Automation } from './automation.entity';
export const AUTOMATION_ENTITIES = [Automation];
