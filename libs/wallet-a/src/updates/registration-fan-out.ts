import { Inject, Injectable } from '@nestjs/common';
import type { Registration } from '../passkit/registration.entity';
import { RegistrationsService } from '../passkit/registrations.service';
import { WALLET_A_PUSHER, type PushOutcome, type WalletAPusher } from './wallet-a-pusher';

/** What a push needs of a registration: a fan-out reads only these two columns. */
export type PushTarget = Pick<Registration, 'id' | 'pushToken'>;

/**
 * Pushes "this pass changed" to a batch of registrations: one push per device token (a device
 * registered for several passes, or twice, is pushed once), each registration told its token's
 * outcome, and the registrations of a token APNs calls unregistered deactivated. The pass
 * update worker and the notification worker both fan out through it.
 */
@Injectable()
export class RegistrationFanOut {
  constructor(
    @Inject(WALLET_A_PUSHER) private readonly pusher: WalletAPusher,
    private readonly registrations: RegistrationsService,
  ) {}

  /** Why pushes cannot be sent at all (no credentials), or null when they can. */
  unavailableReason(): string | null {
    return this.pusher.unavailableReason();
  }

  async push<T extends PushTarget>(
    batch: readonly T[],
    onOutcome: (registration: T, outcome: PushOutcome) => void | Promise<void>,
  ): Promise<void> {
    const tokens = batch.map((registration) => registration.pushToken);
    if (new Set(tokens).size < tokens.length) return this.pushGrouped(batch, onOutcome);
    // Every token once, the usual case: a result's index is its registration's. Nothing is kept
    // per registration while the batch is pushed (a map by token was, and a batch lives long
    // enough for V8 to move what it keeps to the old generation).
    await this.pusher.pushUpdates(tokens, (_token, outcome, index) => {
      const registration = batch[index];
      // The common case, pushed fine, stays synchronous when onOutcome is.
      if (outcome.status !== 'unregistered') return onOutcome(registration, outcome);
      return this.settle([registration], outcome, onOutcome);
    });
  }

  /** {@link push} for a batch where some token is registered more than once: pushed once. */
  private async pushGrouped<T extends PushTarget>(
    batch: readonly T[],
    onOutcome: (registration: T, outcome: PushOutcome) => void | Promise<void>,
  ): Promise<void> {
    const byToken = new Map<string, T[]>();
    for (const registration of batch) {
      const same = byToken.get(registration.pushToken);
      if (same) same.push(registration);
      else byToken.set(registration.pushToken, [registration]);
    }
    await this.pusher.pushUpdates([...byToken.keys()], (token, outcome) =>
      this.settle(byToken.get(token) ?? [], outcome, onOutcome),
    );
  }

  private async settle<T extends PushTarget>(
    registrations: readonly T[],
    outcome: PushOutcome,
    onOutcome: (registration: T, outcome: PushOutcome) => void | Promise<void>,
  ): Promise<void> {
    for (const registration of registrations) {
      if (outcome.status === 'unregistered') {
        await this.registrations.removeUnreachable(registration);
      }
      await onOutcome(registration, outcome);
    }
  }
}
