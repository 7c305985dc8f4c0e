import type { MemoryKind } from './memory.options.js';
import type { CandidateRow } from './retrieval/retrieval-sql.js';

/** One memory as the store answers it. */
export interface MemoryView {
  id: string;
  text: string;
  kind: MemoryKind;
  /** The MCP session or conversation it was told in, when known. */
  source: string | null;
  createdAt: Date;
  updatedAt: Date;
  /** A short normalized slot ("home city"): a new memory with the key of a current one supersedes it. */
  key: string | null;
  /** When the fact became true: when it was stored, unless the user said otherwise. */
  validFrom: Date;
  /** When it stopped being true; null while it is current. */
  validTo: Date | null;
  /** The memory that superseded it, if one did. */
  supersededBy: string | null;
}

export interface RecalledMemory extends MemoryView {
  /** In [0, 1], higher is better: see `rank-fusion.ts`. */
  score: number;
}

/** A memory named in `remember`'s answer: what it superseded, or what it may be the same fact as. */
export interface MemoryMention {
  id: string;
  text: string;
  key: string | null;
}

export interface RememberResult {
  id: string;
  /** True when the text matched a current memory, which was refreshed instead of storing a second one. */
  deduplicated: boolean;
  /** The memories this one superseded (by `replaces` or `key`): kept, with their validity ended. */
  superseded: MemoryMention[];
  /** Up to three current memories close to this one, which may be the same fact with an older value. */
  related: MemoryMention[];
}

export const toView = (row: CandidateRow): MemoryView => ({
  id: row.id,
  text: row.text,
  kind: row.kind,
  source: row.source,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  key: row.key,
  validFrom: row.valid_from,
  validTo: row.valid_to,
  supersededBy: row.superseded_by,
});
