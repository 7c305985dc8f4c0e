import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntitySubscriberInterface } from 'typeorm';
import { Metrics } from '@app/common';

/** The statements the server sends; anything else (a `WITH`, a `DO` block in a migration) is `_OTHER`. */
const OPERATIONS = new Set(['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'BEGIN', 'COMMIT', 'ROLLBACK', 'START', 'SAVEPOINT', 'RELEASE', 'SET', 'SHOW']);

/** The statement's first keyword, `_OTHER` past the known ones. */
export function operationOf(sql: string): string {
  const keyword = /^\s*([A-Za-z]+)/.exec(sql)?.[1]?.toUpperCase();
  return keyword !== undefined && OPERATIONS.has(keyword) ? keyword : '_OTHER';
}

/** The part of `pg.Pool` (and of the embedded database's look-alike) that counts connections. */
interface CountingPool {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
}

/**
 * Query durations (`db_client_operation_duration_seconds`, as TypeORM times them: to the
 * millisecond) and the pool's connections, idle and used, and the query runners waiting for one,
 * on PostgreSQL and on the embedded database alike.
 */
@Injectable()
export class DatabaseMetrics implements OnApplicationBootstrap {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly metrics: Metrics,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.metrics.enabled) return;
    const metrics = this.metrics;
    const timer: EntitySubscriberInterface = {
      afterQuery(event) {
        metrics.dbQuery(operationOf(event.query), event.success, (event.executionTime ?? 0) / 1000);
      },
    };
    this.dataSource.subscribers.push(timer);
    const pool = () => (this.dataSource.driver as unknown as { master?: CountingPool }).master;
    metrics.gauge(
      'db_client_connection_count',
      'Database connections of the pool, by state',
      () => {
        const counts = pool();
        return { idle: counts?.idleCount ?? 0, used: counts ? counts.totalCount - counts.idleCount : 0 };
      },
      'state',
    );
    metrics.gauge('db_client_connection_pending_requests', 'Queries waiting for a connection of the pool', () => pool()?.waitingCount ?? 0);
  }
}
