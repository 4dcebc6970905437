import { readBulkChanges } from '@app/audiences';
import { ATTRIBUTE_KEY_PATTERN, MAX_TAGS, normalTags, tagProblems } from '@app/holders';
import { ianaTimeZone } from '@app/kinds';
import type { AttributeValue, Pass } from '@app/passes';

/** The most automations a pass has. */
export const MAX_AUTOMATIONS_PER_PASS = 50;
/** The most actions an automation runs. */
export const MAX_ACTIONS = 10;
/** A notify action's message: as long as a notification's may be. */
export const MAX_NOTIFY_MESSAGE_LENGTH = 1000;

/** The events of a holder an automation may react to, besides a yearly date. */
export const HOLDER_TRIGGERS = [
  'holder.created',
  'holder.installed',
  'holder.uninstalled',
  'holder.entered',
] as const;
export const TRIGGERS = [...HOLDER_TRIGGERS, 'date'] as const;

export type AutomationTrigger =
  | { on: (typeof HOLDER_TRIGGERS)[number] }
  | { on: 'date'; attribute: string; time: string; timeZone: string };

export const ACTIONS = ['addTags', 'removeTags', 'set', 'increment', 'notify'] as const;

export type AutomationAction =
  | { addTags: string[] }
  | { removeTags: string[] }
  | {
      set: {
        fieldValues?: Record<string, string | null>;
        attributes?: Record<string, AttributeValue | null>;
      };
    }
  | { increment: Record<string, number> }
  | { notify: { message: string } };

const ONE_ACTION = `exactly one of ${ACTIONS.map((name) => `{"${name}": …}`).join(', ')}`;

/** A local time of day, 00:00 to 23:59. */
const TIME_OF_DAY = /^(?:[01]\d|2[0-3]):[0-5]\d$/;

const DATE_FIELDS = ['on', 'attribute', 'time', 'timeZone'] as const;
const SET_FIELDS = ['fieldValues', 'attributes'] as const;

type Problems = Record<string, string>;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Reads a trigger: exactly one of the five shapes, nothing else in it. A date trigger's time
 * zone is kept as the time zone database spells it (`europe/zurich` is `Europe/Zurich`).
 */
export function readTrigger(
  json: unknown,
  at = 'trigger',
): { trigger: AutomationTrigger; problems?: undefined } | { problems: Problems } {
  if (!isObject(json)) return { problems: { [at]: 'must be an object' } };
  const on = json.on;
  if (typeof on !== 'string' || !(TRIGGERS as readonly string[]).includes(on)) {
    return { problems: { [`${at}.on`]: `must be one of ${TRIGGERS.join(', ')}` } };
  }
  const allowed: readonly string[] = on === 'date' ? DATE_FIELDS : ['on'];
  const problems: Problems = {};
  for (const key of Object.keys(json)) {
    if (!allowed.includes(key)) problems[`${at}.${key}`] = `is not a field of the ${on} trigger`;
  }
  if (on !== 'date') {
    return Object.keys(problems).length > 0
      ? { problems }
      : { trigger: { on: on as (typeof HOLDER_TRIGGERS)[number] } };
  }
  const { attribute, time, timeZone } = json;
  if (typeof attribute !== 'string' || !ATTRIBUTE_KEY_PATTERN.test(attribute)) {
    problems[`${at}.attribute`] =
      `must be an attribute key matching ${ATTRIBUTE_KEY_PATTERN.source}`;
  }
  if (typeof time !== 'string' || !TIME_OF_DAY.test(time)) {
    problems[`${at}.time`] = 'must be a local time HH:MM, 00:00 to 23:59';
  }
  const zone = typeof timeZone === 'string' ? ianaTimeZone(timeZone) : null;
  if (zone === null) problems[`${at}.timeZone`] = 'must be an IANA time zone, e.g. Europe/Zurich';
  if (Object.keys(problems).length > 0) return { problems };
  return {
    trigger: { on: 'date', attribute: attribute as string, time: time as string, timeZone: zone! },
  };
}

/**
 * Reads the actions against the pass, every problem keyed by its path (`actions.2.increment`):
 * 1 to 10 objects, each exactly one action. Tags, `set` and `increment` follow the rules of a
 * bulk change (the holder PATCH rules for field values and attributes: a key of a face field of
 * the pass, null back to the pass's value; an attribute key, null removes it), with their paths
 * under the action's.
 */
export function readActions(
  pass: Pick<Pass, 'passMetadata'>,
  json: unknown,
  at = 'actions',
): { actions: AutomationAction[]; problems?: undefined } | { problems: Problems } {
  if (!Array.isArray(json) || json.length === 0 || json.length > MAX_ACTIONS) {
    return { problems: { [at]: `must be a list of 1 to ${MAX_ACTIONS} actions` } };
  }
  const problems: Problems = {};
  const actions: AutomationAction[] = [];
  json.forEach((item: unknown, index) => {
    const read = readAction(pass, item, `${at}.${index}`);
    if (read.problems !== undefined) Object.assign(problems, read.problems);
    else actions.push(read.action);
  });
  return Object.keys(problems).length > 0 ? { problems } : { actions };
}

function readAction(
  pass: Pick<Pass, 'passMetadata'>,
  json: unknown,
  at: string,
): { action: AutomationAction; problems?: undefined } | { problems: Problems } {
  if (!isObject(json)) return { problems: { [at]: `must be ${ONE_ACTION}` } };
  const keys = Object.keys(json);
  const unknown = keys.filter((key) => !(ACTIONS as readonly string[]).includes(key));
  if (unknown.length > 0) {
    return {
      problems: Object.fromEntries(
        unknown.map((key) => [`${at}.${key}`, `is not an action; give ${ONE_ACTION}`]),
      ),
    };
  }
  if (keys.length !== 1) return { problems: { [at]: `must be ${ONE_ACTION}` } };
  const name = keys[0] as (typeof ACTIONS)[number];
  const value = json[name];
  const path = `${at}.${name}`;
  switch (name) {
    case 'addTags':
    case 'removeTags': {
      if (Array.isArray(value) && value.length === 0) {
        return { problems: { [path]: `must be a list of 1 to ${MAX_TAGS} tags` } };
      }
      const problems = tagProblems(value, path);
      if (Object.keys(problems).length > 0) return { problems };
      const tags = normalTags(value as string[]);
      return { action: name === 'addTags' ? { addTags: tags } : { removeTags: tags } };
    }
    case 'set':
      return readSet(pass, value, path);
    case 'increment': {
      if (!isObject(value) || Object.keys(value).length === 0) {
        return { problems: { [path]: 'must be an object of at least one key and its number' } };
      }
      const read = readBulkChanges(pass, { increment: value });
      if (read.problems !== undefined) return { problems: under(read.problems, 'increment', path) };
      return {
        action: {
          increment: { ...read.changes.incrementFields, ...read.changes.incrementAttributes },
        },
      };
    }
    case 'notify':
      return readNotify(value, path);
  }
}

function readSet(
  pass: Pick<Pass, 'passMetadata'>,
  value: unknown,
  path: string,
): { action: AutomationAction; problems?: undefined } | { problems: Problems } {
  if (!isObject(value)) return { problems: { [path]: 'must be an object' } };
  const problems: Problems = {};
  for (const key of Object.keys(value)) {
    if (!(SET_FIELDS as readonly string[]).includes(key)) {
      problems[`${path}.${key}`] = `is not a field of set; give ${SET_FIELDS.join(' or ')}`;
    }
  }
  const { fieldValues, attributes } = value;
  for (const [key, given] of [
    ['fieldValues', fieldValues],
    ['attributes', attributes],
  ] as const) {
    if (given !== undefined && !isObject(given)) problems[`${path}.${key}`] = 'must be an object';
  }
  if (Object.keys(problems).length > 0) return { problems };
  const given = (object: unknown) => isObject(object) && Object.keys(object).length > 0;
  if (!given(fieldValues) && !given(attributes)) {
    return { problems: { [path]: 'give fieldValues or attributes, with at least one key' } };
  }
  const read = readBulkChanges(pass, {
    set: {
      ...(fieldValues === undefined ? {} : { fieldValues: fieldValues as Record<string, unknown> }),
      ...(attributes === undefined ? {} : { attributes: attributes as Record<string, unknown> }),
    },
  });
  if (read.problems !== undefined) return { problems: under(read.problems, 'set', path) };
  return {
    action: { set: read.changes.set },
  };
}

function readNotify(
  value: unknown,
  path: string,
): { action: AutomationAction; problems?: undefined } | { problems: Problems } {
  if (!isObject(value)) return { problems: { [path]: 'must be an object {"message": …}' } };
  const problems: Problems = {};
  for (const key of Object.keys(value)) {
    if (key !== 'message') problems[`${path}.${key}`] = 'is not a field of notify; give message';
  }
  const { message } = value;
  // Counted as the notifications' message is (class-validator's MaxLength): by code point.
  if (typeof message !== 'string' || message.length === 0) {
    problems[`${path}.message`] = 'must be a non-empty text';
  } else if ([...message].length > MAX_NOTIFY_MESSAGE_LENGTH) {
    problems[`${path}.message`] =
      `must be shorter than or equal to ${MAX_NOTIFY_MESSAGE_LENGTH} characters`;
  }
  return Object.keys(problems).length > 0
    ? { problems }
    : { action: { notify: { message: message as string } } };
}

/** Problems keyed under `from` (`set.attributes.x`) moved under `to` (`actions.1.set.attributes.x`). */
function under(problems: Problems, from: string, to: string): Problems {
  return Object.fromEntries(
    Object.entries(problems).map(([key, problem]) => [
      key === from || key.startsWith(`${from}.`) ? to + key.slice(from.length) : `${to}.${key}`,
      problem,
    ]),
  );
}
