import { likeContains, targetingValue, type SqlDialect } from '@app/core';
import type { AttributeValue } from '../holders/holder.entity';
import { namesStatus, type Condition, type Scalar, type ValueTest } from './audience';

/** A boolean SQL expression over `holder h` and the values it binds, in order. */
export interface SqlCondition {
  sql: string;
  params: unknown[];
}

/** What an audience needs of the pass: its face fields' own values (a holder's default). */
export interface AudiencePass {
  id: string;
  /** Face field key → the pass's value, which a holder without its own value shows. */
  fieldDefaults: ReadonlyMap<string, string>;
}

/**
 * The audience as one condition on `holder h` of the pass: every value bound, never spliced.
 * Tags and values are read through uncorrelated `h.id IN (SELECT holder_id …)` subqueries on
 * `holder_tag` and `holder_value`, narrowed by the pass, which MariaDB runs as semi-joins
 * driven from whichever side is smaller, and SQLite as one lookup table per subquery. Without a
 * status condition, only Active holders match (DESIGN.md §11).
 */
export function audienceSql(
  condition: Condition,
  pass: AudiencePass,
  dialect: SqlDialect,
): SqlCondition {
  const compiler = new AudienceCompiler(pass, dialect, () => '?');
  const sql = compiler.compile(condition);
  return { sql: withStatus(condition, sql), params: compiler.params };
}

/** {@link audienceSql} with named parameters (`:audience0`, …), for TypeORM's query builder. */
export function audienceSqlNamed(
  condition: Condition,
  pass: AudiencePass,
  dialect: SqlDialect,
): { sql: string; parameters: Record<string, unknown> } {
  const compiler = new AudienceCompiler(pass, dialect, (index) => `:audience${index}`);
  const sql = compiler.compile(condition);
  const parameters = Object.fromEntries(
    compiler.params.map((value, index) => [`audience${index}`, value]),
  );
  return { sql: withStatus(condition, sql), parameters };
}

const withStatus = (condition: Condition, sql: string): string =>
  namesStatus(condition) ? sql : `h.status = 'Active' AND ${sql}`;

class AudienceCompiler {
  readonly params: unknown[] = [];

  constructor(
    private readonly pass: AudiencePass,
    private readonly dialect: SqlDialect,
    private readonly placeholder: (index: number) => string,
  ) {}

  compile(condition: Condition): string {
    switch (condition.kind) {
      case 'all':
        return `(${condition.conditions.map((each) => this.compile(each)).join(' AND ')})`;
      case 'any':
        return `(${condition.conditions.map((each) => this.compile(each)).join(' OR ')})`;
      case 'not':
        return `NOT (${this.compile(condition.condition)})`;
      case 'tag':
        return `h.id IN (SELECT t.holder_id FROM holder_tag t WHERE t.pass_id = ${this.bind(this.pass.id)} AND t.tag = ${this.bind(condition.tag)})`;
      case 'attribute':
        return this.value('a', condition.name, condition.test, null);
      case 'field': {
        const fallback = this.pass.fieldDefaults.get(condition.name) ?? '';
        return this.value('f', condition.name, condition.test, fallback);
      }
      case 'installed':
        return INSTALLED_SQL[condition.place];
      case 'status':
        return `h.status = ${this.bind(condition.status)}`;
      case 'createdAfter':
        return `h.created_time > ${this.bind(this.dialect.writeDate(condition.time))}`;
      case 'createdBefore':
        return `h.created_time < ${this.bind(this.dialect.writeDate(condition.time))}`;
    }
  }

  /**
   * A value test on a holder's own value, or on `fallback` (a face field's value on the pass)
   * for a holder without one. A negative test (`ne`, `exists: false`) is its positive one
   * negated, so a holder without the value matches it.
   */
  private value(source: 'a' | 'f', name: string, test: ValueTest, fallback: string | null): string {
    const negated = test.op === 'ne' || (test.op === 'exists' && !test.operand);
    const positive: ValueTest =
      test.op === 'ne'
        ? { op: 'eq', operand: test.operand }
        : test.op === 'exists'
          ? { op: 'exists', operand: true }
          : test;
    let sql = this.holdersWithValue(source, name, positive);
    if (fallback !== null && valueMatches(positive, fallback)) {
      // Holders without their own value show the pass's, which passes the test.
      sql = `(${sql} OR h.id NOT IN ${this.withAnyValue(source, name)})`;
    }
    return negated ? `NOT (${sql})` : sql;
  }

  private holdersWithValue(source: 'a' | 'f', name: string, test: ValueTest): string {
    // Bound in the order they appear: the key first, then the test's operands.
    const key = this.valueKey(source, name);
    const where = this.valueWhere(test);
    return `h.id IN (SELECT v.holder_id FROM holder_value v WHERE ${key}${where === '' ? '' : ` AND ${where}`})`;
  }

  private withAnyValue(source: 'a' | 'f', name: string): string {
    return `(SELECT v.holder_id FROM holder_value v WHERE ${this.valueKey(source, name)})`;
  }

  private valueKey(source: 'a' | 'f', name: string): string {
    return `v.pass_id = ${this.bind(this.pass.id)} AND v.source = '${source}' AND v.name = ${this.bind(name)}`;
  }

  /** The test on `holder_value v`, for a positive test (see {@link value}). */
  private valueWhere(test: ValueTest): string {
    switch (test.op) {
      case 'exists':
        return '';
      case 'eq':
      case 'ne':
        return this.equals(test.operand);
      case 'in':
        return `(${test.operands.map((operand) => this.equals(operand)).join(' OR ')})`;
      case 'gt':
      case 'gte':
      case 'lt':
      case 'lte': {
        const column = typeof test.operand === 'number' ? 'v.number_value' : 'v.text_value';
        return `${column} ${COMPARISONS[test.op]} ${this.bind(test.operand)}`;
      }
      case 'contains':
        return `LOWER(v.text_value) LIKE ${this.bind(likeContains(test.operand))} ESCAPE '!'`;
    }
  }

  private equals(operand: Scalar): string {
    if (typeof operand === 'number') return `v.number_value = ${this.bind(operand)}`;
    if (typeof operand === 'boolean') {
      return `(v.value_type = 'b' AND v.text_value = ${this.bind(String(operand))})`;
    }
    return `v.text_value = ${this.bind(operand)}`;
  }

  private bind(value: unknown): string {
    this.params.push(value);
    return this.placeholder(this.params.length - 1);
  }
}

const COMPARISONS = { gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;

const INSTALLED_SQL = {
  walletA: 'h.apple_installed_count > 0',
  walletB: 'h.google_installed_count > 0',
  any: '(h.apple_installed_count > 0 OR h.google_installed_count > 0)',
  none: '(h.apple_installed_count = 0 AND h.google_installed_count = 0)',
} as const;

/**
 * The same test in memory, on one value as `holder_value` keeps it (null: no value): the SQL
 * above, for the pass's own field values, and the reference its tests compare the SQL with.
 */
export function valueMatches(test: ValueTest, raw: AttributeValue | null): boolean {
  const value = raw === null ? null : targetingValue(raw);
  const equals = (operand: Scalar): boolean => {
    if (value === null) return false;
    if (typeof operand === 'number') return value.numberValue === operand;
    if (typeof operand === 'boolean') {
      return value.valueType === 'b' && value.textValue === String(operand);
    }
    return value.textValue === operand;
  };
  switch (test.op) {
    case 'exists':
      return (value !== null) === test.operand;
    case 'eq':
      return equals(test.operand);
    case 'ne':
      return !equals(test.operand);
    case 'in':
      return test.operands.some(equals);
    case 'contains':
      return value !== null && value.textValue.toLowerCase().includes(test.operand.toLowerCase());
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      if (value === null) return false;
      const left = typeof test.operand === 'number' ? value.numberValue : value.textValue;
      if (left === null) return false;
      const right = test.operand;
      switch (test.op) {
        case 'gt':
          return left > right;
        case 'gte':
          return left >= right;
        case 'lt':
          return left < right;
        case 'lte':
          return left <= right;
      }
    }
  }
}
