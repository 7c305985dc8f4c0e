import { setTimeout as delay } from 'node:timers/promises';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository, EntityManager } from 'typeorm';
import {
  ConflictError,
  cursorKey,
  decodeCursor,
  instantKeySql,
  InvalidInputError,
  isUuid,
  NotFoundError,
  toPage,
  UnavailableError,
  type Page,
} from '@app/common';
import { EmbeddingFiller } from './embeddings/embedding-filler.js';
import { EmbeddingsClient, toVectorLiteral } from './embeddings/embeddings-client.js';
import { MEMORY_KINDS, MEMORY_OPTIONS, type MemoryKind, type MemoryOptions } from './memory.options.js';
import { fuseRankedLists, type RankedCandidate } from './retrieval/rank-fusion.js';
import { noRoom, roomLimits, storeIfRoomSql } from './deleted-memory-retention.js';
import {
  addVocabularySql,
  candidateCount,
  lexicalCandidatesParams,
  lexicalCandidatesSql,
  vectorCandidatesSql,
  type CandidateRow,
} from './retrieval/retrieval-sql.js';
import { dedupeKey, searchText, vocabularyWords } from './text/memory-text.js';
import { lockUserWrites, pruneVocabulary } from './user-writes.js';
import { MemoryEntity } from './memory.entity.js';

export interface MemoryView {
  id: string;
  text: string;
  kind: MemoryKind;
  /** The MCP session or conversation it was told in, when known. */
  source: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface RecalledMemory extends MemoryView {
  /** In [0, 1], higher is better: see `rank-fusion.ts`. */
  score: number;
}

export interface RememberResult {
  id: string;
  /** True when the text matched a live memory, which was refreshed instead of storing a second one. */
  deduplicated: boolean;
}

export interface ListQuery {
  kind?: MemoryKind;
  limit: number;
  cursor?: string;
}

/** A `memories` row as the store's queries select it: the same columns the retrievers return. */
type MemoryRow = CandidateRow;

/** Newest first: the creation time (to the microsecond), then the id. */
const KEYSET = [cursorKey.instant, cursorKey.uuid] as const;
const COLUMNS = 'id, text, kind, source, created_at, updated_at';
const toView = (row: MemoryRow): MemoryView => ({
  id: row.id,
  text: row.text,
  kind: row.kind,
  source: row.source,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/** The vector side of retrieval, present when a provider is configured and the database has pgvector. */
interface VectorSearch {
  client: EmbeddingsClient;
  filler: EmbeddingFiller;
}

export const MEMORY_DISABLED_MESSAGE = 'Long-term memory is not enabled on this server';

/** Longest recall query, in characters (the REST `q` and the tool's `query` alike): a search query is a phrase, not a document. */
export const MAX_RECALL_QUERY_CHARS = 1000;

/**
 * Each user's long-term memories: store, deduplicate, retrieve (hybrid, always scoped to one
 * user), edit, delete. Every method takes the owner's id; a memory of another user is reported
 * exactly like a missing one.
 */
@Injectable()
export class MemoryStore implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Memory');
  private vectors: VectorSearch | undefined;

  constructor(
    @InjectRepository(MemoryEntity) private readonly memories: Repository<MemoryEntity>,
    @Inject(MEMORY_OPTIONS) private readonly options: MemoryOptions,
  ) {}

  get enabled(): boolean {
    return this.options.enabled;
  }

  get defaultTopK(): number {
    return this.options.topK;
  }

  /** Whether recall also uses vectors (a provider is configured and the database has pgvector). */
  get vectorSearchEnabled(): boolean {
    return this.vectors !== undefined;
  }

  async onApplicationBootstrap(): Promise<void> {
    const settings = this.options.embeddings;
    if (!this.options.enabled || !settings) return;
    const [{ table }] = await this.memories.query(`SELECT to_regclass('memory_embeddings') IS NOT NULL AS table`);
    if (!table) {
      this.logger.warn('An embeddings provider is configured but this database has no pgvector: memories are searched lexically only');
      return;
    }
    const dims = settings.dimensions;
    // One HNSW index per vector length: the column itself has none, so a change of model never needs a migration.
    await this.memories.query(
      `CREATE INDEX IF NOT EXISTS memory_embeddings_hnsw_${dims} ON memory_embeddings
       USING hnsw ((embedding::vector(${dims})) vector_cosine_ops) WHERE vector_dims(embedding) = ${dims}`,
    );
    const client = new EmbeddingsClient(settings);
    this.vectors = { client, filler: new EmbeddingFiller(this.memories, client) };
    this.vectors.filler.start();
    this.logger.log(`Memories are searched lexically and by vectors (${settings.model}, ${dims} dimensions)`);
  }

  async onModuleDestroy(): Promise<void> {
    await this.vectors?.filler.stop();
  }

  /** Resolves once every new memory has its vector (or the provider gave up); for tests and the evaluation. */
  async vectorsSettled(): Promise<void> {
    await this.vectors?.filler.idle();
  }

  async remember(userId: string, input: { text: string; kind?: MemoryKind; source?: string | null }): Promise<RememberResult> {
    this.assertEnabled();
    const text = this.checkText(input.text);
    const kind = this.checkKind(input.kind ?? 'fact');
    const key = dedupeKey(text);
    const vector = await this.embedWithinBudget(text);
    const result = await this.memories.manager.transaction(async (manager) => {
      // One writer per user at a time, so the dedupe check and the counts hold until the insert.
      await lockUserWrites(manager, userId);
      // TypeORM answers an UPDATE or DELETE with [rows, affected].
      const [[same]] = await manager.query(
        `UPDATE memories SET updated_at = now(), kind = $3
         WHERE user_id = $1 AND deleted_at IS NULL AND md5(dedupe_key) = md5($2) AND dedupe_key = $2 RETURNING id`,
        [userId, key, kind],
      );
      if (same) return { id: same.id as string, deduplicated: true };
      if (vector) {
        const near = await this.nearDuplicate(manager, userId, vector);
        if (near) {
          await manager.query('UPDATE memories SET updated_at = now(), kind = $2 WHERE id = $1', [near, kind]);
          return { id: near, deduplicated: true };
        }
      }
      const [row] = await manager.query(storeIfRoomSql, [
        userId,
        kind,
        text,
        key,
        searchText(text),
        input.source ?? null,
        vocabularyWords(text),
        ...roomLimits(this.options),
      ]);
      if (!row.id) throw noRoom(row.live, row.held, this.options);
      if (vector && this.vectors) {
        await manager.query('INSERT INTO memory_embeddings (memory_id, user_id, model, embedding) VALUES ($1, $2, $3, $4::vector)', [
          row.id,
          userId,
          this.vectors.client.model,
          toVectorLiteral(vector),
        ]);
      }
      return { id: row.id as string, deduplicated: false };
    });
    if (!result.deduplicated && !vector) this.vectors?.filler.schedule(result.id);
    return result;
  }

  /** The user's memories most relevant to `query`, best first. */
  async recall(userId: string, query: string, topK = this.options.topK, kind?: MemoryKind): Promise<RecalledMemory[]> {
    this.assertEnabled();
    const trimmed = query.trim();
    if (!trimmed) throw new InvalidInputError('query must not be empty', { query: 'must not be empty' });
    const length = Array.from(query).length;
    if (length > MAX_RECALL_QUERY_CHARS)
      throw new InvalidInputError(`query has ${length} characters; the limit is ${MAX_RECALL_QUERY_CHARS}`, {
        query: `at most ${MAX_RECALL_QUERY_CHARS} characters`,
      });
    if (!Number.isInteger(topK) || topK < 1 || topK > 50)
      throw new InvalidInputError('top_k must be a whole number from 1 to 50', { top_k: 'must be a whole number from 1 to 50' });
    const limit = candidateCount(topK);
    const lexical: (CandidateRow & { list: string; relevance: number })[] = await this.memories.query(
      lexicalCandidatesSql,
      lexicalCandidatesParams(userId, trimmed, limit, kind),
    );
    // UNION ALL promises no order: each list is sorted again by its own relevance.
    const ranked = (list: string) =>
      lexical.filter((row) => row.list === list).sort((a, b) => b.relevance - a.relevance || b.updated_at.getTime() - a.updated_at.getTime());
    const lists: CandidateRow[][] = [ranked('fts'), ranked('fuzzy')];
    const vectorList = await this.vectorCandidates(userId, trimmed, limit, kind);
    if (vectorList) lists.push(vectorList);
    const found = lists.filter((list) => list.length > 0);
    const candidates = found.map((list) => list.map((row): RankedCandidate & CandidateRow => ({ ...row, updatedAt: row.updated_at })));
    return fuseRankedLists(candidates, found.length, topK, new Date()).map(({ candidate, score }) => ({
      id: candidate.id,
      text: candidate.text,
      kind: candidate.kind,
      source: candidate.source,
      createdAt: candidate.created_at,
      updatedAt: candidate.updated_at,
      score: Math.round(score * 10_000) / 10_000,
    }));
  }

  /** Newest first, by pages (keyset on created_at and id). */
  async list(userId: string, query: ListQuery): Promise<Page<MemoryView>> {
    const after = query.cursor ? decodeCursor(query.cursor, KEYSET) : undefined;
    const rows: (MemoryRow & { created_key: string })[] = await this.memories.query(
      `SELECT ${COLUMNS}, ${instantKeySql('created_at')} AS created_key FROM memories
       WHERE user_id = $1 AND deleted_at IS NULL AND ($2::text IS NULL OR kind = $2)
         AND ($3::timestamptz IS NULL OR (created_at, id) < ($3::timestamptz, $4::uuid))
       ORDER BY created_at DESC, id DESC LIMIT $5`,
      [userId, query.kind ?? null, after?.[0] ?? null, after?.[1] ?? null, query.limit + 1],
    );
    return toPage(rows, query.limit, KEYSET, (row) => [row.created_key, row.id], toView);
  }

  async get(userId: string, id: string): Promise<MemoryView> {
    const [row] = isUuid(id)
      ? await this.memories.query(`SELECT ${COLUMNS} FROM memories WHERE id = $1 AND user_id = $2 AND deleted_at IS NULL`, [id, userId])
      : [];
    if (!row) throw this.notFound(id);
    return toView(row);
  }

  /** Changes the text and/or the kind; a text equal to another live memory of the user is refused (409). */
  async update(userId: string, id: string, changes: { text?: string; kind?: MemoryKind }): Promise<MemoryView> {
    const current = await this.get(userId, id);
    const text = changes.text === undefined ? current.text : this.checkText(changes.text);
    const kind = this.checkKind(changes.kind ?? current.kind);
    const textChanged = text !== current.text;
    let row: MemoryRow | undefined;
    try {
      row = await this.memories.manager.transaction(async (manager) => {
        // Under the user's lock, so that a vocabulary being pruned cannot miss the new text's words.
        await lockUserWrites(manager, userId);
        const [[updated]] = await manager.query(
          `UPDATE memories SET text = $3, kind = $4, dedupe_key = $5, search_text = $6, updated_at = now()
           WHERE id = $1 AND user_id = $2 AND deleted_at IS NULL RETURNING ${COLUMNS}`,
          [id, userId, text, kind, dedupeKey(text), searchText(text)],
        );
        if (updated && textChanged) await manager.query(addVocabularySql, [userId, vocabularyWords(text)]);
        return updated as MemoryRow | undefined;
      });
    } catch (error) {
      if ((error as { code?: string }).code === '23505') throw new ConflictError('Another memory of yours already says the same thing');
      throw error;
    }
    if (!row) throw this.notFound(id);
    if (textChanged && this.vectors) {
      await this.memories.query('DELETE FROM memory_embeddings WHERE memory_id = $1', [id]);
      this.vectors.filler.schedule(id);
    }
    return toView(row);
  }

  /** The user's delete: the memory stays in the table (marked) but is never listed or recalled again. */
  async softDelete(userId: string, id: string): Promise<void> {
    const [rows] = isUuid(id)
      ? await this.memories.query('UPDATE memories SET deleted_at = now() WHERE id = $1 AND user_id = $2 AND deleted_at IS NULL RETURNING id', [id, userId])
      : [[]];
    if (!rows?.length) throw this.notFound(id);
    if (this.vectors) await this.memories.query('DELETE FROM memory_embeddings WHERE memory_id = $1', [id]);
  }

  /** Everything held about the user's memories, deleted ones included (marked), oldest first. */
  async exportAll(userId: string): Promise<(MemoryView & { deletedAt: Date | null })[]> {
    const rows: (MemoryRow & { deleted_at: Date | null })[] = await this.memories.query(
      `SELECT ${COLUMNS}, deleted_at FROM memories WHERE user_id = $1 ORDER BY created_at, id`,
      [userId],
    );
    return rows.map((row) => ({ ...toView(row), deletedAt: row.deleted_at }));
  }

  async countFor(userId: string): Promise<number> {
    const [{ count }] = await this.memories.query('SELECT count(*)::int AS count FROM memories WHERE user_id = $1', [userId]);
    return count;
  }

  /** An administrator's delete: the row is gone, and the words of the user's vocabulary that only it held. */
  async hardDelete(userId: string, id: string): Promise<void> {
    const erased = isUuid(id)
      ? await this.memories.manager.transaction(async (manager) => {
          await lockUserWrites(manager, userId);
          const [rows] = await manager.query('DELETE FROM memories WHERE id = $1 AND user_id = $2 RETURNING id', [id, userId]);
          if (rows.length) await pruneVocabulary(manager, userId);
          return rows.length > 0;
        })
      : false;
    if (!erased) throw this.notFound(id);
  }

  /** Erases every memory of the user (a data-subject request); answers how many rows went. */
  async eraseAll(userId: string): Promise<number> {
    return this.memories.manager.transaction(async (manager) => {
      const [rows] = await manager.query('DELETE FROM memories WHERE user_id = $1 RETURNING id', [userId]);
      await manager.query('DELETE FROM memory_words WHERE user_id = $1', [userId]);
      return rows.length as number;
    });
  }

  private assertEnabled(): void {
    if (!this.options.enabled) throw new UnavailableError(MEMORY_DISABLED_MESSAGE);
  }

  private checkText(raw: string): string {
    const text = raw.trim();
    if (!text) throw new InvalidInputError('text must not be empty', { text: 'must not be empty' });
    const length = Array.from(text).length;
    if (length > this.options.maxTextChars) {
      throw new InvalidInputError(`text has ${length} characters; the limit is ${this.options.maxTextChars} (MEMORY_MAX_TEXT_CHARS)`, {
        text: `at most ${this.options.maxTextChars} characters`,
      });
    }
    if (!dedupeKey(text)) throw new InvalidInputError('text holds only punctuation or symbols', { text: 'must contain letters or digits' });
    return text;
  }

  private checkKind(kind: string): MemoryKind {
    if (!(MEMORY_KINDS as readonly string[]).includes(kind)) {
      throw new InvalidInputError(`kind must be one of ${MEMORY_KINDS.join(', ')}`, { kind: `must be one of ${MEMORY_KINDS.join(', ')}` });
    }
    return kind as MemoryKind;
  }

  /** The new text's vector when the provider answers within `embedWaitMs`; otherwise it is filled in later. */
  private async embedWithinBudget(text: string): Promise<number[] | undefined> {
    if (!this.vectors) return undefined;
    const budget = delay(this.options.embedWaitMs, undefined, { ref: false });
    try {
      const result = await Promise.race([this.vectors.client.embed([text]).then(([vector]) => vector), budget]);
      return result;
    } catch (error) {
      this.logger.warn(`Storing a memory without its vector for now: ${(error as Error).message}`);
      return undefined;
    }
  }

  private async nearDuplicate(manager: EntityManager, userId: string, vector: number[]): Promise<string | undefined> {
    const vectors = this.vectors!;
    const [nearest] = await manager.query(vectorCandidatesSql(vectors.client.dimensions), [userId, toVectorLiteral(vector), vectors.client.model, 1, null]);
    return nearest && nearest.distance <= this.options.dedupeDistance ? (nearest.id as string) : undefined;
  }

  /** The vector list, or nothing when vectors are off or the provider fails (then recall stays lexical). */
  private async vectorCandidates(userId: string, query: string, limit: number, kind: MemoryKind | undefined): Promise<CandidateRow[] | undefined> {
    if (!this.vectors) return undefined;
    let vector: number[];
    try {
      [vector] = await this.vectors.client.embed([query]);
    } catch (error) {
      this.logger.warn(`Recall falls back to lexical search: ${(error as Error).message}`);
      return undefined;
    }
    return this.memories.query(vectorCandidatesSql(this.vectors.client.dimensions), [
      userId,
      toVectorLiteral(vector!),
      this.vectors.client.model,
      limit,
      kind ?? null,
    ]);
  }

  private notFound(id: string): NotFoundError {
    return new NotFoundError(`No memory with id ${id}`);
  }
}
