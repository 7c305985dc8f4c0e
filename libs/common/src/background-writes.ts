import { Injectable, Logger, type BeforeApplicationShutdown } from '@nestjs/common';

/**
 * Writes a response should not wait for (the access log, a secret's last use). A failure is
 * logged, never dropped in silence, and shutdown waits for what is still pending before the
 * database closes.
 */
@Injectable()
export class BackgroundWrites implements BeforeApplicationShutdown {
  private readonly logger = new Logger('BackgroundWrites');
  private readonly pending = new Set<Promise<void>>();

  /** Starts `write`; the promise it returns settles (never rejects) once the write has. */
  run(what: string, write: () => Promise<unknown>): Promise<void> {
    const settled: Promise<void> = Promise.resolve()
      .then(write)
      .then(
        () => undefined,
        (error: unknown) => this.logger.error(`Could not record ${what}: ${error instanceof Error ? error.message : String(error)}`),
      )
      .finally(() => this.pending.delete(settled));
    this.pending.add(settled);
    return settled;
  }

  /** Resolves once every write started so far has settled. */
  async flush(): Promise<void> {
    await Promise.all(this.pending);
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.flush();
  }
}
