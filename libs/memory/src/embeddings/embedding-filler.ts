import { Logger } from '@nestjs/common';
import type { Repository } from 'typeorm';
import type { MemoryEntity } from '../memory.entity.js';
import { toVectorLiteral, type EmbeddingsClient } from './embeddings-client.js';

const BATCH_SIZE = 32;
const RETRY_DELAYS_MS = [1_000, 5_000, 30_000, 120_000];
/** How often memories still lacking a vector (a provider down for long, a restart) are looked for. */
const SWEEP_INTERVAL_MS = 5 * 60_000;

/**
 * Fills in memories' vectors off the request path. `remember` answers once the row is stored and
 * hands the id here; a batch that fails is retried with growing pauses, and a periodic sweep
 * picks up whatever is still missing (after the retries ran out, or after a restart).
 */
export class EmbeddingFiller {
  private readonly logger = new Logger('Memory');
  private readonly pending = new Set<string>();
  private running: Promise<void> | undefined;
  private sweepTimer: NodeJS.Timeout | undefined;
  private retryTimer: { timer: NodeJS.Timeout; wake: () => void } | undefined;
  private stopped = false;

  constructor(
    private readonly memories: Repository<MemoryEntity>,
    private readonly client: EmbeddingsClient,
  ) {}

  start(): void {
    void this.sweep();
    this.sweepTimer = setInterval(() => void this.sweep(), SWEEP_INTERVAL_MS);
    this.sweepTimer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.sweepTimer);
    if (this.retryTimer) {
      clearTimeout(this.retryTimer.timer);
      this.retryTimer.wake();
    }
    await this.running;
  }

  schedule(memoryId: string): void {
    if (this.stopped) return;
    this.pending.add(memoryId);
    this.running ??= this.drain().finally(() => (this.running = undefined));
  }

  /** Resolves once nothing is pending (for tests and the evaluation script). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  /** Queues every live memory without a vector of the configured model. */
  async sweep(): Promise<void> {
    const rows: { id: string }[] = await this.memories.query(
      `SELECT m.id FROM memories m
       LEFT JOIN memory_embeddings e ON e.memory_id = m.id AND e.model = $1
       WHERE m.deleted_at IS NULL AND e.memory_id IS NULL
       LIMIT 5000`,
      [this.client.model],
    );
    for (const { id } of rows) this.schedule(id);
  }

  private async drain(): Promise<void> {
    while (this.pending.size > 0 && !this.stopped) {
      const batch = Array.from(this.pending).slice(0, BATCH_SIZE);
      if (await this.fillWithRetries(batch)) batch.forEach((id) => this.pending.delete(id));
      else {
        // Retries ran out: the sweep tries again later, so nothing waits here forever.
        batch.forEach((id) => this.pending.delete(id));
      }
    }
  }

  private async fillWithRetries(ids: string[]): Promise<boolean> {
    for (let attempt = 0; ; attempt++) {
      try {
        await this.fill(ids);
        return true;
      } catch (error) {
        const delay = RETRY_DELAYS_MS[attempt];
        if (delay === undefined || this.stopped) {
          this.logger.warn(`Could not compute vectors for ${ids.length} memories, giving up until the next sweep: ${(error as Error).message}`);
          return false;
        }
        this.logger.warn(`Could not compute vectors for ${ids.length} memories, retrying in ${delay / 1000}s: ${(error as Error).message}`);
        await new Promise<void>((wake) => (this.retryTimer = { timer: setTimeout(wake, delay), wake }));
      }
    }
  }

  private async fill(ids: string[]): Promise<void> {
    const rows: { id: string; user_id: string; text: string }[] = await this.memories.query(
      'SELECT id, user_id, text FROM memories WHERE id = ANY($1::uuid[]) AND deleted_at IS NULL',
      [ids],
    );
    if (rows.length === 0) return;
    const vectors = await this.client.embed(rows.map((row) => row.text));
    await this.memories.query(
      `INSERT INTO memory_embeddings (memory_id, user_id, model, embedding)
       SELECT m.id, m.user_id, $2, v.embedding::vector
       FROM unnest($1::uuid[], $3::text[]) AS v(memory_id, embedding)
       JOIN memories m ON m.id = v.memory_id AND m.deleted_at IS NULL
       ON CONFLICT (memory_id) DO UPDATE SET model = EXCLUDED.model, embedding = EXCLUDED.embedding`,
      [rows.map((row) => row.id), this.client.model, vectors.map(toVectorLiteral)],
    );
  }
}
