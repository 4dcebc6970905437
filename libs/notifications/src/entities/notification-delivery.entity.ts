import { Column, Entity, PrimaryColumn } from 'typeorm';

export type DeliveryOutcome = 'sent' | 'unregistered' | 'failed';

/** One WalletA device's push for a notification, recorded as APNs answered it. */
@Entity({ name: 'notification_delivery' })
export class NotificationDelivery {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  @Column({ name: 'notification_id', type: 'varchar', length: 36 })
  notificationId!: string;

  @Column({ name: 'registration_id', type: 'varchar', length: 36 })
  registrationId!: string;

  @Column({ type: 'varchar', length: 16 })
  outcome!: DeliveryOutcome;

  @Column({ type: 'varchar', length: 255, nullable: true })
  reason!: string | null;

  @Column({ name: 'created_time', type: 'datetime', precision: 3 })
  createdTime!: Date;
}
