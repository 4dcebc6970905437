import { applyDecorators } from '@nestjs/common';
import {
  Exclude,
  plainToInstance,
  Transform,
  Type,
  type ClassConstructor,
} from 'class-transformer';

/**
 * Free-form values of a body: records whose keys are the client's (a holder's attributes and
 * field values, a bulk change's increments, a pass's localizations). Every key must come through
 * as sent, `constructor`, `valueOf` and `toString` included, and none may reach a prototype.
 *
 * Two steps lose such keys on the way to a DTO. Nest's ValidationPipe deletes `__proto__`,
 * `prototype` and `constructor` from every object of a body before class-transformer reads it
 * (class-transformer would take an own `constructor` for the object's class, and fail on it);
 * and class-transformer copies no key that names a method of the object it builds (`valueOf`,
 * `hasOwnProperty`, ...), so those were answered 201 and dropped. Hence:
 *
 * - {@link stripPrototypeKeys}, the pipe's strip, remembers the entries of every object it takes
 *   keys from;
 * - a property marked {@link FreeForm} is not walked by class-transformer (its type exposes
 *   nothing) and is given a copy of the value as sent, built from those entries with
 *   `Object.fromEntries` (own data properties, so even a key `__proto__` is only a key: the
 *   rules of the record then refuse what is no key of theirs).
 */

/** Entries of the objects stripped of a key, as sent; they go with their request's objects. */
const entriesBeforeStrip = new WeakMap<object, [string, unknown][]>();

const STRIPPED_KEYS = ['__proto__', 'prototype', 'constructor'] as const;

/** Objects the pipe leaves as they are (none comes out of a JSON or multipart parser). */
const BUILT_IN_TYPES = [Date, RegExp, Error, Map, Set, WeakMap, WeakSet];

/**
 * What Nest's ValidationPipe does to a body before class-transformer reads it, in place: takes
 * `__proto__`, `prototype` and `constructor` out of every object, at every depth; and remembers
 * the entries of each object it changes, for {@link FreeForm}.
 */
export function stripPrototypeKeys(value: unknown): void {
  if (typeof value !== 'object' || value === null || ArrayBuffer.isView(value)) return;
  if (BUILT_IN_TYPES.some((type) => value instanceof type)) return;
  if (Array.isArray(value)) {
    // Object.values skips the holes of a sparse array, however long it claims to be.
    for (const item of Object.values(value)) stripPrototypeKeys(item);
    return;
  }
  const record = value as Record<string, unknown>;
  if (STRIPPED_KEYS.some((key) => Object.hasOwn(record, key))) {
    entriesBeforeStrip.set(record, Object.entries(record));
    for (const key of STRIPPED_KEYS) delete record[key];
  }
  for (const item of Object.values(record)) stripPrototypeKeys(item);
}

/**
 * A free-form value as the client sent it: objects rebuilt from their entries as they were
 * before {@link stripPrototypeKeys} (or as they are), at every depth, with `Object.fromEntries`:
 * plain objects of own data properties, so no key reaches a prototype.
 */
export function freeFormValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(freeFormValue);
  if (typeof value !== 'object' || value === null) return value;
  const entries = entriesBeforeStrip.get(value) ?? Object.entries(value);
  return Object.fromEntries(entries.map(([key, item]) => [key, freeFormValue(item)]));
}

/** What class-transformer builds of a free-form value: nothing (it exposes no key). */
@Exclude()
class Untouched {}

/**
 * A property whose value is free-form (see the top of this file): class-transformer leaves its
 * keys alone and the DTO gets {@link freeFormValue} of the value sent. Its checks (an object,
 * its keys and values) are the DTO's and the service's, as before.
 */
export const FreeForm = (): PropertyDecorator =>
  applyDecorators(
    Type(() => Untouched),
    Transform(({ obj, key }) => freeFormValue((obj as Record<string, unknown>)[key]), {
      toClassOnly: true,
    }),
  );

/**
 * A plain value as a DTO, as the global pipe makes one (prototype keys stripped, free-form
 * values kept whole): for rows checked one by one outside the pipe (an import's).
 */
export function plainToDto<T>(type: ClassConstructor<T>, plain: object): T {
  stripPrototypeKeys(plain);
  return plainToInstance(type, plain);
}
