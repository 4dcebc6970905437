import { ApnsFake } from '../test/fakes/apns-fake';
import { serve, type FakeCommand, type FakeReplies } from './rpc';

/**
 * The e2e tests' APNs fake in a process of its own, so that the CPU it spends answering
 * pushes is neither the orchestrator's nor the client's under test. Driven over IPC (rpc.ts).
 */
let fake: ApnsFake | undefined;
let countsOnly = false;
let cpuAtReset = process.cpuUsage();

function started(): ApnsFake {
  if (fake === undefined) throw new Error('The fake is not started');
  return fake;
}

async function handle(command: FakeCommand): Promise<FakeReplies[FakeCommand['kind']]> {
  switch (command.kind) {
    case 'start': {
      fake = await ApnsFake.start(command.options);
      countsOnly = command.options.record === 'counts';
      return { url: fake.url, maxConcurrentStreams: command.options.maxConcurrentStreams ?? 1000 };
    }
    case 'reset':
      started().reset();
      cpuAtReset = process.cpuUsage();
      return null;
    case 'stats': {
      const current = started();
      const answers = new Map(current.answerCounts);
      const counts = new Map(current.pushCounts);
      if (!countsOnly) {
        // The fake kept the lists instead: the same summary is made from them.
        for (const answer of current.answers) {
          const key =
            answer.reason === undefined
              ? String(answer.status)
              : `${answer.status} ${answer.reason}`;
          answers.set(key, (answers.get(key) ?? 0) + 1);
        }
        for (const push of current.pushes)
          counts.set(push.token, (counts.get(push.token) ?? 0) + 1);
      }
      const first = current.pushes[0];
      const cpu = process.cpuUsage(cpuAtReset);
      return {
        counts,
        answers,
        firstPushAt: current.firstPushAt ?? null,
        lastPushAt: current.lastPushAt ?? null,
        sample:
          first === undefined ? null : { headers: first.headers, rawPayload: first.rawPayload },
        sessionsOpened: current.sessionsOpened,
        peakConcurrentStreams: current.peakConcurrentStreams,
        cpuMs: (cpu.user + cpu.system) / 1000,
      };
    }
    case 'pushes':
      return started().pushes.map((push) => ({
        token: push.token,
        at: push.receivedAt.getTime(),
      }));
  }
}

serve<FakeCommand>(handle);
