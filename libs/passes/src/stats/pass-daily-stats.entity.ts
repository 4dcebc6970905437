import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A pass's counters for one UTC day, moved by {@link PassStatsService} in the transaction of
 * each event it counts. A day without events has no row (and reads as zeros).
 */
@Entity({ name: 'pass_daily_stats' })
export class PassDailyStats {
  @PrimaryColumn({ name: 'pass_id', type: 'varchar', length: 36 })
  passId!: string;

  /** `YYYY-MM-DD`, UTC. */
  @PrimaryColumn({ type: 'varchar', length: 10 })
  day!: string;

  @Column({ name: 'workspace_id', type: 'varchar', length: 36 })
  workspaceId!: string;

  @Column({ name: 'apple_installs', type: 'int', default: 0 })
  appleInstalls!: number;

  @Column({ name: 'google_installs', type: 'int', default: 0 })
  googleInstalls!: number;

  @Column({ name: 'apple_uninstalls', type: 'int', default: 0 })
  appleUninstalls!: number;

  @Column({ name: 'google_uninstalls', type: 'int', default: 0 })
  googleUninstalls!: number;

  @Column({ name: 'link_clicks', type: 'int', default: 0 })
  linkClicks!: number;

  @Column({ name: 'notifications_sent', type: 'int', default: 0 })
  notificationsSent!: number;
}
