import { InvalidInputError } from '@app/common';
import { readMemoryTime, type MemoryKind, type MemoryMention, type RecalledMemory } from '@app/memory';

/** A memory as the memory tools show it to the model (snake_case, ISO times), with its validity. */
export interface MemoryForModel {
  id: string;
  text: string;
  kind: MemoryKind;
  key: string | null;
  score: number;
  created_at: string;
  /** When the fact became true. */
  valid_from: string;
  /** When it stopped being true: null while it is current. */
  valid_to: string | null;
  /** The memory that superseded it, if one did. */
  superseded_by: string | null;
}

/** A memory named in an answer: what was superseded or forgotten, or what may be the same fact. */
export interface MentionForModel {
  id: string;
  text: string;
  key: string | null;
}

export const forModel = (memory: RecalledMemory): MemoryForModel => ({
  id: memory.id,
  text: memory.text,
  kind: memory.kind,
  key: memory.key,
  score: memory.score,
  created_at: memory.createdAt.toISOString(),
  valid_from: memory.validFrom.toISOString(),
  valid_to: memory.validTo?.toISOString() ?? null,
  superseded_by: memory.supersededBy,
});

export const mentionForModel = ({ id, text, key }: MemoryMention): MentionForModel => ({ id, text, key });

/** What the `valid_from` and `as_of` arguments say, in their words. */
export const TIME_ARGUMENT = 'an ISO 8601 date (2024-03-01, its start in UTC) or date-time with a time zone (2024-03-01T09:00:00+01:00)';

/** The instant an optional time argument names; a text that names none is a tool error naming the argument. */
export function timeArgument(sent: string | undefined, name: string): Date | undefined {
  if (sent === undefined) return undefined;
  const read = readMemoryTime(sent);
  if (read instanceof Date) return read;
  throw new InvalidInputError(`${name} ${read.problem}`, { [name]: read.problem });
}
