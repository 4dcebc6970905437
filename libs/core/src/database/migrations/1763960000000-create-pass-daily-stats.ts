import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { counterColumn, refColumn, stringColumn } from '../schema';

/**
 * Per-day statistics of a pass (`GET /v1/wallet-pass/{id}/stats`): counters moved in the
 * transaction of the event they count, one row per pass and UTC day that had any. `day` is the
 * text `YYYY-MM-DD`, which sorts and compares as dates on both dialects without conversion.
 * The key `(pass_id, day)` is what the increments find their row by and what a range is read
 * along. No foreign keys: like link clicks, a row written for a click must not wait for the
 * pass row's lock, and the rows stay with the (soft-)deleted pass.
 */
export class CreatePassDailyStats1763960000000 implements MigrationInterface {
  name = 'CreatePassDailyStats1763960000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'pass_daily_stats',
        columns: [
          { ...refColumn('pass_id'), isPrimary: true },
          { ...stringColumn('day', 10), isPrimary: true },
          refColumn('workspace_id'),
          counterColumn('apple_installs'),
          counterColumn('google_installs'),
          counterColumn('apple_uninstalls'),
          counterColumn('google_uninstalls'),
          counterColumn('link_clicks'),
          counterColumn('notifications_sent'),
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('pass_daily_stats');
  }
}
