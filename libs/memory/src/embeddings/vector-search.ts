import { setTimeout as delay } from 'node:timers/promises';
import { Logger } from '@nestjs/common';
import type { EntityManager, Repository } from 'typeorm';
import type { MemoryKind } from '../memory.options.js';
import type { MemoryEntity } from '../memory.entity.js';
import { currentNeighboursSql, vectorCandidatesSql, type CandidateRow } from '../retrieval/retrieval-sql.js';
import { EmbeddingFiller } from './embedding-filler.js';
import { toVectorLiteral, type EmbeddingsClient } from './embeddings-client.js';

/** One of the user's current memories near a vector. */
export interface Neighbour {
  id: string;
  text: string;
  key: string | null;
  updated_at: Date;
  /** Cosine distance: 0 is the same direction, 2 the opposite one. */
  distance: number;
}

/**
 * The vector side of the store, present when a provider is configured and the database has
 * pgvector: embedding a text on the request path within a budget, the retriever's list, the
 * nearest current memories, and the filler that adds the vectors that were not ready.
 */
export class VectorSearch {
  private readonly logger = new Logger('Memory');
  readonly filler: EmbeddingFiller;

  constructor(
    private readonly memories: Repository<MemoryEntity>,
    readonly client: EmbeddingsClient,
  ) {
    this.filler = new EmbeddingFiller(memories, client);
  }

  /** The text's vector when the provider answers within `waitMs`; otherwise it is filled in later. */
  async embedWithinBudget(text: string, waitMs: number): Promise<number[] | undefined> {
    const budget = delay(waitMs, undefined, { ref: false });
    try {
      return await Promise.race([this.client.embed([text]).then(([vector]) => vector), budget]);
    } catch (error) {
      this.logger.warn(`Storing a memory without its vector for now: ${(error as Error).message}`);
      return undefined;
    }
  }

  /** The retriever's list for a query, or nothing when the provider fails (recall then stays lexical). */
  async candidates(userId: string, query: string, limit: number, kind: MemoryKind | undefined): Promise<CandidateRow[] | undefined> {
    let vector: number[];
    try {
      [vector] = (await this.client.embed([query])) as [number[]];
    } catch (error) {
      this.logger.warn(`Recall falls back to lexical search: ${(error as Error).message}`);
      return undefined;
    }
    return this.memories.query(vectorCandidatesSql(this.client.dimensions), [userId, toVectorLiteral(vector), this.client.model, limit, kind ?? null]);
  }

  /** The user's current memories nearest to `vector`, nearest first, but those in `except`; in `manager`'s transaction when given. */
  neighbours(userId: string, vector: number[], count: number, except: readonly string[], manager?: EntityManager): Promise<Neighbour[]> {
    return (manager ?? this.memories.manager).query(currentNeighboursSql(this.client.dimensions), [
      userId,
      toVectorLiteral(vector),
      this.client.model,
      count,
      except,
    ]);
  }

  /** Stores the vector of a memory stored in `manager`'s transaction. */
  async store(manager: EntityManager, memoryId: string, userId: string, vector: number[]): Promise<void> {
    await manager.query('INSERT INTO memory_embeddings (memory_id, user_id, model, embedding) VALUES ($1, $2, $3, $4::vector)', [
      memoryId,
      userId,
      this.client.model,
      toVectorLiteral(vector),
    ]);
  }
}
