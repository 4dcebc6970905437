import { MigrationInterface, QueryRunner, Table, TableColumn } from 'typeorm';
import { dialectOfType } from '../dialect';
import {
  auditedColumns,
  counterColumn,
  jsonColumn,
  refColumn,
  stringColumn,
  timeColumn,
} from '../schema';

/** Holders indexed per statement while existing field values are copied into `holder_value`. */
const BACKFILL_CHUNK = 500;

/** A decimal number written as text, as holder writes read it when this migration was made. */
const DECIMAL_TEXT = /^-?\d{1,30}(?:\.\d{1,30})?$/;

/**
 * How a face field value (always text) is kept in `holder_value`: the rule every holder write
 * applies (`@app/holders`' `targetingValue`), copied here because a migration must write what
 * it wrote when it was made, whatever that rule becomes, and core imports no higher library.
 */
function targetingValue(
  text: string,
): { valueType: 's'; textValue: string; numberValue: number | null } | null {
  if (text === '') return null;
  const trimmed = text.trim();
  const number = DECIMAL_TEXT.test(trimmed) ? Number(trimmed) : null;
  return {
    valueType: 's',
    textValue: text,
    numberValue: number !== null && Number.isFinite(number) ? number : null,
  };
}

/**
 * Audiences.
 *
 * - `holder.tags` and `holder.attributes`: the holder's own lists as the API shows them (JSON).
 * - `holder_tag` and `holder_value`: the same data, and the holder's face field values, one row
 *   per tag and per value, which audience queries read. A value row keeps its text and, when it
 *   is a number or a decimal text, its number, so that comparisons are plain indexed SQL on
 *   both databases instead of JSON functions that differ between them (docs/decisions.md,
 *   "Audiences"); a pass's values are indexed by name and number and by name and text. Text
 *   compares byte for byte on both (binary collation on MariaDB).
 * - `segment`: named audiences of a pass, names unique per pass.
 * - `notification.segment_id`, `audience`, `audience_size`; `audience_member`: the holders an
 *   audience matched when a notification was sent or a bulk change started (`snapshot_id` is
 *   the notification's or the bulk change's id), so a resumed delivery or change reaches the
 *   same holders.
 * - `holder_bulk_change`: bulk changes, claimed by workers under a lease.
 */
export class HolderAudiences1764100000000 implements MigrationInterface {
  name = 'HolderAudiences1764100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const dialect = queryRunner.connection.options.type;
    const { isMysql } = dialectOfType(dialect);
    const binary = isMysql ? { collation: 'utf8mb4_bin' } : {};

    await queryRunner.addColumns('holder', [
      new TableColumn(jsonColumn('tags', dialect, true)),
      new TableColumn(jsonColumn('attributes', dialect, true)),
    ]);
    await queryRunner.query("UPDATE holder SET tags = '[]', attributes = '{}'");

    await queryRunner.createTable(
      new Table({
        name: 'holder_tag',
        columns: [
          { ...refColumn('holder_id'), isPrimary: true },
          { ...stringColumn('tag', 64), ...binary, isPrimary: true },
          refColumn('pass_id'),
        ],
        indices: [{ name: 'ix_holder_tag_pass', columnNames: ['pass_id', 'tag', 'holder_id'] }],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'holder_value',
        columns: [
          { ...refColumn('holder_id'), isPrimary: true },
          // 'a': an attribute; 'f': a face field value of the holder's own.
          { ...stringColumn('source', 1), isPrimary: true },
          { ...stringColumn('name', 64), ...binary, isPrimary: true },
          refColumn('pass_id'),
          stringColumn('value_type', 1),
          { ...stringColumn('text_value', 2000), ...binary },
          { name: 'number_value', type: 'double', isNullable: true },
        ],
        indices: [
          {
            name: 'ix_holder_value_number',
            columnNames: ['pass_id', 'source', 'name', 'number_value'],
          },
        ],
      }),
    );
    // Text tests (`eq`, `in`, `gt`… on text) start from the holders with the value instead of
    // probing every holder of the pass: `city = 'Zurich'` over 1,000,000 holders reads 44,000
    // entries, not 1,000,000 holders (BENCHMARKS.md, bench:audience). MySQL/MariaDB keep at most
    // 3,072 bytes of a key: the text's first 255 characters, every attribute text whole.
    await queryRunner.query(
      'CREATE INDEX ix_holder_value_text ON holder_value ' +
        `(pass_id, source, name, ${isMysql ? 'text_value(255)' : 'text_value'})`,
    );
    await this.indexExistingFieldValues(queryRunner);

    await queryRunner.createTable(
      new Table({
        name: 'segment',
        columns: [
          ...auditedColumns(),
          refColumn('workspace_id'),
          refColumn('pass_id'),
          { ...stringColumn('name', 255), ...binary },
          jsonColumn('audience', dialect),
        ],
        uniques: [{ name: 'uq_segment_name', columnNames: ['pass_id', 'name'] }],
        indices: [{ name: 'ix_segment_pass', columnNames: ['workspace_id', 'pass_id', 'id'] }],
      }),
    );

    await queryRunner.addColumns('notification', [
      new TableColumn(refColumn('segment_id', true)),
      new TableColumn(jsonColumn('audience', dialect, true)),
      new TableColumn({ name: 'audience_size', type: 'int', isNullable: true }),
    ]);
    await queryRunner.createTable(
      new Table({
        name: 'audience_member',
        columns: [
          { ...refColumn('snapshot_id'), isPrimary: true },
          { ...refColumn('holder_id'), isPrimary: true },
        ],
      }),
    );

    await queryRunner.createTable(
      new Table({
        name: 'holder_bulk_change',
        columns: [
          ...auditedColumns(),
          refColumn('workspace_id'),
          refColumn('pass_id'),
          stringColumn('status', 16),
          refColumn('segment_id', true),
          jsonColumn('audience', dialect, true),
          jsonColumn('holder_ids', dialect, true),
          jsonColumn('changes', dialect),
          { name: 'matched', type: 'int', isNullable: true },
          counterColumn('updated'),
          counterColumn('skipped'),
          refColumn('cursor', true),
          { name: 'failure_reason', type: 'text', isNullable: true },
          timeColumn('finished_time', true),
          timeColumn('lease_until', true),
          stringColumn('leased_by', 64, true),
          counterColumn('attempts'),
        ],
        indices: [
          { name: 'ix_bulk_change_pass', columnNames: ['workspace_id', 'pass_id', 'id'] },
          { name: 'ix_bulk_change_status', columnNames: ['status', 'id'] },
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('holder_bulk_change');
    await queryRunner.dropTable('audience_member');
    await queryRunner.dropColumn('notification', 'audience_size');
    await queryRunner.dropColumn('notification', 'audience');
    await queryRunner.dropColumn('notification', 'segment_id');
    await queryRunner.dropTable('segment');
    await queryRunner.dropTable('holder_value');
    await queryRunner.dropTable('holder_tag');
    await queryRunner.dropColumn('holder', 'attributes');
    await queryRunner.dropColumn('holder', 'tags');
  }

  /** Existing holders' own field values, as every later holder write keeps them. */
  private async indexExistingFieldValues(queryRunner: QueryRunner): Promise<void> {
    let after = '';
    for (;;) {
      const holders = (await queryRunner.query(
        `SELECT id, pass_id, field_values FROM holder WHERE id > ? ORDER BY id LIMIT ${BACKFILL_CHUNK}`,
        [after],
      )) as { id: string; pass_id: string; field_values: string }[];
      if (holders.length === 0) return;
      after = holders[holders.length - 1].id;
      const rows: unknown[][] = [];
      for (const holder of holders) {
        const values = JSON.parse(holder.field_values) as Record<string, string>;
        for (const [name, text] of Object.entries(values)) {
          const value = targetingValue(text);
          if (value === null) continue;
          rows.push([
            holder.id,
            'f',
            name,
            holder.pass_id,
            value.valueType,
            value.textValue,
            value.numberValue,
          ]);
        }
      }
      if (rows.length === 0) continue;
      await queryRunner.query(
        'INSERT INTO holder_value (holder_id, source, name, pass_id, value_type, text_value, ' +
          `number_value) VALUES ${rows.map(() => '(?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
        rows.flat(),
      );
    }
  }
}
