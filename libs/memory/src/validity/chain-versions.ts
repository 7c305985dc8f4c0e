import type { CandidateRow } from '../retrieval/retrieval-sql.js';
import { holdsUnder, type MemoryValidity } from './memory-validity.js';

/** A row of `chainMembersSql`: one version of the chain of `origin`. */
export interface ChainMember extends CandidateRow {
  origin: string;
  deleted: boolean;
}

/** What a retriever's match stands for in an answer: its chain (named by its last version's id), and the versions of it the answer holds. */
export interface ChainVersions {
  chain: string;
  /** Current version first, then newest `valid_from` first; empty when the validity leaves none. */
  versions: CandidateRow[];
}

/** Current first, then the version that became valid last, then the one stored last. */
export function newestFirst(a: CandidateRow, b: CandidateRow): number {
  return (
    Number(a.valid_to !== null) - Number(b.valid_to !== null) ||
    b.valid_from.getTime() - a.valid_from.getTime() ||
    b.created_at.getTime() - a.created_at.getTime() ||
    a.id.localeCompare(b.id)
  );
}

/** A match that is itself the answer: a current memory, its own chain's last version. */
export const currentItself = (row: CandidateRow): ChainVersions => ({ chain: row.id, versions: [row] });

/**
 * For each origin, its chain and the versions `validity` keeps of it, from the members
 * `chainMembersSql` found: the current one, those valid at an instant, or all. A chain's last
 * version is the one that nothing superseded (`superseded_by` null): exactly one per chain, since
 * each memory has at most one successor and no link points back.
 */
export function versionsByOrigin(members: readonly ChainMember[], validity: MemoryValidity): Map<string, ChainVersions> {
  const byOrigin = new Map<string, ChainMember[]>();
  for (const member of members) byOrigin.set(member.origin, [...(byOrigin.get(member.origin) ?? []), member]);
  const resolved = new Map<string, ChainVersions>();
  for (const [origin, chain] of byOrigin) {
    const last = chain.find((member) => member.superseded_by === null) ?? chain[0]!;
    const versions = chain
      .filter((member) => !member.deleted && holdsUnder(member, validity))
      .map(withoutChainFields)
      .sort(newestFirst);
    resolved.set(origin, { chain: last.id, versions });
  }
  return resolved;
}

function withoutChainFields({ origin, deleted, ...row }: ChainMember): CandidateRow {
  return row;
}

/**
 * A retriever's list (best first) as a list of chains, best first: each chain at the rank of its
 * best match. Chains whose best matches are equally relevant (a one-word query matches many
 * memories equally) are ordered by how many of their versions matched: a fact the user stated
 * several times in the query's words ranks above a memory that mentions them in passing (three
 * versions of "My doctor is ..." above "The doctor set my dose"). Matches whose chain keeps no
 * version under the answer's validity drop out.
 */
export function chainsOf(
  list: readonly CandidateRow[],
  resolved: ReadonlyMap<string, ChainVersions>,
  relevance: (row: CandidateRow) => number,
): ChainVersions[] {
  const chains = new Map<string, { entry: ChainVersions; best: number; matches: number; first: number }>();
  list.forEach((row, index) => {
    const entry = resolved.get(row.id);
    if (!entry || entry.versions.length === 0) return;
    const chain = chains.get(entry.chain);
    if (chain) chain.matches++;
    else chains.set(entry.chain, { entry, best: relevance(row), matches: 1, first: index });
  });
  return Array.from(chains.values())
    .sort((a, b) => b.best - a.best || b.matches - a.matches || a.first - b.first)
    .map((chain) => chain.entry);
}
