import { MATCH_CAP, MAX_QUERY_TERMS } from './retrieval-sql.js';

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
 * most shared first, leaving out the ids in $3. Like recall, it reads at most MATCH_CAP matches
 * of a user's memories. $1 user, $2 the new text's search text (`searchText`), $5 how many.
 */
export const relatedByWordsSql = `
  WITH asked AS (
    SELECT array_agg(lexeme) AS lexemes,
           nullif(array_to_string(array_agg('''' || replace(replace(lexeme, '\\', '\\\\'), '''', '''''') || ''''), ' | '), '')::tsquery AS some_word
      FROM (SELECT lexeme FROM unnest(to_tsvector('english', $2::text)) ORDER BY positions[1], lexeme LIMIT ${MAX_QUERY_TERMS}) AS first_lexemes
  )
  SELECT matched.id, matched.text, matched.key, matched.updated_at, shared.words::float8 / least(cardinality(asked.lexemes), length(matched.search_vector)) AS share
    FROM asked CROSS JOIN LATERAL (
      SELECT id, text, key, updated_at, search_vector FROM memories
       WHERE user_id = $1 AND deleted_at IS NULL AND valid_to IS NULL AND id <> ALL($3::uuid[]) AND search_vector @@ asked.some_word
       LIMIT ${MATCH_CAP}) AS matched
    CROSS JOIN LATERAL (
      SELECT count(*) AS words FROM unnest(tsvector_to_array(matched.search_vector)) AS lexeme WHERE lexeme = ANY(asked.lexemes)) AS shared
   WHERE shared.words::float8 / least(cardinality(asked.lexemes), length(matched.search_vector)) >= $4
   ORDER BY share DESC, matched.updated_at DESC
   LIMIT $5`;
