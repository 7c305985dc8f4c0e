/** When a housekeeping job first runs, and how often after that. */
export interface PeriodicJobTiming {
  /** The first pass waits this long, to stay out of start-up, and still runs when the server restarts more often than `intervalMs`. */
  firstDelayMs: number;
  intervalMs: number;
}

/** A minute after start-up, then hourly: the timing of the retention jobs. */
export const HOURLY_AFTER_START: PeriodicJobTiming = { firstDelayMs: 60 * 1000, intervalMs: 60 * 60 * 1000 };

/**
 * Runs `pass` on a timer, one pass at a time, for housekeeping such as retention: a failed pass is
 * reported to `onError` and the next one still comes. `stop()` cancels what is scheduled and waits
 * for the pass in progress, no more; a pass reads `stopping` between its batches to end early.
 */
export class PeriodicJob {
  private timer?: NodeJS.Timeout;
  private current?: Promise<void>;
  private stopped = false;

  constructor(
    private readonly timing: PeriodicJobTiming,
    private readonly pass: () => Promise<unknown>,
    private readonly onError: (error: unknown) => void,
  ) {}

  get stopping(): boolean {
    return this.stopped;
  }

  start(): void {
    this.schedule(this.timing.firstDelayMs);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.current;
  }

  private schedule(delayMs: number): void {
    this.timer = setTimeout(() => {
      this.current = this.pass()
        .then(() => undefined, this.onError)
        .finally(() => {
          this.current = undefined;
          if (!this.stopped) this.schedule(this.timing.intervalMs);
        });
    }, delayMs).unref();
  }
}
