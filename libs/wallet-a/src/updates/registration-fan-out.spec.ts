import type { RegistrationsService } from '../passkit/registrations.service';
import { RegistrationFanOut, type PushTarget } from './registration-fan-out';
import { PUSH_SENT, type PushOutcome, type WalletAPusher } from './wallet-a-pusher';

/**
 * A pusher that answers every token it is given, last token first (APNs answers in any order),
 * with the outcome `outcomeOf` gives; it records the tokens of each call.
 */
function answeringPusher(outcomeOf: (token: string) => PushOutcome) {
  const calls: string[][] = [];
  const pusher: WalletAPusher = {
    unavailableReason: () => null,
    close: () => Promise.resolve(),
    async pushUpdates(tokens, onOutcome) {
      calls.push([...tokens]);
      for (let index = tokens.length - 1; index >= 0; index--) {
        await onOutcome(tokens[index], outcomeOf(tokens[index]), index);
      }
    },
  };
  return { pusher, calls };
}

function fanOutWith(outcomeOf: (token: string) => PushOutcome) {
  const { pusher, calls } = answeringPusher(outcomeOf);
  const removed: string[] = [];
  const registrations = {
    removeUnreachable: (registration: Pick<PushTarget, 'id'>) => {
      removed.push(registration.id);
      return Promise.resolve();
    },
  } as unknown as RegistrationsService;
  return { fanOut: new RegistrationFanOut(pusher, registrations), calls, removed };
}

const GONE: PushOutcome = { status: 'unregistered', reason: 'Unregistered' };
const FAILED: PushOutcome = { status: 'failed', reason: 'InternalServerError' };

/** Each registration's outcome, by id, in the order they were told. */
async function pushAll(fanOut: RegistrationFanOut, batch: PushTarget[]) {
  const told: Array<[string, PushOutcome]> = [];
  await fanOut.push(batch, (registration, outcome) => {
    told.push([registration.id, outcome]);
  });
  return told;
}

describe('RegistrationFanOut', () => {
  it("tells each registration its own token's outcome, whatever order the answers come in", async () => {
    const outcomes: Record<string, PushOutcome> = { ta: PUSH_SENT, tb: GONE, tc: FAILED };
    const { fanOut, calls, removed } = fanOutWith((token) => outcomes[token]);

    const told = await pushAll(fanOut, [
      { id: 'r1', pushToken: 'ta' },
      { id: 'r2', pushToken: 'tb' },
      { id: 'r3', pushToken: 'tc' },
    ]);

    expect(calls).toEqual([['ta', 'tb', 'tc']]);
    expect(told).toEqual([
      ['r3', FAILED],
      ['r2', GONE],
      ['r1', PUSH_SENT],
    ]);
    expect(removed).toEqual(['r2']);
  });

  it('pushes a token registered twice once, and tells (and deactivates) both registrations', async () => {
    const { fanOut, calls, removed } = fanOutWith((token) => (token === 'tb' ? GONE : PUSH_SENT));

    const told = await pushAll(fanOut, [
      { id: 'r1', pushToken: 'ta' },
      { id: 'r2', pushToken: 'tb' },
      { id: 'r3', pushToken: 'tb' },
    ]);

    expect(calls).toEqual([['ta', 'tb']]);
    expect(told).toEqual([
      ['r2', GONE],
      ['r3', GONE],
      ['r1', PUSH_SENT],
    ]);
    expect(removed).toEqual(['r2', 'r3']);
  });
});
