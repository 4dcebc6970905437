import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * One click on a short link, `GET /l/{slug}`. Written by the redirect and never changed;
 * `workspace_id` and `pass_id` are copies of the short link's, so statistics of a pass need
 * only this table's `(pass_id, clicked_time)` index.
 */
@Entity({ name: 'link_click' })
export class LinkClick {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  @Column({ name: 'workspace_id', type: 'varchar', length: 36 })
  workspaceId!: string;

  @Column({ name: 'pass_id', type: 'varchar', length: 36 })
  passId!: string;

  @Column({ name: 'short_link_id', type: 'varchar', length: 36 })
  shortLinkId!: string;

  @Column({ name: 'clicked_time', type: 'datetime', precision: 3 })
  clickedTime!: Date;
}
