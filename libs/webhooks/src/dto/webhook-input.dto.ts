import { NotEmpty, ReadOnly, Required } from '@app/core';
import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsIn,
  IsOptional,
  IsString,
  MaxLength,
  ValidateIf,
} from 'class-validator';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../webhook-events';

export const MAX_URL_LENGTH = 2048;
export const MAX_DESCRIPTION_LENGTH = 500;

const EVENTS_MESSAGE = `each value must be one of ${WEBHOOK_EVENT_TYPES.join(', ')}`;

const URL_DOC = {
  maxLength: MAX_URL_LENGTH,
  example: 'https://crm.brand.example/hooks/wallet',
  description:
    '`https://` (`http://` only with WEBHOOK_ALLOW_HTTP=true). A host that resolves to a ' +
    'loopback, private, link-local or metadata address is refused, now and at every delivery, ' +
    'unless WEBHOOK_ALLOW_PRIVATE=true.',
};

const EVENTS_DOC = {
  enum: WEBHOOK_EVENT_TYPES,
  isArray: true,
  minItems: 1,
  example: ['holder.created', 'holder.updated', 'pass.installed'],
  description: 'The event types to receive.',
};

const Url = () => applyDecorators(IsString(), NotEmpty(), MaxLength(MAX_URL_LENGTH));
const Events = () =>
  applyDecorators(
    IsArray(),
    ArrayMinSize(1),
    ArrayMaxSize(WEBHOOK_EVENT_TYPES.length),
    ArrayUnique(),
    IsIn(WEBHOOK_EVENT_TYPES, { each: true, message: EVENTS_MESSAGE }),
  );

/** A field that may be left out but not sent as `null`. */
const NotNullWhenSent = () =>
  applyDecorators(
    ValidateIf((_object: object, value: unknown) => value !== undefined),
    Required(),
  );

/** Fields of a Webhook that are never written through the API: sent back, they are ignored. */
class WebhookReadOnlyFields {
  @ReadOnly() id?: unknown;
  @ReadOnly() workspaceId?: unknown;
  @ReadOnly() secret?: unknown;
  @ReadOnly() createdTime?: unknown;
  @ReadOnly() updatedTime?: unknown;
  @ReadOnly() createdBy?: unknown;
  @ReadOnly() updatedBy?: unknown;
}

export class CreateWebhookDto extends WebhookReadOnlyFields {
  @ApiProperty(URL_DOC)
  @Required()
  @Url()
  url!: string;

  @ApiProperty(EVENTS_DOC)
  @Required()
  @Events()
  events!: WebhookEventType[];

  @ApiPropertyOptional({
    maxLength: MAX_DESCRIPTION_LENGTH,
    nullable: true,
    type: String,
    example: 'CRM sync',
  })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_DESCRIPTION_LENGTH)
  description?: string | null;

  @ApiPropertyOptional({ default: true, description: 'Whether events are sent to it.' })
  @NotNullWhenSent()
  @IsBoolean()
  enabled?: boolean;
}

/** PATCH: any subset; `description: null` clears it. */
export class UpdateWebhookDto extends WebhookReadOnlyFields {
  @ApiPropertyOptional(URL_DOC)
  @NotNullWhenSent()
  @Url()
  url?: string;

  @ApiPropertyOptional(EVENTS_DOC)
  @NotNullWhenSent()
  @Events()
  events?: WebhookEventType[];

  @ApiPropertyOptional({
    maxLength: MAX_DESCRIPTION_LENGTH,
    nullable: true,
    type: String,
    example: 'CRM sync (production)',
  })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_DESCRIPTION_LENGTH)
  description?: string | null;

  @ApiPropertyOptional({
    example: false,
    description:
      'false: no new events are queued for it and its pending deliveries wait; true again: ' +
      'they go out (those whose 24 h ran out get one last attempt).',
  })
  @NotNullWhenSent()
  @IsBoolean()
  enabled?: boolean;
}
