import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { cursorKey, decodeCursor, instantKeySql, InvalidInputError, isUuid, NotFoundError, toPage, UnavailableError, type Page } from '@app/common';
import { EmbeddingsClient } from './embeddings/embeddings-client.js';
import { VectorSearch } from './embeddings/vector-search.js';
import { MEMORY_OPTIONS, type MemoryKind, type MemoryOptions } from './memory.options.js';
import { checkIds, checkInstant, checkKey, checkKind, checkText } from './memory-input.js';
import { toView, type MemoryMention, type MemoryView, type RecalledMemory, type RememberResult } from './memory-view.js';
import { fuseRankedLists } from './retrieval/rank-fusion.js';
import { relatedMemories } from './retrieval/related-memories.js';
import {
  addVocabularySql,
  candidateCount,
  lexicalCandidatesParams,
  lexicalCandidatesSql,
  memoryColumns,
  type CandidateRow,
} from './retrieval/retrieval-sql.js';
import { chainMembersSql, chainPageSql } from './validity/chain-sql.js';
import { chainsOf, currentItself, versionsByOrigin, type ChainMember, type ChainVersions } from './validity/chain-versions.js';
import { validitySql, type MemoryValidity } from './validity/memory-validity.js';
import { moveValidFrom, notCurrentError, NotCurrentError } from './validity/supersession.js';
import { refusedEdit, storeOrRefresh } from './memory-writes.js';
import { dedupeKey, searchText, vocabularyWords } from './text/memory-text.js';
import { lockUserWrites, pruneVocabulary } from './user-writes.js';
import { MemoryEntity } from './memory.entity.js';

export interface RememberInput {
  text: string;
  kind?: MemoryKind;
  /** The MCP session or conversation it was told in, when known. */
  source?: string | null;
  /** A short slot ("home city"): the current memory holding it, if any, is superseded by this one. */
  key?: string | null;
  /** When the fact became true; by default, now. */
  validFrom?: Date;
  /** Ids of the caller's current memories this one corrects or updates: each is superseded by it. */
  replaces?: readonly string[];
}

export interface ListQuery {
  kind?: MemoryKind;
  limit: number;
  cursor?: string;
  /** Current memories (the default), those valid at an instant, or every version. */
  validity?: MemoryValidity;
}

export interface MemoryChanges {
  text?: string;
  kind?: MemoryKind;
  /** A new key, or null to clear it. */
  key?: string | null;
  validFrom?: Date;
}

/** Newest first: the creation time (to the microsecond), then the id. */
const KEYSET = [cursorKey.instant, cursorKey.uuid] as const;
/** A chain, newest first by validity: its own keyset, so that a list's cursor is refused here. */
const HISTORY_KEYSET = [cursorKey.oneOf('history'), cursorKey.instant, cursorKey.uuid] as const;
const COLUMNS = memoryColumns();

/** One retriever's matches, best first, and how relevant it found each (higher is better). */
interface RankedList {
  rows: CandidateRow[];
  relevance: (row: CandidateRow) => number;
}

const lexicalRelevance = (row: CandidateRow) => (row as CandidateRow & { relevance: number }).relevance;
const vectorRelevance = (row: CandidateRow) => -(row as CandidateRow & { distance: number }).distance;

export const MEMORY_DISABLED_MESSAGE = 'Long-term memory is not enabled on this server';

/** Longest recall query, in characters (the REST `q` and the tool's `query` alike): a search query is a phrase, not a document. */
export const MAX_RECALL_QUERY_CHARS = 1000;

/**
 * Each user's long-term memories: store, deduplicate, supersede, retrieve (hybrid, always scoped
 * to one user, by validity), edit, delete. Every method takes the owner's id; a memory of another
 * user is reported exactly like a missing one.
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
    this.vectors = new VectorSearch(this.memories, new EmbeddingsClient(settings));
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

  /**
   * Stores a memory, or refreshes the current one that says the same; supersedes the memories it
   * replaces (`replaces`, and the current one with its `key`), which keep their rows with their
   * validity ended; answers what it did, and the current memories related to it.
   */
  async remember(userId: string, input: RememberInput): Promise<RememberResult> {
    this.assertEnabled();
    const text = checkText(input.text, this.options.maxTextChars);
    const write = {
      text,
      kind: checkKind(input.kind ?? 'fact'),
      key: input.key === undefined || input.key === null ? null : checkKey(input.key),
      validFrom: input.validFrom === undefined ? null : checkInstant(input.validFrom, 'valid_from'),
      replaces: checkIds(input.replaces ?? [], 'replaces'),
      source: input.source ?? null,
      vector: this.vectors ? await this.vectors.embedWithinBudget(text, this.options.embedWaitMs) : undefined,
    };
    let stored: Omit<RememberResult, 'related'>;
    try {
      stored = await this.memories.manager.transaction((manager) => storeOrRefresh(manager, userId, write, this.options, this.vectors));
    } catch (error) {
      if (error instanceof NotCurrentError) throw await notCurrentError(this.memories.manager, userId, error.ids);
      throw error;
    }
    if (!stored.deduplicated && !write.vector) this.vectors?.filler.schedule(stored.id);
    const except = [stored.id, ...stored.superseded.map((memory) => memory.id)];
    return { ...stored, related: await relatedMemories(this.memories, this.vectors, userId, text, write.vector, except) };
  }

  /** The user's memories most relevant to `query`, best first: current ones, unless `validity` asks for others. */
  async recall(userId: string, query: string, topK = this.options.topK, kind?: MemoryKind, validity: MemoryValidity = 'current'): Promise<RecalledMemory[]> {
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
    if (typeof validity === 'object') checkInstant(validity.asOf, 'as_of');
    const limit = candidateCount(topK);
    const lexical: (CandidateRow & { list: string; relevance: number })[] = await this.memories.query(
      lexicalCandidatesSql,
      lexicalCandidatesParams(userId, trimmed, limit, kind),
    );
    // UNION ALL promises no order: each list is sorted again by its own relevance.
    const ranked = (list: string) =>
      lexical.filter((row) => row.list === list).sort((a, b) => b.relevance - a.relevance || b.updated_at.getTime() - a.updated_at.getTime());
    const lists: RankedList[] = [
      { rows: ranked('fts'), relevance: lexicalRelevance },
      { rows: ranked('fuzzy'), relevance: lexicalRelevance },
    ];
    const vectorList = await this.vectors?.candidates(userId, trimmed, limit, kind);
    if (vectorList) lists.push({ rows: vectorList, relevance: vectorRelevance });
    const found = lists.filter((list) => list.rows.length > 0);
    // Each match stands for the versions of its fact the answer holds: a superseded match for the current version, by default.
    const resolved = await this.versionsOf(
      userId,
      found.flatMap((list) => list.rows),
      validity,
      kind,
    );
    const chains = found.map((list) =>
      chainsOf(list.rows, resolved, list.relevance).map((entry) => ({ ...entry, id: entry.chain, updatedAt: entry.versions[0]!.updated_at })),
    );
    const recalled = fuseRankedLists(chains, found.length, topK, new Date()).flatMap(({ candidate, score }) =>
      candidate.versions.map((version) => ({ ...toView(version), score: Math.round(score * 10_000) / 10_000 })),
    );
    return recalled.slice(0, topK);
  }

  /** Newest first, by pages (keyset on created_at and id): current memories, unless `query.validity` asks for others. */
  async list(userId: string, query: ListQuery): Promise<Page<MemoryView>> {
    const after = query.cursor ? decodeCursor(query.cursor, KEYSET) : undefined;
    const params: unknown[] = [userId, query.kind ?? null, after?.[0] ?? null, after?.[1] ?? null, query.limit + 1];
    const holds = validitySql('memories', query.validity ?? 'current', params);
    const rows: (CandidateRow & { created_key: string })[] = await this.memories.query(
      `SELECT ${COLUMNS}, ${instantKeySql('created_at')} AS created_key FROM memories
       WHERE user_id = $1 AND deleted_at IS NULL AND ($2::text IS NULL OR kind = $2) AND ${holds}
         AND ($3::timestamptz IS NULL OR (created_at, id) < ($3::timestamptz, $4::uuid))
       ORDER BY created_at DESC, id DESC LIMIT $5`,
      params,
    );
    return toPage(rows, query.limit, KEYSET, (row) => [row.created_key, row.id], toView);
  }

  /** One memory of the user, current or superseded. */
  async get(userId: string, id: string): Promise<MemoryView> {
    const [row] = isUuid(id)
      ? await this.memories.query(`SELECT ${COLUMNS} FROM memories WHERE id = $1 AND user_id = $2 AND deleted_at IS NULL`, [id, userId])
      : [];
    if (!row) throw this.notFound(id);
    return toView(row);
  }

  /** The versions of the fact a memory states (it, those it superseded, those that superseded it), newest `valid_from` first, by pages. */
  async history(userId: string, id: string, page: { limit: number; cursor?: string }): Promise<Page<MemoryView>> {
    // The cursor first: a forged one is the caller's mistake (400) whether or not the memory exists.
    const after = page.cursor ? decodeCursor(page.cursor, HISTORY_KEYSET) : undefined;
    await this.get(userId, id);
    const rows: (CandidateRow & { valid_key: string })[] = await this.memories.query(chainPageSql, [
      userId,
      [id],
      after?.[1] ?? null,
      after?.[2] ?? null,
      page.limit + 1,
    ]);
    return toPage(rows, page.limit, HISTORY_KEYSET, (row) => ['history' as const, row.valid_key, row.id], toView);
  }

  /**
   * Changes the text, kind, key or valid_from; a text equal to another current memory of the user,
   * or the key of another current one, is refused (409). Moving valid_from moves the end of the
   * memories this one superseded with it.
   */
  async update(userId: string, id: string, changes: MemoryChanges): Promise<MemoryView> {
    const current = await this.get(userId, id);
    const text = changes.text === undefined ? current.text : checkText(changes.text, this.options.maxTextChars);
    const kind = checkKind(changes.kind ?? current.kind);
    const key = changes.key === undefined ? current.key : changes.key === null ? null : checkKey(changes.key);
    const validFrom = changes.validFrom && checkInstant(changes.validFrom, 'validFrom');
    const textChanged = text !== current.text;
    let row: CandidateRow | undefined;
    try {
      row = await this.memories.manager.transaction(async (manager) => {
        // Under the user's lock, so that a vocabulary being pruned cannot miss the new text's words.
        await lockUserWrites(manager, userId);
        if (validFrom && !(await moveValidFrom(manager, userId, id, validFrom))) return undefined;
        const [[updated]] = await manager.query(
          `UPDATE memories SET text = $3, kind = $4, dedupe_key = $5, search_text = $6, key = $7, updated_at = now()
           WHERE id = $1 AND user_id = $2 AND deleted_at IS NULL RETURNING ${COLUMNS}`,
          [id, userId, text, kind, dedupeKey(text), searchText(text), key],
        );
        if (updated && textChanged) await manager.query(addVocabularySql, [userId, vocabularyWords(text)]);
        return updated as CandidateRow | undefined;
      });
    } catch (error) {
      throw refusedEdit(error, key);
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

  /** The user's delete of several memories at once (`forget_memory`), all or none: an id that is not a memory of theirs is refused by name. */
  async forget(userId: string, ids: readonly string[]): Promise<MemoryMention[]> {
    this.assertEnabled();
    const wanted = checkIds(ids, 'ids');
    if (wanted.length === 0) throw new InvalidInputError('ids must name at least one memory', { ids: 'must name at least one memory' });
    const forgotten = await this.memories.manager.transaction(async (manager) => {
      const [rows]: [MemoryMention[], number] = await manager.query(
        'UPDATE memories SET deleted_at = now() WHERE user_id = $1 AND id = ANY($2::uuid[]) AND deleted_at IS NULL RETURNING id, text, key',
        [userId, wanted],
      );
      const missing = wanted.filter((id) => !rows.some((row) => row.id === id));
      if (missing.length) {
        throw new InvalidInputError(
          `ids must name memories of yours: ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} not; nothing was forgotten`,
          {
            ids: `not memories of yours: ${missing.join(', ')}`,
          },
        );
      }
      return rows;
    });
    if (this.vectors) await this.memories.query('DELETE FROM memory_embeddings WHERE memory_id = ANY($1::uuid[])', [wanted]);
    return forgotten;
  }

  /** Everything held about the user's memories, deleted ones included (marked), oldest first. */
  async exportAll(userId: string): Promise<(MemoryView & { deletedAt: Date | null })[]> {
    const rows: (CandidateRow & { deleted_at: Date | null })[] = await this.memories.query(
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

  /**
   * For each match, the versions of its fact `validity` keeps (of `kind`, when given). A current
   * match answers for itself in the default answer; any other is looked up with its chain, in one
   * query, which a recall of current memories that matched none superseded never runs.
   */
  private async versionsOf(
    userId: string,
    matches: CandidateRow[],
    validity: MemoryValidity,
    kind: MemoryKind | undefined,
  ): Promise<Map<string, ChainVersions>> {
    const resolved = new Map<string, ChainVersions>();
    const walk = new Set<string>();
    for (const match of matches) {
      if (validity === 'current' && match.valid_to === null) resolved.set(match.id, currentItself(match));
      else walk.add(match.id);
    }
    if (walk.size > 0) {
      const members: ChainMember[] = await this.memories.query(chainMembersSql, [userId, Array.from(walk)]);
      for (const [origin, entry] of versionsByOrigin(members, validity)) resolved.set(origin, entry);
    }
    if (!kind) return resolved;
    return new Map(Array.from(resolved, ([origin, entry]) => [origin, { ...entry, versions: entry.versions.filter((version) => version.kind === kind) }]));
  }

  private assertEnabled(): void {
    if (!this.options.enabled) throw new UnavailableError(MEMORY_DISABLED_MESSAGE);
  }

  private notFound(id: string): NotFoundError {
    return new NotFoundError(`No memory with id ${id}`);
  }
}
