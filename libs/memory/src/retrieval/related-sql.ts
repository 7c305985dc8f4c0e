import { COMMON_AMONG_RECENT, MATCH_CAP, MAX_QUERY_TERMS, recentMemoriesSql } from './retrieval-sql.js';

/**
 * What `remember` answers as `related`: the user's current memories close to the one it just
 * stored, so that the model can tell it when one of them is the same fact with an older value (and
 * call again with `replaces`). Close means, for each retriever, above a threshold of its own,
 * since fused ranks say which memories come first, not how alike they are:
 * - words: the memory shares at least RELATED_MIN_SHARED_WORDS of the searchable words (stems,
 *   CJK character pairs) of whichever of the two texts has fewer;
 * - vectors: within cosine distance RELATED_MAX_DISTANCE.
 */
export const RELATED_COUNT = 3;
export const RELATED_MIN_SHARED_WORDS = 0.4;
export const RELATED_MAX_DISTANCE = 0.5;

/** One related memory as the queries return it. */
export interface RelatedRow {
  id: string;
  text: string;
  key: string | null;
  updated_at: Date;
}

/**
 * The user's current memories sharing at least $4 of the words of the shorter of the two texts,
 * most shared first, leaving out the ids in $3. As recall does (see `lexicalCandidatesSql`), it
 * reads the user's newest RECENT_MEMORIES memories and, through the full-text index, at most
 * MATCH_CAP older memories holding one of the new text's words that are not common among the
 * newest (`uncommon`): at every `remember`, the soak's notes, which all share five words ("Note ...:
 * the user mentioned ... on day ... of the soak"), made the index collect every memory of the user.
 * A memory's shared words are its words less those left once the new text's are deleted from it.
 * $1 user, $2 the new text's search text (`searchText`), $5 how many.
 */
export const relatedByWordsSql = `
  WITH asked AS (
    SELECT array_agg(lexeme) AS lexemes, array_agg('''' || replace(replace(lexeme, '\\', '\\\\'), '''', '''''') || '''') AS terms
      FROM (SELECT lexeme FROM unnest(to_tsvector('english', $2::text)) ORDER BY positions[1], lexeme LIMIT ${MAX_QUERY_TERMS}) AS first_lexemes
  ), ${recentMemoriesSql}, recent_current AS MATERIALIZED (
    SELECT recent.id, recent.text, recent.key, recent.updated_at, recent.search_vector,
           length(recent.search_vector) - length(ts_delete(recent.search_vector, asked.lexemes)) AS shared
      FROM recent, asked
     WHERE recent.valid_to IS NULL AND recent.id <> ALL($3::uuid[])
  ), uncommon AS (
    SELECT nullif(array_to_string(array_agg(term), ' | '), '')::tsquery AS some_word
      FROM asked CROSS JOIN LATERAL unnest(asked.terms) AS term
     WHERE (SELECT count(*) FROM (SELECT FROM recent_current WHERE recent_current.shared > 0 AND recent_current.search_vector @@ term::tsquery
                                   LIMIT ${COMMON_AMONG_RECENT}) AS holders) < ${COMMON_AMONG_RECENT}
  ), candidates AS (
    SELECT id, text, key, updated_at, shared, length(search_vector) AS words FROM recent_current WHERE shared > 0
    UNION ALL
    SELECT matched.id, matched.text, matched.key, matched.updated_at,
           length(matched.search_vector) - length(ts_delete(matched.search_vector, asked.lexemes)), length(matched.search_vector)
      FROM asked, (
        SELECT m.id, m.text, m.key, m.updated_at, m.search_vector FROM memories m, older, uncommon
         WHERE m.user_id = $1 AND m.deleted_at IS NULL AND m.valid_to IS NULL AND m.id <> ALL($3::uuid[])
           AND (m.created_at, m.id) < (older.created_at, older.id) AND m.search_vector @@ uncommon.some_word
         LIMIT ${MATCH_CAP}) AS matched
  )
  SELECT candidates.id, candidates.text, candidates.key, candidates.updated_at, candidates.shared::float8 / least(cardinality(asked.lexemes), candidates.words) AS share
    FROM candidates, asked
   WHERE candidates.shared::float8 / least(cardinality(asked.lexemes), candidates.words) >= $4
   ORDER BY share DESC, candidates.updated_at DESC
   LIMIT $5`;
