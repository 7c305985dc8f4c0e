import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { SpanKind, SpanStatusCode, type Span } from '@opentelemetry/api';
import type { DataSource, EntitySubscriberInterface, QueryRunner } from 'typeorm';
import { Metrics, Tracing } from '@app/common';

/** The statements the server sends; anything else (a `WITH`, a `DO` block in a migration) is `_OTHER`. */
const OPERATIONS = new Set(['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'BEGIN', 'COMMIT', 'ROLLBACK', 'START', 'SAVEPOINT', 'RELEASE', 'SET', 'SHOW']);

/** The longest statement text a span carries; the rest is cut (TypeORM's statements carry `$n` placeholders, never values). */
const MAX_QUERY_TEXT = 2000;

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

/** A query on its way: when it started, and its span when it runs inside a traced request. */
interface QueryInFlight {
  started: number;
  span?: Span;
}

/**
 * The database's part of the metrics and traces, on PostgreSQL and on the embedded database alike:
 * each query's duration (`db_client_operation_duration_seconds`), and its CLIENT span when it runs
 * inside a traced request (a query of a background job makes no trace of its own); the pool's
 * connections, idle and used, and the query runners waiting for one. A query runner runs one query
 * at a time, so TypeORM's before- and after-query events pair up by runner.
 */
@Injectable()
export class DatabaseTelemetry implements OnApplicationBootstrap {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly metrics: Metrics,
    private readonly tracing: Tracing,
  ) {}

  onApplicationBootstrap(): void {
    if (this.metrics.enabled || this.tracing.enabled) this.dataSource.subscribers.push(this.queryTimer());
    const pool = () => (this.dataSource.driver as unknown as { master?: CountingPool }).master;
    this.metrics.gauge(
      'db_client_connection_count',
      'Database connections of the pool, by state',
      () => {
        const counts = pool();
        return { idle: counts?.idleCount ?? 0, used: counts ? counts.totalCount - counts.idleCount : 0 };
      },
      'state',
    );
    this.metrics.gauge('db_client_connection_pending_requests', 'Queries waiting for a connection of the pool', () => pool()?.waitingCount ?? 0);
  }

  private queryTimer(): EntitySubscriberInterface {
    const { metrics, tracing } = this;
    const inFlight = new WeakMap<QueryRunner, QueryInFlight>();
    return {
      beforeQuery({ queryRunner, query }) {
        const traced = tracing.enabled && tracing.activeSpan() !== undefined;
        const attributes = { 'db.system.name': 'postgresql', 'db.operation.name': operationOf(query), 'db.query.text': query.slice(0, MAX_QUERY_TEXT) };
        inFlight.set(queryRunner, {
          started: performance.now(),
          span: traced ? tracing.tracer.startSpan(attributes['db.operation.name'], { kind: SpanKind.CLIENT, attributes }) : undefined,
        });
      },
      afterQuery({ queryRunner, query, success, error }) {
        const running = inFlight.get(queryRunner);
        inFlight.delete(queryRunner);
        if (!running) return;
        metrics.dbQuery(operationOf(query), success, (performance.now() - running.started) / 1000);
        if (!running.span) return;
        if (!success) {
          const code = (error as { code?: unknown } | undefined)?.code;
          running.span.setAttribute('error.type', typeof code === 'string' ? code : 'Error');
          running.span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
        }
        running.span.end();
      },
    };
  }
}
