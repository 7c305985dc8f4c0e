import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { ConflictError, describeError, HOURLY_AFTER_START, PeriodicJob } from '@app/common';
import { MEMORY_OPTIONS, type MemoryOptions } from './memory.options.js';
import { lockUserWrites, pruneVocabulary } from './user-writes.js';
import { MemoryEntity } from './memory.entity.js';

/** Rows removed per transaction: a long-neglected table is emptied in short transactions, not one that locks it for minutes. */
const PURGE_BATCH = 10_000;

/**
 * How many memories a user may hold, deleted ones awaiting their purge included, for each live one
 * that MEMORY_MAX_PER_USER allows: room to delete every memory and store as many again once per
 * retention period, and no more, however fast one deletes and adds.
 */
export const HELD_PER_LIVE_ALLOWED = 2;

type RoomOptions = Pick<MemoryOptions, 'maxPerUser' | 'deletedRetentionSeconds'>;

/** A whole number of seconds in its largest exact unit: "30 days", "12 hours", "1 second". */
export function describeRetention(seconds: number): string {
  const units = [
    ['day', 86_400],
    ['hour', 3_600],
    ['minute', 60],
    ['second', 1],
  ] as const;
  const [unit, size] = units.find(([, size]) => seconds % size === 0)!;
  const count = seconds / size;
  return `${count} ${unit}${count === 1 ? '' : 's'}`;
}

/**
 * A new memory is stored only while the user keeps fewer than MEMORY_MAX_PER_USER live memories
 * and holds fewer than twice that, deleted ones not yet purged included: one statement, run in
 * the transaction that holds the user's `lockUserWrites`, reads the user's counts (kept by the
 * database's triggers, see the CountMemoriesPerUser migration), stores the memory if there is
 * room, with its words in the user's vocabulary, and answers the new id (null: no room) and the
 * counts it read. $1 user, $2 kind, $3 text, $4 dedupe key, $5 search text, $6 source, $7 the
 * text's vocabulary words, $8 the most live, $9 the most held (`roomLimits`), $10 the new id
 * (chosen before, so that the memories it supersedes can name it), $11 its key, $12 its
 * valid_from (null: now).
 */
export const storeIfRoomSql = `
  WITH room AS (
    SELECT coalesce(max(live), 0) AS live, coalesce(max(held), 0) AS held FROM memory_counts WHERE user_id = $1::uuid
  ), stored AS (
    INSERT INTO memories (id, user_id, kind, text, dedupe_key, search_text, source, key, valid_from)
    SELECT $10::uuid, $1::uuid, $2::text, $3::text, $4::text, $5::text, $6::text, $11::text, coalesce($12::timestamptz, now())
      FROM room WHERE room.live < $8::int AND room.held < $9::int
    RETURNING id
  ), vocabulary AS (
    INSERT INTO memory_words (user_id, word) SELECT $1::uuid, unnest($7::text[]) WHERE EXISTS (SELECT 1 FROM stored) ON CONFLICT DO NOTHING
  )
  SELECT (SELECT id FROM stored) AS id, live, held FROM room`;

/** `storeIfRoomSql`'s last two parameters: the most live memories, the most held. */
export const roomLimits = (options: RoomOptions): [number, number] => [options.maxPerUser, HELD_PER_LIVE_ALLOWED * options.maxPerUser];

/** Why a user with these counts may not store a new memory (409), saying when deleted ones make room again. */
export function noRoom(live: number, held: number, options: RoomOptions): ConflictError {
  if (live >= options.maxPerUser) {
    return new ConflictError(`You already keep ${live} memories, the most this server allows (MEMORY_MAX_PER_USER); delete some first`);
  }
  const ceiling = HELD_PER_LIVE_ALLOWED * options.maxPerUser;
  const purge =
    options.deletedRetentionSeconds > 0
      ? `deleted memories are purged ${describeRetention(options.deletedRetentionSeconds)} after their deletion (MEMORY_DELETED_RETENTION), which makes room again`
      : 'this server keeps deleted memories forever (MEMORY_DELETED_RETENTION=0); an administrator can erase them';
  return new ConflictError(
    `You hold ${held} memories, ${held - live} of them deleted and not yet purged, the most this server holds for one user (${ceiling}, twice MEMORY_MAX_PER_USER): ${purge}`,
  );
}

/**
 * Purges the memories users deleted more than MEMORY_DELETED_RETENTION ago, with the words of
 * their vocabulary that only those memories held (their vectors went at the deletion): a minute
 * after start-up and then every hour, oldest deletion first, one user and at most 10,000 rows
 * per transaction. `0` keeps deleted memories forever. Shutdown waits for the batch being
 * purged, no more.
 */
@Injectable()
export class DeletedMemoryRetention implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Memory');
  private readonly job = new PeriodicJob(
    HOURLY_AFTER_START,
    () => this.purge(),
    (error) => this.logger.error(`Could not purge deleted memories: ${describeError(error)}`),
  );

  constructor(
    @InjectRepository(MemoryEntity) private readonly memories: Repository<MemoryEntity>,
    @Inject(MEMORY_OPTIONS) private readonly options: RoomOptions,
  ) {}

  onApplicationBootstrap(): void {
    if (this.options.deletedRetentionSeconds > 0) this.job.start();
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.job.stop();
  }

  /** Purges the deleted memories older than the retention, every user's; returns how many went. */
  async purge(): Promise<number> {
    const retention = this.options.deletedRetentionSeconds;
    if (retention === 0) return 0;
    let purged = 0;
    for (;;) {
      const batch = await this.purgeBatch(retention);
      if (batch === undefined) break;
      purged += batch;
      if (this.job.stopping) break;
    }
    if (purged > 0) this.logger.log(`Purged ${purged} memories deleted more than MEMORY_DELETED_RETENTION (${describeRetention(retention)}) ago`);
    return purged;
  }

  /** The expired memories of the user whose deletion is oldest, at most a batch of them; undefined when none is left. */
  private purgeBatch(retention: number): Promise<number | undefined> {
    return this.memories.manager.transaction(async (manager) => {
      const [oldest] = await manager.query('SELECT user_id FROM memories WHERE deleted_at < now() - make_interval(secs => $1) ORDER BY deleted_at LIMIT 1', [
        retention,
      ]);
      if (!oldest) return undefined;
      await lockUserWrites(manager, oldest.user_id);
      // TypeORM answers a DELETE with [rows, affected].
      const [, deleted] = await manager.query(
        `DELETE FROM memories WHERE id IN (
           SELECT id FROM memories WHERE user_id = $1 AND deleted_at < now() - make_interval(secs => $2) LIMIT $3)`,
        [oldest.user_id, retention, PURGE_BATCH],
      );
      await pruneVocabulary(manager, oldest.user_id);
      return deleted as number;
    });
  }
}
