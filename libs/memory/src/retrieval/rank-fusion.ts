/**
 * Reciprocal rank fusion with a mild recency boost, as a plain function of the ranked lists.
 *
 * Each retriever (full-text, corrected misspellings, vector) gives a list of memories, best first.
 * A memory's relevance is the sum over the lists of 1 / (K + rank), divided by what a memory
 * ranked first in every list that found anything would get, so relevance is in [0, 1] and equals
 * 1 only for a memory every such retriever put first. Ranks, not raw scores, are fused: a cosine distance and a `ts_rank` are not on one scale.
 *
 * The score shown to callers is relevance × (1 − RECENCY_WEIGHT + RECENCY_WEIGHT × 2^(−age / half-life)):
 * a memory refreshed just now keeps its full relevance, an old one at most loses RECENCY_WEIGHT
 * (10 %) of it, so recency breaks near-ties between equally relevant memories and never lifts an
 * unrelated one above a relevant one.
 */
export const RRF_K = 60;
export const RECENCY_WEIGHT = 0.1;
export const RECENCY_HALF_LIFE_DAYS = 30;

const DAY_MS = 24 * 3600 * 1000;

export interface RankedCandidate {
  id: string;
  /** When the memory was last stored or refreshed: the age recency is measured from. */
  updatedAt: Date;
}

export interface FusedCandidate<T extends RankedCandidate> {
  candidate: T;
  score: number;
}

export function recencyFactor(updatedAt: Date, now: Date): number {
  const ageDays = Math.max(0, now.getTime() - updatedAt.getTime()) / DAY_MS;
  return 1 - RECENCY_WEIGHT + RECENCY_WEIGHT * 2 ** (-ageDays / RECENCY_HALF_LIFE_DAYS);
}

/**
 * Fuses `lists` (each best first) into at most `limit` candidates, best first. `listCount` is the
 * number of retrievers the score is relative to, so that a memory found by only one of two scores
 * at most one half.
 */
export function fuseRankedLists<T extends RankedCandidate>(lists: readonly (readonly T[])[], listCount: number, limit: number, now: Date): FusedCandidate<T>[] {
  const fused = new Map<string, { candidate: T; sum: number }>();
  for (const list of lists) {
    list.forEach((candidate, index) => {
      const entry = fused.get(candidate.id) ?? { candidate, sum: 0 };
      entry.sum += 1 / (RRF_K + index + 1);
      fused.set(candidate.id, entry);
    });
  }
  const best = Math.max(1, listCount) / (RRF_K + 1);
  return Array.from(fused.values(), ({ candidate, sum }) => ({ candidate, score: Math.min(1, sum / best) * recencyFactor(candidate.updatedAt, now) }))
    .sort((a, b) => b.score - a.score || b.candidate.updatedAt.getTime() - a.candidate.updatedAt.getTime() || a.candidate.id.localeCompare(b.candidate.id))
    .slice(0, limit);
}
