import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';
import { stringColumn } from '../schema';

/**
 * Where the snapshot of a notification's or a bulk change's audience has got to: the last holder
 * id of the last batch written into `audience_member`. A snapshot is written in batches, each
 * committed with its checkpoint, so a resumed worker goes on after it; NULL: none written yet.
 * And where putting a notification's message on its audience's holders has got to
 * (`notification.prepare_cursor`), in batches of the snapshot the same way.
 */
export class SnapshotCursors1764150000000 implements MigrationInterface {
  name = 'SnapshotCursors1764150000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const table of ['notification', 'holder_bulk_change']) {
      await queryRunner.addColumn(
        table,
        new TableColumn(stringColumn('snapshot_cursor', 36, true)),
      );
    }
    await queryRunner.addColumn(
      'notification',
      new TableColumn(stringColumn('prepare_cursor', 36, true)),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('notification', 'prepare_cursor');
    for (const table of ['notification', 'holder_bulk_change']) {
      await queryRunner.dropColumn(table, 'snapshot_cursor');
    }
  }
}
