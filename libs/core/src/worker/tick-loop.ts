import type { LoggerService } from '@nestjs/common';

/**
 * Runs a worker's `tick` every interval and whenever `kick()` asks, never two at once: a kick
 * during a tick runs one more right after it. `stop()` waits for the tick in progress, for a
 * graceful shutdown. The tick itself claims work in the database, so any number of processes
 * can each run a loop.
 */
export class TickLoop {
  private timer?: NodeJS.Timeout;
  private wakeUp?: NodeJS.Timeout;
  private running?: Promise<void>;
  private again = false;
  private stopped = true;

  constructor(
    private readonly name: string,
    private readonly tick: () => Promise<unknown>,
    private readonly logger: LoggerService,
  ) {}

  start(intervalMs: number): void {
    this.stopped = false;
    this.timer = setInterval(() => this.kick(), intervalMs);
    this.timer.unref();
    this.kick();
  }

  /** Runs a tick now, or right after the one in progress. Does nothing until started. */
  kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.tick()
      .then(() => undefined)
      .catch((error: unknown) => {
        this.logger.error({ err: error }, `${this.name} tick failed`);
      })
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  /** Runs one more tick after the current one (work was left over). */
  requestAnother(): void {
    this.again = true;
  }

  /** Kicks once after `delayMs` (e.g. at the next scheduled time), replacing an earlier wake-up. */
  wakeAfter(delayMs: number): void {
    if (this.stopped) return;
    clearTimeout(this.wakeUp);
    this.wakeUp = setTimeout(() => this.kick(), Math.max(0, delayMs));
    this.wakeUp.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    clearTimeout(this.wakeUp);
    await this.running;
  }
}
