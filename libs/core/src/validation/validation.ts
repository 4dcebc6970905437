import { ISO_DATE_TIME_MESSAGE, isIsoDateTime } from './iso-date-time';
import { applyDecorators, ValidationError, ValidationPipe } from '@nestjs/common';
import { ApiHideProperty, ApiProperty } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  Allow,
  ArrayMaxSize,
  IsArray,
  IsDefined,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  ValidateBy,
  ValidateNested,
  ValidationOptions,
} from 'class-validator';
import { InvalidInputError } from '../errors/domain-errors';
import { ID_PATTERN } from '../ids/ids';
import { stripPrototypeKeys } from './free-form';
import { cacheValidationMetadata } from './validation-metadata-cache';

/** The spec's messages for a missing and an empty required value. */
export const MUST_NOT_BE_NULL = 'must not be null';
export const MUST_NOT_BE_EMPTY = 'must not be empty';
export const MUST_BE_OBJECT = 'must be an object';
export const EACH_MUST_BE_OBJECT = 'must be a list of objects';

type DtoClass = new () => object;

/**
 * A nested object validated as `type`. class-validator's ValidateNested walks into an array
 * instead of refusing it, so without the object check `passMetadata: []` was stored as is and
 * `account: [[]]` reached the service unvalidated.
 */
export const NestedObject = (type: () => DtoClass): PropertyDecorator =>
  applyDecorators(IsObject({ message: MUST_BE_OBJECT }), ValidateNested(), Type(type));

/** A list of nested objects validated as `type` (each element an object, not a list). */
export const NestedObjects = (type: () => DtoClass): PropertyDecorator =>
  applyDecorators(
    IsArray(),
    IsObject({ each: true, message: EACH_MUST_BE_OBJECT }),
    ValidateNested({ each: true }),
    Type(type),
  );

/** Required: absent or `null` fails with the spec's `must not be null`. */
export const Required = (options?: ValidationOptions): PropertyDecorator =>
  IsDefined({ ...options, message: MUST_NOT_BE_NULL });

/** A required string that also may not be empty: `must not be empty`. */
export const NotEmpty = (options?: ValidationOptions): PropertyDecorator =>
  IsNotEmpty({ ...options, message: MUST_NOT_BE_EMPTY });

const BASE64_ALPHABET = new Uint8Array(128);
for (const char of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/') {
  BASE64_ALPHABET[char.charCodeAt(0)] = 1;
}

/**
 * Standard base64 with its padding, checked in one pass. class-validator's `IsBase64` runs a
 * backtracking regular expression that overflows the stack on a file-sized string (an upload
 * of UPLOAD_MAX_BYTES is 14 M characters), which surfaced as a 500.
 */
export function isPaddedBase64(value: string): boolean {
  if (value.length % 4 !== 0) return false;
  let end = value.length;
  if (value.endsWith('==')) end -= 2;
  else if (value.endsWith('=')) end -= 1;
  for (let index = 0; index < end; index++) {
    const code = value.charCodeAt(index);
    if (code >= 128 || BASE64_ALPHABET[code] === 0) return false;
  }
  return true;
}

/** A string of {@link isPaddedBase64} text. */
export const IsPaddedBase64 = (options?: ValidationOptions): PropertyDecorator =>
  ValidateBy(
    {
      name: 'isPaddedBase64',
      validator: {
        validate: (value: unknown) => typeof value === 'string' && isPaddedBase64(value),
        defaultMessage: () => 'must be base64-encoded',
      },
    },
    options,
  );

/**
 * List query parameters accept both `status=A&status=B` and `status=A,B`.
 * Empty parts are dropped, so `status=` is an empty filter rather than a filter on "".
 */
export const QueryList = (): PropertyDecorator =>
  Transform(({ value }: { value: unknown }) => {
    if (value === undefined || value === null) return undefined;
    const parts = (Array.isArray(value) ? value : [value]).flatMap((item) =>
      String(item).split(','),
    );
    return parts.map((part) => part.trim()).filter((part) => part.length > 0);
  });

/** Query booleans arrive as text: only `true`/`false` (and 1/0) are accepted. */
export const QueryBoolean = (): PropertyDecorator =>
  Transform(({ value }: { value: unknown }) => {
    if (value === 'true' || value === '1' || value === true) return true;
    if (value === 'false' || value === '0' || value === false) return false;
    return value;
  });

/**
 * Reported first, in this order: a missing or empty value, then a value of the wrong type,
 * explain every other failure of the same field ("must not be null" rather than "must be a
 * string", "must be a string" rather than "must be shorter than ...").
 */
const BASIC_CONSTRAINTS = [
  'whitelistValidation',
  'isDefined',
  'isNotEmpty',
  'isString',
  'isInt',
  'isNumber',
  'isBoolean',
  'isArray',
  'isObject',
  'nestedValidation',
];

function pathOf(parent: string, property: string): string {
  if (/^\d+$/.test(property)) return `${parent}[${property}]`;
  return parent === '' ? property : `${parent}.${property}`;
}

function messageOf(constraint: string, message: string, property: string): string {
  if (constraint === 'whitelistValidation') return 'is not a known field';
  // class-validator starts its default messages with the property name; the key says it already.
  const prefix = `${property} `;
  return message.startsWith(prefix) ? message.slice(prefix.length) : message;
}

/** Flattens class-validator's tree into `{ "passMetadata.topField.key": "must not be null" }`. */
export function flattenValidationErrors(
  errors: ValidationError[],
  parent = '',
  into: Record<string, string> = {},
): Record<string, string> {
  for (const error of errors) {
    const path = pathOf(parent, error.property);
    const constraints = Object.entries(error.constraints ?? {});
    if (constraints.length > 0 && into[path] === undefined) {
      const basic = BASIC_CONSTRAINTS.find((name) => error.constraints?.[name] !== undefined);
      const [constraint, message] =
        basic !== undefined ? [basic, error.constraints![basic]] : constraints[0];
      into[path] = messageOf(constraint, message, error.property);
    }
    if (error.children && error.children.length > 0) {
      flattenValidationErrors(error.children, path, into);
    }
  }
  return into;
}

/** Nest's pipe, whose strip of prototype keys remembers what free-form values were sent. */
class BodyValidationPipe extends ValidationPipe {
  protected override stripProtoKeys(value: unknown): void {
    stripPrototypeKeys(value);
  }
}

/**
 * The global pipe: unknown fields rejected, payloads transformed into DTO instances, free-form
 * values (`FreeForm`) kept with every key sent.
 */
export function createValidationPipe(): ValidationPipe {
  cacheValidationMetadata();
  return new BodyValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => new InvalidInputError(flattenValidationErrors(errors)),
  });
}

/**
 * A response field a client may echo back in a request body: accepted and ignored, so a client
 * can send back what it read (docs/decisions.md, "A resource's own answer is a body it takes").
 * Hidden from the request schema in Swagger.
 */
export const ReadOnly = (): PropertyDecorator => applyDecorators(Allow(), ApiHideProperty());

/** The message of every id check: what an id must look like. */
export const ID_MESSAGE = { message: `must match ${ID_PATTERN.source}` };

/**
 * An id in a path (`{id}`, `{holderId}`, …): a string of the spec's id pattern, at most 64
 * characters, documented with its pattern and, if given, an example.
 */
export const PathId = (example?: string): PropertyDecorator =>
  // Listed in the order stacked decorators apply (bottom first), so the checks and their
  // messages come in the order every path parameter has always given them.
  applyDecorators(
    MaxLength(64),
    Matches(ID_PATTERN, ID_MESSAGE),
    IsString(),
    ApiProperty(
      example === undefined
        ? { pattern: ID_PATTERN.source }
        : { pattern: ID_PATTERN.source, example },
    ),
  );

/** An optional id in a query string: the spec's id pattern, at most 64 characters. */
export const QueryId = (): PropertyDecorator =>
  applyDecorators(IsOptional(), IsString(), MaxLength(64), Matches(ID_PATTERN, ID_MESSAGE));

/** An optional list of ids (repeated or comma-separated), at most 100 of them. */
export const QueryIdList = (): PropertyDecorator =>
  applyDecorators(
    IsOptional(),
    QueryList(),
    ArrayMaxSize(100),
    MaxLength(64, { each: true }),
    Matches(ID_PATTERN, { each: true, ...ID_MESSAGE }),
  );

/** {@link isIsoDateTime} as a property decorator. */
export const IsIsoDateTime = (options?: ValidationOptions): PropertyDecorator =>
  ValidateBy(
    {
      name: 'isIsoDateTime',
      validator: {
        validate: (value: unknown) => isIsoDateTime(value),
        defaultMessage: () => ISO_DATE_TIME_MESSAGE,
      },
    },
    options,
  );

export { ISO_DATE_TIME_MESSAGE, isIsoDateTime };
