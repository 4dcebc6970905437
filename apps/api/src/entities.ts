import { AUDIENCE_ENTITIES } from '@app/audiences';
import { AUTH_ENTITIES } from '@app/auth';
import { AUTOMATION_ENTITIES } from '@app/automations';
import { CAMPAIGN_ENTITIES } from '@app/campaigns';
import { HOLDER_ENTITIES } from '@app/holders';
import { LOCATION_ENTITIES } from '@app/locations';
import { NOTIFICATION_ENTITIES } from '@app/notifications';
import { PASS_ENTITIES } from '@app/passes';
import { UPLOADS_ENTITIES } from '@app/uploads';
import { WALLET_A_ENTITIES } from '@app/wallet-a';
import { WALLET_B_ENTITIES } from '@app/wallet-b';
import { WEBHOOK_ENTITIES } from '@app/webhooks';

/** Every entity, for the data sources built outside Nest (migration runner, TypeORM CLI). */
export const ALL_ENTITIES = [
  ...AUTH_ENTITIES,
  ...UPLOADS_ENTITIES,
  ...PASS_ENTITIES,
  ...HOLDER_ENTITIES,
  ...AUDIENCE_ENTITIES,
  ...AUTOMATION_ENTITIES,
  ...LOCATION_ENTITIES,
  ...CAMPAIGN_ENTITIES,
  ...WALLET_A_ENTITIES,
  ...WALLET_B_ENTITIES,
  ...NOTIFICATION_ENTITIES,
  ...WEBHOOK_ENTITIES,
];
