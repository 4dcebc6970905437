import { InvalidInputError, isIsoDateTime, ISO_DATE_TIME_MESSAGE } from '@app/core';
import { HOLDER_STATUSES, type HolderStatus } from '@app/passes';
import { ATTRIBUTE_KEY_PATTERN, TAG_PATTERN } from '@app/holders';

/**
 * An audience: the JSON condition tree a client sends, checked and read into
 * {@link Condition}s. The JSON itself is what segments and notifications keep and show.
 */
export type AudienceJson = Record<string, unknown>;

export const MAX_AUDIENCE_NODES = 100;
export const MAX_AUDIENCE_DEPTH = 6;
export const MAX_IN_VALUES = 1000;
/**
 * Values of every `in` list of one audience together: they are bound one parameter each, and
 * SQLite binds at most 32,766 in a statement.
 */
export const MAX_AUDIENCE_VALUES = 5000;
/**
 * `contains` tests in one audience. Each reads every value of its key for the pass and lowers
 * its text (no index can help a substring), so their number is what an audience's cost grows
 * with: 99 of them over 10,000 holders took 1.2 s on SQLite, 10 take about a tenth of that.
 */
export const MAX_CONTAINS_TESTS = 10;
/** A compared text is at most a face field value's length. */
const MAX_OPERAND_TEXT = 2000;

export type Scalar = string | number | boolean;

/** A test of one value (an attribute, or a face field's effective value). */
export type ValueTest =
  | { op: 'eq' | 'ne'; operand: Scalar }
  | { op: 'in'; operands: Scalar[] }
  | { op: 'gt' | 'gte' | 'lt' | 'lte'; operand: string | number }
  | { op: 'exists'; operand: boolean }
  | { op: 'contains'; operand: string };

export const VALUE_OPS = [
  'eq',
  'ne',
  'in',
  'gt',
  'gte',
  'lt',
  'lte',
  'exists',
  'contains',
] as const;
type ValueOp = (typeof VALUE_OPS)[number];

export const INSTALLED_PLACES = ['walletA', 'walletB', 'any', 'none'] as const;
export type InstalledPlace = (typeof INSTALLED_PLACES)[number];

/** A checked audience node. */
export type Condition =
  | { kind: 'all' | 'any'; conditions: Condition[] }
  | { kind: 'not'; condition: Condition }
  | { kind: 'tag'; tag: string }
  | { kind: 'field' | 'attribute'; name: string; test: ValueTest }
  | { kind: 'installed'; place: InstalledPlace }
  | { kind: 'status'; status: HolderStatus }
  | { kind: 'createdAfter' | 'createdBefore'; time: Date };

const NODE_KEYS = [
  'all',
  'any',
  'not',
  'tag',
  'field',
  'attribute',
  'installed',
  'status',
  'createdAfter',
  'createdBefore',
] as const;

const NODE_RULE = `must be an object with exactly one of ${NODE_KEYS.join(', ')}`;

/**
 * Reads an audience, refusing it with every problem keyed by its path (`audience.all.2.gte`):
 * a node that is not exactly one condition, an unknown operator, an operand of the wrong type,
 * a tag or attribute key out of its pattern, a face field the pass does not have (`fieldKeys`;
 * null: any key, for a segment saved before the pass lost a field, which then has no value),
 * more than 100 nodes or a depth over 6, more than {@link MAX_AUDIENCE_VALUES} `in` values or
 * {@link MAX_CONTAINS_TESTS} `contains` tests. Every route that takes an audience reads it here,
 * so an audience one of them takes, every other takes too.
 */
export function readAudience(
  json: unknown,
  fieldKeys: readonly string[] | null,
  at = 'audience',
): Condition {
  const reader = new AudienceReader(fieldKeys);
  const condition = reader.node(json, at, 1);
  if (reader.nodes > MAX_AUDIENCE_NODES) {
    reader.problems[at] ??= `must have at most ${MAX_AUDIENCE_NODES} conditions`;
  }
  if (reader.values > MAX_AUDIENCE_VALUES) {
    reader.problems[at] ??=
      `must have at most ${MAX_AUDIENCE_VALUES} values in its in lists together`;
  }
  if (reader.containsTests > MAX_CONTAINS_TESTS) {
    reader.problems[at] ??= `must have at most ${MAX_CONTAINS_TESTS} contains tests`;
  }
  if (Object.keys(reader.problems).length > 0) throw new InvalidInputError(reader.problems);
  return condition!;
}

/** Whether the audience says which statuses it takes (else it takes Active holders only). */
export function namesStatus(condition: Condition): boolean {
  switch (condition.kind) {
    case 'all':
    case 'any':
      return condition.conditions.some(namesStatus);
    case 'not':
      return namesStatus(condition.condition);
    default:
      return condition.kind === 'status';
  }
}

class AudienceReader {
  readonly problems: Record<string, string> = {};
  nodes = 0;
  values = 0;
  containsTests = 0;

  constructor(private readonly fieldKeys: readonly string[] | null) {}

  node(json: unknown, at: string, depth: number): Condition | undefined {
    this.nodes += 1;
    if (typeof json !== 'object' || json === null || Array.isArray(json)) {
      return this.problem(at, NODE_RULE);
    }
    const keys = Object.keys(json);
    const kinds = keys.filter((key) => (NODE_KEYS as readonly string[]).includes(key));
    if (kinds.length !== 1) return this.problem(at, NODE_RULE);
    const kind = kinds[0] as (typeof NODE_KEYS)[number];
    const node = json as Record<string, unknown>;
    const value = node[kind];
    if (kind === 'field' || kind === 'attribute') return this.valueNode(kind, node, at);
    const extra = keys.find((key) => key !== kind);
    if (extra !== undefined) return this.problem(`${at}.${extra}`, `is not allowed beside ${kind}`);
    const path = `${at}.${kind}`;
    switch (kind) {
      case 'all':
      case 'any':
        return this.group(kind, value, path, depth);
      case 'not': {
        if (depth >= MAX_AUDIENCE_DEPTH) return this.tooDeep(path);
        const condition = this.node(value, path, depth + 1);
        return condition && { kind, condition };
      }
      case 'tag':
        return typeof value === 'string' && TAG_PATTERN.test(value)
          ? { kind, tag: value }
          : this.problem(path, 'must be a tag: 1 to 64 letters, digits or . _ : -');
      case 'installed':
        return (INSTALLED_PLACES as readonly unknown[]).includes(value)
          ? { kind, place: value as InstalledPlace }
          : this.problem(path, `must be one of ${INSTALLED_PLACES.join(', ')}`);
      case 'status':
        return (HOLDER_STATUSES as readonly unknown[]).includes(value)
          ? { kind, status: value as HolderStatus }
          : this.problem(path, `must be one of ${HOLDER_STATUSES.join(', ')}`);
      case 'createdAfter':
      case 'createdBefore':
        return isIsoDateTime(value)
          ? { kind, time: new Date(value) }
          : this.problem(path, ISO_DATE_TIME_MESSAGE);
    }
  }

  private group(
    kind: 'all' | 'any',
    value: unknown,
    at: string,
    depth: number,
  ): Condition | undefined {
    if (!Array.isArray(value) || value.length === 0) {
      return this.problem(at, 'must be a non-empty array of conditions');
    }
    if (depth >= MAX_AUDIENCE_DEPTH) return this.tooDeep(at);
    if (this.nodes + value.length > MAX_AUDIENCE_NODES) {
      this.nodes += value.length;
      return undefined;
    }
    const children: unknown[] = value;
    const conditions = children.map((child, index) =>
      this.node(child, `${at}.${index}`, depth + 1),
    );
    const read = conditions.filter((condition) => condition !== undefined);
    return read.length === conditions.length ? { kind, conditions: read } : undefined;
  }

  private valueNode(
    kind: 'field' | 'attribute',
    node: Record<string, unknown>,
    at: string,
  ): Condition | undefined {
    const name = node[kind];
    const path = `${at}.${kind}`;
    let problem = false;
    if (kind === 'attribute' && (typeof name !== 'string' || !ATTRIBUTE_KEY_PATTERN.test(name))) {
      this.problem(path, `must be an attribute key matching ${ATTRIBUTE_KEY_PATTERN.source}`);
      problem = true;
    }
    const knownField =
      typeof name === 'string' && (this.fieldKeys === null || this.fieldKeys.includes(name));
    if (kind === 'field' && !knownField) {
      this.problem(
        path,
        this.fieldKeys === null
          ? 'must be a face field key'
          : this.fieldKeys.length === 0
            ? 'is not a face field of the pass: it has none'
            : `is not a face field of the pass; its keys are ${this.fieldKeys.join(', ')}`,
      );
      problem = true;
    }
    const others = Object.keys(node).filter((key) => key !== kind);
    const unknown = others.find((key) => !(VALUE_OPS as readonly string[]).includes(key));
    if (unknown !== undefined) {
      return this.problem(
        `${at}.${unknown}`,
        `is not an operator: use one of ${VALUE_OPS.join(', ')}`,
      );
    }
    if (others.length !== 1) {
      return this.problem(at, `must have exactly one operator of ${VALUE_OPS.join(', ')}`);
    }
    const op = others[0] as ValueOp;
    const test = this.test(op, node[op], `${at}.${op}`);
    return problem || test === undefined ? undefined : { kind, name: name as string, test };
  }

  private test(op: ValueOp, operand: unknown, at: string): ValueTest | undefined {
    switch (op) {
      case 'eq':
      case 'ne':
        return isScalar(operand)
          ? { op, operand }
          : this.problem(at, 'must be a text, a finite number or a boolean');
      case 'in': {
        if (!Array.isArray(operand) || operand.length === 0 || operand.length > MAX_IN_VALUES) {
          return this.problem(at, `must be an array of 1 to ${MAX_IN_VALUES} values`);
        }
        this.values += operand.length;
        const bad = operand.findIndex((each) => !isScalar(each));
        return bad === -1
          ? { op, operands: operand as Scalar[] }
          : this.problem(`${at}.${bad}`, 'must be a text, a finite number or a boolean');
      }
      case 'gt':
      case 'gte':
      case 'lt':
      case 'lte':
        return (typeof operand === 'string' && operand.length <= MAX_OPERAND_TEXT) ||
          isFiniteNumber(operand)
          ? { op, operand }
          : this.problem(at, 'must be a number or a text (ISO dates order as text)');
      case 'exists':
        return typeof operand === 'boolean'
          ? { op, operand }
          : this.problem(at, 'must be a boolean');
      case 'contains':
        this.containsTests += 1;
        return typeof operand === 'string' && operand !== '' && operand.length <= MAX_OPERAND_TEXT
          ? { op, operand }
          : this.problem(at, `must be a text of 1 to ${MAX_OPERAND_TEXT} characters`);
    }
  }

  private tooDeep(at: string): undefined {
    return this.problem(at, `nests deeper than ${MAX_AUDIENCE_DEPTH} levels`);
  }

  private problem(at: string, message: string): undefined {
    this.problems[at] ??= message;
    return undefined;
  }
}

const isFiniteNumber = (value: unknown): value is number =>
  typeof value === 'number' && Number.isFinite(value);

const isScalar = (value: unknown): value is Scalar =>
  (typeof value === 'string' && value.length <= MAX_OPERAND_TEXT) ||
  isFiniteNumber(value) ||
  typeof value === 'boolean';

/**
 * Room a JSON body needs for the largest audience {@link readAudience} takes (one `in` list of
 * {@link MAX_IN_VALUES}; every value and node), so that no route refuses at its door an
 * audience another route takes. Each route adds its own fields to these.
 */
export const AUDIENCE_BODY_LIMITS = {
  maxBytes: 1024 * 1024,
  maxItems: MAX_IN_VALUES,
  maxValues: MAX_AUDIENCE_VALUES + 4 * MAX_AUDIENCE_NODES,
} as const;
