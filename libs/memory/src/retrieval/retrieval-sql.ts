import type { MemoryKind } from '../memory.options.js';

/** One memory as a retriever returns it, with enough to answer without another query. */
export interface CandidateRow {
  id: string;
  text: string;
  kind: MemoryKind;
  created_at: Date;
  updated_at: Date;
}

/** How many candidates each retriever contributes to the fusion for a given `top_k`. */
export const candidateCount = (topK: number): number => Math.max(20, topK * 3);

/**
 * Both lexical lists in one round trip, each scoped to the user's live memories:
 * - `fts`: full-text search (English stemming; CJK text as bigrams, see `memory-text.ts`), any
 *   query word may match (the query's terms are OR-ed), ranked by `ts_rank`;
 * - `trgm`: trigram word similarity of the query to the normalized text (pg_trgm's `<%`, served
 *   by the GIN trigram index), which is what still finds a memory through a misspelt word.
 * $1 user id, $2 the query's search text, $3 candidates per list, $4 the query's dedupe key.
 */
export const lexicalCandidatesSql = `
  (SELECT 'fts' AS list, m.id, m.text, m.kind, m.created_at, m.updated_at, ts_rank(m.search_vector, query.q) AS relevance
     FROM memories m, (SELECT replace(plainto_tsquery('english', $2)::text, ' & ', ' | ')::tsquery AS q) AS query
    WHERE m.user_id = $1 AND m.deleted_at IS NULL AND m.search_vector @@ query.q
    ORDER BY ts_rank(m.search_vector, query.q) DESC, m.updated_at DESC
    LIMIT $3)
  UNION ALL
  (SELECT 'trgm' AS list, m.id, m.text, m.kind, m.created_at, m.updated_at, word_similarity($4, m.dedupe_key) AS relevance
     FROM memories m
    WHERE m.user_id = $1 AND m.deleted_at IS NULL AND $4 <% m.dedupe_key
    ORDER BY word_similarity($4, m.dedupe_key) DESC, m.updated_at DESC
    LIMIT $3)`;

/**
 * The user's live memories nearest to a vector (cosine distance), through the HNSW index for
 * vectors of this length. $1 user id, $2 the vector, $3 the model, $4 how many.
 */
export const vectorCandidatesSql = (dimensions: number): string => `
  SELECT m.id, m.text, m.kind, m.created_at, m.updated_at, e.embedding::vector(${dimensions}) <=> $2::vector(${dimensions}) AS distance
    FROM memory_embeddings e JOIN memories m ON m.id = e.memory_id
   WHERE e.user_id = $1 AND e.model = $3 AND vector_dims(e.embedding) = ${dimensions} AND m.deleted_at IS NULL
   ORDER BY e.embedding::vector(${dimensions}) <=> $2::vector(${dimensions})
   LIMIT $4`;
