import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';
import { jsonColumn, replaceUniqueKey, stringColumn } from '../schema';

/**
 * Notifications to chosen holders (`holderIds`):
 *
 * - the notification keeps the holder ids it targets (`holder_ids`, NULL: everyone);
 * - a targeted message is a holder's own (`holder.wallet_a_message`), shown instead of the
 *   pass's when it is the newer of the two;
 * - WalletB messages are recorded per recipient: the pass's class (`'class'`, every message so
 *   far) or one holder's object (the holder id), each once per message id.
 */
export class TargetedNotifications1763990000000 implements MigrationInterface {
  name = 'TargetedNotifications1763990000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const dialect = queryRunner.connection.options.type;
    await queryRunner.addColumn(
      'notification',
      new TableColumn(jsonColumn('holder_ids', dialect, true)),
    );
    await queryRunner.addColumn(
      'holder',
      new TableColumn(jsonColumn('wallet_a_message', dialect, true)),
    );
    await queryRunner.addColumn(
      'wallet_b_message',
      new TableColumn({ ...stringColumn('recipient', 36), default: "'class'" }),
    );
    await replaceUniqueKey(
      queryRunner,
      'wallet_b_message',
      'uq_wallet_b_message_id',
      'uq_wallet_b_message_recipient',
      ['pass_id', 'message_id', 'recipient'],
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query("DELETE FROM wallet_b_message WHERE recipient <> 'class'");
    await replaceUniqueKey(
      queryRunner,
      'wallet_b_message',
      'uq_wallet_b_message_recipient',
      'uq_wallet_b_message_id',
      ['pass_id', 'message_id'],
    );
    await queryRunner.dropColumn('wallet_b_message', 'recipient');
    await queryRunner.dropColumn('holder', 'wallet_a_message');
    await queryRunner.dropColumn('notification', 'holder_ids');
  }
}
