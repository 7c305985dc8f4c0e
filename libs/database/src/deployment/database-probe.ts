import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

export type DatabaseKind = 'embedded' | 'postgres';

export interface DatabaseCheck {
  kind: DatabaseKind;
  ok: boolean;
  /** How long `SELECT 1` took, in milliseconds; null when it failed or timed out. */
  latencyMs: number | null;
}

/** How long the check waits for an answer before it says the database is not ok. */
const TIMEOUT_MS = 2000;

/** Which database the server runs on, and whether it answers now, and how fast (the admin overview). */
@Injectable()
export class DatabaseProbe {
  readonly kind: DatabaseKind;

  constructor(private readonly dataSource: DataSource) {
    // `DatabaseModule.forRoot` gives the embedded database as a driver of its own, a server as a URL.
    this.kind = (dataSource.options as { driver?: unknown }).driver === undefined ? 'postgres' : 'embedded';
  }

  async check(): Promise<DatabaseCheck> {
    const started = performance.now();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('timed out')), TIMEOUT_MS)));
    try {
      await Promise.race([this.dataSource.query('SELECT 1'), timedOut]);
      return { kind: this.kind, ok: true, latencyMs: Math.round((performance.now() - started) * 10) / 10 };
    } catch {
      return { kind: this.kind, ok: false, latencyMs: null };
    } finally {
      clearTimeout(timer);
    }
  }
}
