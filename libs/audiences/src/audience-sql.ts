import { likeContains, type SqlDialect } from '@app/core';
import { targetingValue } from '@app/holders';
import type { AttributeValue } from '@app/passes';
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
 * status condition, only Active holders match.
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

/** Tests joined in FROM by {@link audienceSizeQuery}, at most: MariaDB joins ≤ 61 tables. */
const MAX_JOINED_TESTS = 8;

/**
 * The query that sizes an audience (`AudiencesService.size`): the holders of the pass it
 * matches, and the WalletA devices and WalletB objects of those that are Active.
 *
 * When at least two of the tests every match must pass have a row of their own to pass on (the
 * tag and positive value tests at the top of the audience, `all`s flattened), those rows are
 * joined in FROM ahead of `holder h`, and the rest is {@link audienceSql}'s condition. Both
 * databases then start from one test's index, read the other tests' rows, and read the holder
 * row last, only for holders that passed every test. As `h.id IN (…)` semi-joins MariaDB read
 * the holder row right after the first test (1,000,000 holders, `gold` ∧ `spend > 1000` ∧
 * `points ≥ 2500`: 733,000 → 503,000 index page reads, a third less CPU), and SQLite probed
 * each subquery's list for every holder (100,000 holders: 1.1–2.5 s → 0.2–0.4 s; BENCHMARKS.md,
 * bench:audience). With one such test there is nothing to put first, and SQLite, whose planner
 * has no statistics here, would start from the holders. Each joined row is unique per holder
 * (primary keys `(holder_id, tag)` and `(holder_id, source, name)`), so a holder counts once,
 * as in the semi-join.
 */
export function audienceSizeQuery(
  workspaceId: string,
  condition: Condition,
  pass: AudiencePass,
  dialect: SqlDialect,
): SqlCondition {
  const compiler = new AudienceCompiler(pass, dialect, () => '?');
  const tests = conjuncts(condition);
  const joined = tests.filter((each) => compiler.joinable(each)).slice(0, MAX_JOINED_TESTS);
  const tables: string[] = [];
  const where: string[] = [];
  if (joined.length >= 2) {
    for (const each of joined) {
      const alias = `j${tables.length}`;
      const test = compiler.joinedTest(each, alias);
      tables.push(
        tables.length === 0
          ? `${test.table} ${alias}`
          : `JOIN ${test.table} ${alias} ON ${alias}.holder_id = j0.holder_id`,
      );
      where.push(test.sql);
    }
  }
  const from =
    tables.length === 0 ? 'holder h' : `${tables.join(' ')} JOIN holder h ON h.id = j0.holder_id`;
  where.push(
    `h.workspace_id = ${compiler.bind(workspaceId)}`,
    `h.pass_id = ${compiler.bind(pass.id)}`,
  );
  if (!namesStatus(condition)) where.push("h.status = 'Active'");
  for (const each of tests) {
    if (tables.length === 0 || !joined.includes(each)) where.push(compiler.compile(each));
  }
  return {
    sql: probingSubqueries(
      dialect,
      'SELECT COUNT(*) AS holders, ' +
        "SUM(CASE WHEN h.status = 'Active' THEN h.apple_installed_count ELSE 0 END) AS devices, " +
        "SUM(CASE WHEN h.status = 'Active' THEN h.google_installed_count ELSE 0 END) AS objects " +
        `FROM ${from} WHERE ${where.join(' AND ')}`,
    ),
    params: compiler.params,
  };
}

/**
 * One statement with an audience's condition, which MariaDB runs by probing each subquery's
 * index per holder (`unique_subquery`) instead of materializing it. Over a large pass MariaDB
 * otherwise copies the holder ids of each `IN (SELECT …)` under an `any` or a `not` into a
 * temporary table, up to a million rows each, which outgrows `tmp_table_size` and goes to disk:
 * over 1,000,000 holders the `any` of three tests took 17–25 s that way and 4–6 s by probing,
 * `not` of an `all` 10–12 s and 2.1–2.8 s (BENCHMARKS.md, bench:audience); a snapshot batch,
 * which wants 5,000 holders in id order, materialized the whole audience for each batch. The
 * setting is MariaDB's (`SET STATEMENT … FOR`, in a comment that only MariaDB executes), for
 * this statement only; MySQL and SQLite read a comment.
 */
export function probingSubqueries(dialect: SqlDialect, sql: string): string {
  return dialect.isMysql
    ? `/*M! SET STATEMENT optimizer_switch='materialization=off' FOR */ ${sql}`
    : sql;
}

/** The conditions a holder must all pass: `all`s flattened, anything else as it is. */
const conjuncts = (condition: Condition): Condition[] =>
  condition.kind === 'all' ? condition.conditions.flatMap(conjuncts) : [condition];

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
        return `h.id IN (SELECT t.holder_id FROM holder_tag t WHERE ${this.tagKey('t', condition.tag)})`;
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
   * Whether the test is one a matching holder passes on one row of its own (see
   * {@link audienceSizeQuery}): a tag, or a positive value test that the pass's value of a face
   * field does not pass (so a holder without its own value cannot match).
   */
  joinable(condition: Condition): boolean {
    if (condition.kind === 'tag') return true;
    if (condition.kind !== 'attribute' && condition.kind !== 'field') return false;
    const { test } = condition;
    if (test.op === 'ne' || (test.op === 'exists' && !test.operand)) return false;
    return (
      condition.kind === 'attribute' ||
      !valueMatches(test, this.pass.fieldDefaults.get(condition.name) ?? '')
    );
  }

  /** A {@link joinable} test as a condition on its row, `alias`, in `table`. */
  joinedTest(condition: Condition, alias: string): { table: string; sql: string } {
    if (condition.kind === 'tag') {
      return { table: 'holder_tag', sql: this.tagKey(alias, condition.tag) };
    }
    if (condition.kind !== 'attribute' && condition.kind !== 'field') {
      throw new Error(`not a joinable test: ${condition.kind}`);
    }
    const key = this.valueKey(alias, condition.kind === 'attribute' ? 'a' : 'f', condition.name);
    const where = this.valueWhere(alias, condition.test);
    return { table: 'holder_value', sql: where === '' ? key : `${key} AND ${where}` };
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
    const key = this.valueKey('v', source, name);
    const where = this.valueWhere('v', test);
    return `h.id IN (SELECT v.holder_id FROM holder_value v WHERE ${key}${where === '' ? '' : ` AND ${where}`})`;
  }

  private withAnyValue(source: 'a' | 'f', name: string): string {
    return `(SELECT v.holder_id FROM holder_value v WHERE ${this.valueKey('v', source, name)})`;
  }

  private tagKey(alias: string, tag: string): string {
    return `${alias}.pass_id = ${this.bind(this.pass.id)} AND ${alias}.tag = ${this.bind(tag)}`;
  }

  private valueKey(alias: string, source: 'a' | 'f', name: string): string {
    return `${alias}.pass_id = ${this.bind(this.pass.id)} AND ${alias}.source = '${source}' AND ${alias}.name = ${this.bind(name)}`;
  }

  /** The test on the `holder_value` row `alias`, for a positive test (see {@link value}). */
  private valueWhere(alias: string, test: ValueTest): string {
    switch (test.op) {
      case 'exists':
        return '';
      case 'eq':
      case 'ne':
        return this.equals(alias, test.operand);
      case 'in':
        return this.inList(alias, test.operands);
      case 'gt':
      case 'gte':
      case 'lt':
      case 'lte': {
        const column = typeof test.operand === 'number' ? 'number_value' : 'text_value';
        return `${alias}.${column} ${COMPARISONS[test.op]} ${this.bind(test.operand)}`;
      }
      case 'contains':
        return `LOWER(${alias}.text_value) LIKE ${this.bind(likeContains(test.operand))} ESCAPE '!'`;
    }
  }

  /**
   * One flat `IN (…)` per type of operand, not an `=` per operand joined by OR: SQLite refuses
   * an expression nested deeper than 1,000, and a chain of 1,000 ORs is that deep.
   */
  private inList(alias: string, operands: readonly Scalar[]): string {
    const numbers = operands.filter((each) => typeof each === 'number');
    const texts = operands.filter((each) => typeof each === 'string');
    const booleans = [...new Set(operands.filter((each) => typeof each === 'boolean'))];
    const list = (values: readonly unknown[]) => values.map((each) => this.bind(each)).join(', ');
    const tests: string[] = [];
    if (numbers.length > 0) tests.push(`${alias}.number_value IN (${list(numbers)})`);
    if (texts.length > 0) tests.push(`${alias}.text_value IN (${list(texts)})`);
    if (booleans.length > 0) {
      tests.push(
        `(${alias}.value_type = 'b' AND ${alias}.text_value IN (${list(booleans.map(String))}))`,
      );
    }
    return `(${tests.join(' OR ')})`;
  }

  private equals(alias: string, operand: Scalar): string {
    if (typeof operand === 'number') return `${alias}.number_value = ${this.bind(operand)}`;
    if (typeof operand === 'boolean') {
      return `(${alias}.value_type = 'b' AND ${alias}.text_value = ${this.bind(String(operand))})`;
    }
    return `${alias}.text_value = ${this.bind(operand)}`;
  }

  bind(value: unknown): string {
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
