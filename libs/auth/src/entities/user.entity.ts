import { AuditedEntity, type OrganisationRole } from '@app/core';
import { Column, Entity } from 'typeorm';

@Entity({ name: 'app_user' })
export class User extends AuditedEntity {
  @Column({ name: 'organisation_id', type: 'varchar', length: 36 })
  organisationId!: string;

  /** Stored lower-cased: sign-in is case-insensitive on the e-mail address. */
  @Column({ type: 'varchar', length: 320 })
  email!: string;

  @Column({ name: 'password_hash', type: 'varchar', length: 255 })
  passwordHash!: string;

  @Column({ type: 'varchar', length: 16 })
  role!: OrganisationRole;

  /**
   * Raised on every password change, removal and re-add. Our bearer tokens carry the version
   * they were issued under (claim `tv`) and are refused once it differs: no token outlives a
   * credential change.
   */
  @Column({ name: 'token_version', type: 'int', default: 0 })
  tokenVersion!: number;

  /** When the version was last raised: identity-provider tokens issued before it are refused. */
  @Column({ name: 'credentials_changed_time', type: 'datetime', precision: 3, nullable: true })
  credentialsChangedTime!: Date | null;

  /** Set when the user was removed from the organisation; they can no longer sign in. */
  @Column({ name: 'removed_time', type: 'datetime', precision: 3, nullable: true })
  removedTime!: Date | null;
}
