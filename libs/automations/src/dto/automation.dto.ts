import type { AudienceJson } from '@app/audiences';
import { AUDIENCE_PROPERTY } from '@app/audiences';
import { FreeForm, MUST_BE_OBJECT, NotEmpty, PathId, ReadOnly, Required } from '@app/core';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsArray,
  IsBoolean,
  IsObject,
  IsOptional,
  IsString,
  MaxLength,
  ValidateIf,
} from 'class-validator';
import {
  MAX_ACTIONS,
  MAX_NOTIFY_MESSAGE_LENGTH,
  type AutomationAction,
  type AutomationTrigger,
} from '../automation-rules';
import type { Automation } from '../automation.entity';

const TRIGGER_EXAMPLE = { on: 'holder.entered' };
const ACTIONS_EXAMPLE = [
  { addTags: ['gold'] },
  { notify: { message: 'Welcome to Gold, {{fieldValues.name}}!' } },
];

const TRIGGER_PROPERTY = {
  type: 'object',
  additionalProperties: true,
  example: TRIGGER_EXAMPLE,
  description:
    'Exactly one of `{"on": "holder.created"}`, `{"on": "holder.installed"}`, ' +
    '`{"on": "holder.uninstalled"}`, `{"on": "holder.entered"}` (requires `audience`) and ' +
    '`{"on": "date", "attribute": "<attribute key>", "time": "HH:MM", "timeZone": "<IANA>"}` ' +
    '(every year on the month and day of the holder’s attribute, a `YYYY-MM-DD` text). The ' +
    'time zone is answered as the time zone database spells it.',
} as const;

const ACTIONS_PROPERTY = {
  type: 'array',
  items: { type: 'object', additionalProperties: true },
  minItems: 1,
  maxItems: MAX_ACTIONS,
  example: ACTIONS_EXAMPLE,
  description:
    `1 to ${MAX_ACTIONS} actions, run in order; each exactly one of ` +
    '`{"addTags": [tag, …]}`, `{"removeTags": [tag, …]}` (1 to 50 tags of ' +
    '`[A-Za-z0-9._:-]{1,64}`, answered sorted without repeats), `{"set": {"fieldValues"?: ' +
    '{…}, "attributes"?: {…}}}` (as a holder PATCH takes them: face field keys of the pass, ' +
    'null back to the pass’s value; attribute keys, null removes), `{"increment": {"<face ' +
    'field or attribute key>": number}}` (as a bulk change’s `increment`) and `{"notify": ' +
    `{"message": "<1 to ${MAX_NOTIFY_MESSAGE_LENGTH} characters>"}}\`.`,
} as const;

const AUTOMATION_AUDIENCE_PROPERTY = {
  ...AUDIENCE_PROPERTY,
  nullable: true,
  description:
    'Who the actions are for: the holder must match it when the trigger fires. Required for ' +
    '`holder.entered`; absent or null: every holder. ' +
    AUDIENCE_PROPERTY.description,
} as const;

/** `{id}` (the pass) and `{automationId}` in an automation's path. */
export class AutomationPathParams {
  @PathId()
  id!: string;

  @PathId()
  automationId!: string;
}

/** Automation fields a client may send back although the service owns them. */
class AutomationReadOnlyFields {
  @ReadOnly() id?: unknown;
  @ReadOnly() passId?: unknown;
  @ReadOnly() workspaceId?: unknown;
  @ReadOnly() runCount?: unknown;
  @ReadOnly() skippedCount?: unknown;
  @ReadOnly() failedCount?: unknown;
  @ReadOnly() lastRunTime?: unknown;
  @ReadOnly() createdTime?: unknown;
  @ReadOnly() updatedTime?: unknown;
  @ReadOnly() createdBy?: unknown;
  @ReadOnly() updatedBy?: unknown;
}

/**
 * Any of an automation's inputs; absent ones are kept. The shapes are checked here, the rules
 * (trigger, audience, actions against the pass) by the service.
 */
export class UpdateAutomationDto extends AutomationReadOnlyFields {
  @ApiPropertyOptional({ maxLength: 255, example: 'Welcome to Gold' })
  @IsOptional()
  @IsString()
  @NotEmpty()
  @MaxLength(255)
  name?: string;

  @ApiPropertyOptional(TRIGGER_PROPERTY)
  @IsOptional()
  @IsObject({ message: MUST_BE_OBJECT })
  @FreeForm()
  trigger?: Record<string, unknown>;

  @ApiPropertyOptional(AUTOMATION_AUDIENCE_PROPERTY)
  @ValidateIf((_object, value) => value !== undefined && value !== null)
  @IsObject({ message: MUST_BE_OBJECT })
  audience?: AudienceJson | null;

  @ApiPropertyOptional(ACTIONS_PROPERTY)
  @IsOptional()
  @IsArray()
  @FreeForm()
  actions?: unknown[];

  @ApiPropertyOptional({ example: true })
  @IsOptional()
  @IsBoolean()
  enabled?: boolean;
}

export class CreateAutomationDto extends AutomationReadOnlyFields {
  @ApiProperty({ maxLength: 255, example: 'Welcome to Gold', description: 'Unique per pass.' })
  @Required()
  @IsString()
  @NotEmpty()
  @MaxLength(255)
  name!: string;

  @ApiProperty(TRIGGER_PROPERTY)
  @Required()
  @IsObject({ message: MUST_BE_OBJECT })
  @FreeForm()
  trigger!: Record<string, unknown>;

  @ApiPropertyOptional(AUTOMATION_AUDIENCE_PROPERTY)
  @ValidateIf((_object, value) => value !== undefined && value !== null)
  @IsObject({ message: MUST_BE_OBJECT })
  audience?: AudienceJson | null;

  @ApiProperty(ACTIONS_PROPERTY)
  @Required()
  @IsArray()
  @FreeForm()
  actions!: unknown[];

  @ApiPropertyOptional({ default: true, example: true })
  @IsOptional()
  @IsBoolean()
  enabled?: boolean;
}

export class AutomationResponse {
  @ApiProperty() id!: string;
  @ApiProperty() passId!: string;
  @ApiProperty({ example: 'Welcome to Gold' }) name!: string;
  @ApiProperty({ type: 'object', additionalProperties: true, example: TRIGGER_EXAMPLE })
  trigger!: AutomationTrigger;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    example: { attribute: 'points', gte: 1000 },
  })
  audience!: AudienceJson | null;
  @ApiProperty({
    type: 'array',
    items: { type: 'object', additionalProperties: true },
    example: ACTIONS_EXAMPLE,
  })
  actions!: AutomationAction[];
  @ApiProperty({ example: true }) enabled!: boolean;
  @ApiProperty({ example: 0, description: 'Runs whose actions ran' }) runCount!: number;
  @ApiProperty({ example: 0, description: 'Runs skipped (the holder outside the audience)' })
  skippedCount!: number;
  @ApiProperty({ example: 0, description: 'Runs that failed' }) failedCount!: number;
  @ApiProperty({ nullable: true, type: String, format: 'date-time', example: null })
  lastRunTime!: string | null;
  @ApiProperty() workspaceId!: string;
  @ApiProperty({ format: 'date-time' }) createdTime!: string;
  @ApiProperty({ format: 'date-time' }) updatedTime!: string;
  @ApiProperty({ nullable: true, type: String }) createdBy!: string | null;
  @ApiProperty({ nullable: true, type: String }) updatedBy!: string | null;
}

export class AutomationPage {
  @ApiProperty({ type: [AutomationResponse] }) items!: AutomationResponse[];
  @ApiProperty({ nullable: true, type: String }) cursor!: string | null;
  @ApiProperty() hasMore!: boolean;
}

export function toAutomationResponse(automation: Automation): AutomationResponse {
  return {
    id: automation.id,
    passId: automation.passId,
    name: automation.name,
    trigger: automation.trigger,
    audience: automation.audience,
    actions: automation.actions,
    enabled: automation.enabled,
    runCount: automation.runCount,
    skippedCount: automation.skippedCount,
    failedCount: automation.failedCount,
    lastRunTime: automation.lastRunTime?.toISOString() ?? null,
    workspaceId: automation.workspaceId,
    createdTime: automation.createdTime.toISOString(),
    updatedTime: automation.updatedTime.toISOString(),
    createdBy: automation.createdBy,
    updatedBy: automation.updatedBy,
  };
}
