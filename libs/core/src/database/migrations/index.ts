import { CreateIdentity1763820000000 } from './1763820000000-create-identity';
import { CreateUploads1763830000000 } from './1763830000000-create-uploads';
import { CreatePasses1763840000000 } from './1763840000000-create-passes';
import { CreateWalletA1763850000000 } from './1763850000000-create-wallet-a';
import { CreateCampaigns1763860000000 } from './1763860000000-create-campaigns';
import { CreateNotifications1763870000000 } from './1763870000000-create-notifications';
import { CreateWalletB1763880000000 } from './1763880000000-create-wallet-b';
import { CreateLinkClicks1763890000000 } from './1763890000000-create-link-clicks';
import { AddUserTokenVersion1763900000000 } from './1763900000000-add-user-token-version';
import { AddNotificationListIndex1763910000000 } from './1763910000000-add-notification-list-index';
import { AddRetentionIndexes1763920000000 } from './1763920000000-add-retention-indexes';
import { CreateHolders1763930000000 } from './1763930000000-create-holders';
import { HoldersWalletA1763940000000 } from './1763940000000-holders-wallet-a';
import { HoldersWalletB1763950000000 } from './1763950000000-holders-wallet-b';
import { CreatePassDailyStats1763960000000 } from './1763960000000-create-pass-daily-stats';
import { CreateWebhooks1763970000000 } from './1763970000000-create-webhooks';
import { TargetedNotifications1763990000000 } from './1763990000000-targeted-notifications';
import { NotificationShards1764010000000 } from './1764010000000-notification-shards';
import { WebhookDeliveryEndpointDue1764030000000 } from './1764030000000-webhook-delivery-endpoint-due';
import { HolderBinaryIds1764040000000 } from './1764040000000-holder-binary-ids';
import { RegistrationSources1764050000000 } from './1764050000000-registration-sources';
import { WalletADeviceLogs1764060000000 } from './1764060000000-wallet-a-device-logs';
import { DeviceFetches1764070000000 } from './1764070000000-device-fetches';
import { HolderDates1764080000000 } from './1764080000000-holder-dates';
import { WalletBClassTypes1764090000000 } from './1764090000000-wallet-b-class-types';
import { HolderAudiences1764100000000 } from './1764100000000-holder-audiences';
import { HolderPassengerName1764110000000 } from './1764110000000-holder-passenger-name';
import { HolderBundles1764120000000 } from './1764120000000-holder-bundles';
import { HolderNfcMessage1764130000000 } from './1764130000000-holder-nfc-message';
import { DeviceLogVerified1764140000000 } from './1764140000000-device-log-verified';
import { SnapshotCursors1764150000000 } from './1764150000000-snapshot-cursors';
import { HolderIdBytes1764160000000 } from './1764160000000-holder-id-bytes';
import { CreateAutomations1764170000000 } from './1764170000000-create-automations';

/** Every migration, oldest first. A new migration is added here and nowhere else. */
export const MIGRATIONS = [
  CreateIdentity1763820000000,
  CreateUploads1763830000000,
  CreatePasses1763840000000,
  CreateWalletA1763850000000,
  CreateCampaigns1763860000000,
  CreateNotifications1763870000000,
  CreateWalletB1763880000000,
  CreateLinkClicks1763890000000,
  AddUserTokenVersion1763900000000,
  AddNotificationListIndex1763910000000,
  AddRetentionIndexes1763920000000,
  CreateHolders1763930000000,
  HoldersWalletA1763940000000,
  HoldersWalletB1763950000000,
  CreatePassDailyStats1763960000000,
  CreateWebhooks1763970000000,
  TargetedNotifications1763990000000,
  NotificationShards1764010000000,
  WebhookDeliveryEndpointDue1764030000000,
  HolderBinaryIds1764040000000,
  RegistrationSources1764050000000,
  WalletADeviceLogs1764060000000,
  DeviceFetches1764070000000,
  HolderDates1764080000000,
  WalletBClassTypes1764090000000,
  HolderAudiences1764100000000,
  HolderPassengerName1764110000000,
  HolderBundles1764120000000,
  HolderNfcMessage1764130000000,
  DeviceLogVerified1764140000000,
  SnapshotCursors1764150000000,
  HolderIdBytes1764160000000,
  CreateAutomations1764170000000,
];
