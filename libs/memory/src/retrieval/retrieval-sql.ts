import type { MemoryKind } from '../memory.options.js';
import { searchQueryText, vocabularyWords } from '../text/memory-text.js';

/** One memory as a retriever returns it, with enough to answer without another query. */
export interface CandidateRow {
  id: string;
  text: string;
  kind: MemoryKind;
  source: string | null;
  created_at: Date;
  updated_at: Date;
  key: string | null;
  valid_from: Date;
  /** Null while the memory is current. */
  valid_to: Date | null;
  superseded_by: string | null;
}

/** The columns of `CandidateRow`, of the table or of `alias`. */
export const memoryColumns = (alias?: string): string =>
  ['id', 'text', 'kind', 'source', 'created_at', 'updated_at', 'key', 'valid_from', 'valid_to', 'superseded_by']
    .map((column) => (alias ? `${alias}.${column}` : column))
    .join(', ');

/** How many candidates each retriever contributes to the fusion for a given `top_k`. */
export const candidateCount = (topK: number): number => Math.max(20, topK * 3);

/** Least trigram similarity for a word of the user's vocabulary to stand in for a query word they do not use. */
export const CORRECTION_SIMILARITY = 0.35;

/**
 * How many of a user's newest live memories every search reads first, newest first through
 * `memories_user_recent_idx`, whatever the query: each of their matches is ranked. The full-text
 * index, whose cost grows with the matches it collects, is then read only for what they lack (see
 * COMMON_AMONG_RECENT). A user who holds no more memories than this has every match ranked.
 */
export const RECENT_MEMORIES = 500;

/**
 * A word that at least this many (5 %) of the newest RECENT_MEMORIES memories hold is common: a
 * search takes its matches from the newest alone and does not collect them through the full-text
 * index, whose list for it would hold some 5 % or more of all the user's memories, every entry
 * read before the first row is returned (at 50,000 memories of the soak, whose notes all share
 * five words, `remember`'s related memories took 9.7 ms on PostgreSQL, 7.7 of them in the index).
 * Rarer words are looked up through the index among all the user's memories, as before.
 */
export const COMMON_AMONG_RECENT = 25;

/** How many matches the full-text index adds at most to one search, from memories older than the newest RECENT_MEMORIES. */
export const MATCH_CAP = 500;

/**
 * How many distinct words of a query are searched, the first ones. PostgreSQL evaluates a text
 * query as a tree with one operator per word, walked recursively: a query of 20,000 words
 * exceeded its stack (SQLSTATE 54001). A query is a phrase, so 64 words are plenty; the query
 * words looked up in the user's vocabulary (misspellings) are bounded by the same count.
 */
export const MAX_QUERY_TERMS = 64;

/**
 * Two common table expressions of a search of the user $1: `recent`, their newest RECENT_MEMORIES
 * live memories (current and superseded) with their full-text vectors, read once; `older`, the
 * oldest of those (created_at, id), below which the older memories lie: no row when `recent` holds
 * them all.
 */
export const recentMemoriesSql = `
  recent AS MATERIALIZED (
    SELECT ${memoryColumns()}, search_vector FROM memories
     WHERE user_id = $1 AND deleted_at IS NULL
     ORDER BY created_at DESC, id DESC LIMIT ${RECENT_MEMORIES}
  ), older AS (
    SELECT created_at, id FROM recent WHERE (SELECT count(*) FROM recent) = ${RECENT_MEMORIES} ORDER BY created_at, id LIMIT 1
  )`;

/**
 * Both lexical lists in one round trip, each scoped to the user's live memories (superseded ones
 * included: recall answers a match in an old version with the version it asks for) and ranked by
 * `ts_rank` (English stemming; CJK text as bigrams, see `memory-text.ts`), divided by log2(1 + the
 * memory's number of distinct words) so that of two memories with the query's word the one about
 * it ranks first ("I work at Acme" above "These days I work out at Peak"; ts_rank's own length
 * normalization, which counts every position, made recall at 100k memories 15 % slower), memories matching every
 * query word before those matching some:
 * - `fts`: the query's own words;
 * - `fuzzy`: for each query word the user never stored, the two most similar words they did
 *   (pg_trgm over `memory_words`), which is what still finds a memory through a misspelt word.
 * Each list's text queries join the first MAX_QUERY_TERMS distinct lexemes of its words (stemmed
 * as `plainto_tsquery` stems them, in the order they occur), each quoted for the tsquery parser,
 * so that no query is deeper than that, however long its text.
 *
 * Each list ranks its matches among the user's newest RECENT_MEMORIES memories (`found`) and, from
 * the older ones through the full-text index (at most MATCH_CAP of each kind): the memories
 * holding every query word, unless the newest hold enough of them to fill the list; those holding
 * some, through the query words that are not common among the newest (`uncommon`). A query of one
 * word has no partial matches, and that search, which would read every match only to drop it, is
 * not run. Parameters: `lexicalCandidatesParams`.
 */
export const lexicalCandidatesSql = `
  WITH corrections AS (
    SELECT coalesce(string_agg(similar_word.word, ' '), '') AS words
      FROM unnest($4::text[]) AS asked(word)
      CROSS JOIN LATERAL (
        SELECT w.word FROM memory_words w
         WHERE w.user_id = $1 AND w.word % asked.word AND similarity(w.word, asked.word) >= ${CORRECTION_SIMILARITY}
         ORDER BY similarity(w.word, asked.word) DESC LIMIT 2) AS similar_word
     WHERE NOT EXISTS (SELECT 1 FROM memory_words known WHERE known.user_id = $1 AND known.word = asked.word)
  ), queries AS (
    SELECT searched.list, first_terms.terms,
           nullif(array_to_string(first_terms.terms, ' & '), '')::tsquery AS every_word,
           nullif(array_to_string(first_terms.terms, ' | '), '')::tsquery AS some_word
      FROM (SELECT 'fts' AS list, $2::text AS words UNION ALL SELECT 'fuzzy', words FROM corrections) AS searched
      CROSS JOIN LATERAL (
        SELECT array_agg('''' || replace(replace(lexeme, '\\', '\\\\'), '''', '''''') || '''' ORDER BY positions[1], lexeme) AS terms
          FROM (SELECT lexeme, positions FROM unnest(to_tsvector('english', searched.words))
                 ORDER BY positions[1], lexeme LIMIT ${MAX_QUERY_TERMS}) AS first_lexemes) AS first_terms
  ), ${recentMemoriesSql}, found AS MATERIALIZED (
    SELECT queries.list, recent.search_vector @@ queries.every_word AS every_word, ${memoryColumns('recent')}, recent.search_vector
      FROM queries JOIN recent ON recent.search_vector @@ queries.some_word
     WHERE $5::text IS NULL OR recent.kind = $5
  ), uncommon AS (
    SELECT queries.list, nullif(array_to_string(array_agg(term), ' | '), '')::tsquery AS some_word
      FROM queries CROSS JOIN LATERAL unnest(queries.terms) AS term
     WHERE queries.some_word <> queries.every_word
       AND (SELECT count(*) FROM (SELECT FROM found WHERE found.list = queries.list AND found.search_vector @@ term::tsquery
                                   LIMIT ${COMMON_AMONG_RECENT}) AS holders) < ${COMMON_AMONG_RECENT}
     GROUP BY queries.list
  )
  SELECT ranked.* FROM queries CROSS JOIN LATERAL (
    SELECT queries.list, ${memoryColumns('matched')},
           matched.every_word::int + ts_rank(matched.search_vector, queries.some_word) * ln(2) / ln(length(matched.search_vector) + 1) AS relevance
      FROM ((SELECT found.every_word, ${memoryColumns('found')}, found.search_vector FROM found WHERE found.list = queries.list)
            UNION ALL
            (SELECT true, ${memoryColumns('m')}, m.search_vector FROM memories m, older
              WHERE (SELECT count(*) FROM found WHERE found.list = queries.list AND found.every_word) < $3
                AND m.user_id = $1 AND m.deleted_at IS NULL AND ($5::text IS NULL OR m.kind = $5)
                AND (m.created_at, m.id) < (older.created_at, older.id) AND m.search_vector @@ queries.every_word
              LIMIT ${MATCH_CAP})
            UNION ALL
            (SELECT false, ${memoryColumns('m')}, m.search_vector FROM memories m, older, uncommon
              WHERE uncommon.list = queries.list
                AND m.user_id = $1 AND m.deleted_at IS NULL AND ($5::text IS NULL OR m.kind = $5)
                AND (m.created_at, m.id) < (older.created_at, older.id)
                AND m.search_vector @@ uncommon.some_word AND NOT m.search_vector @@ queries.every_word
              LIMIT ${MATCH_CAP})) AS matched
     ORDER BY relevance DESC, matched.updated_at DESC
     LIMIT $3) AS ranked`;

/**
 * `lexicalCandidatesSql`'s parameters for one recall: $1 the user, $2 the query's search text, $3
 * candidates per list, $4 its first MAX_QUERY_TERMS vocabulary words (each looked up by trigrams),
 * $5 a kind to keep (null: all).
 */
export const lexicalCandidatesParams = (userId: string, query: string, limit: number, kind: MemoryKind | undefined): unknown[] => [
  userId,
  searchQueryText(query),
  limit,
  vocabularyWords(query).slice(0, MAX_QUERY_TERMS),
  kind ?? null,
];

/** Adds the words of a stored text to the user's vocabulary. $1 user id, $2 the words. */
export const addVocabularySql = 'INSERT INTO memory_words (user_id, word) SELECT $1, unnest($2::text[]) ON CONFLICT DO NOTHING';

/**
 * The user's live memories nearest to a vector (cosine distance), through the HNSW index for
 * vectors of this length, superseded ones included (as in the lexical lists). $1 user id, $2 the
 * vector, $3 the model, $4 how many, $5 a kind to keep (null: all).
 */
export const vectorCandidatesSql = (dimensions: number): string => `
  SELECT ${memoryColumns('m')}, e.embedding::vector(${dimensions}) <=> $2::vector(${dimensions}) AS distance
    FROM memory_embeddings e JOIN memories m ON m.id = e.memory_id
   WHERE e.user_id = $1 AND e.model = $3 AND vector_dims(e.embedding) = ${dimensions} AND m.deleted_at IS NULL
     AND ($5::text IS NULL OR m.kind = $5)
   ORDER BY e.embedding::vector(${dimensions}) <=> $2::vector(${dimensions})
   LIMIT $4`;

/**
 * The user's current memories nearest to a vector, leaving out the ids in $5: a new text's
 * near-duplicates, and the memories related to it. $1 user id, $2 the vector, $3 the model, $4 how many.
 */
export const currentNeighboursSql = (dimensions: number): string => `
  SELECT m.id, m.text, m.key, m.updated_at, e.embedding::vector(${dimensions}) <=> $2::vector(${dimensions}) AS distance
    FROM memory_embeddings e JOIN memories m ON m.id = e.memory_id
   WHERE e.user_id = $1 AND e.model = $3 AND vector_dims(e.embedding) = ${dimensions} AND m.deleted_at IS NULL AND m.valid_to IS NULL
     AND m.id <> ALL($5::uuid[])
   ORDER BY e.embedding::vector(${dimensions}) <=> $2::vector(${dimensions})
   LIMIT $4`;
