import { InvalidInputError, isUuid } from '@app/common';
import { MEMORY_KINDS, type MemoryKind } from './memory.options.js';
import { dedupeKey } from './text/memory-text.js';

/**
 * The checks of what a caller gives the store (REST and tools alike), each refusing with an
 * `InvalidInputError` that names the field and says what is wrong.
 */

/** Longest key, in characters once normalized: a key names a slot ("home city"), it is not a sentence. */
export const MAX_KEY_CHARS = 100;

/** Most ids one call may name (`replaces`, `forget_memory`'s `ids`). */
export const MAX_IDS_PER_CALL = 50;

export function checkText(raw: string, maxChars: number): string {
  const text = raw.trim();
  if (!text) throw new InvalidInputError('text must not be empty', { text: 'must not be empty' });
  const length = Array.from(text).length;
  if (length > maxChars) {
    throw new InvalidInputError(`text has ${length} characters; the limit is ${maxChars} (MEMORY_MAX_TEXT_CHARS)`, { text: `at most ${maxChars} characters` });
  }
  if (!dedupeKey(text)) throw new InvalidInputError('text holds only punctuation or symbols', { text: 'must contain letters or digits' });
  return text;
}

export function checkKind(kind: string): MemoryKind {
  if (!(MEMORY_KINDS as readonly string[]).includes(kind)) {
    throw new InvalidInputError(`kind must be one of ${MEMORY_KINDS.join(', ')}`, { kind: `must be one of ${MEMORY_KINDS.join(', ')}` });
  }
  return kind as MemoryKind;
}

/** A key in its normal form (as `dedupeKey` folds a text: case, width, punctuation, spacing), so "Home-City" and "home city" are one slot. */
export function checkKey(raw: string): string {
  const key = dedupeKey(raw);
  if (!key) throw new InvalidInputError('key must contain letters or digits', { key: 'must contain letters or digits' });
  const length = Array.from(key).length;
  if (length > MAX_KEY_CHARS)
    throw new InvalidInputError(`key has ${length} characters; the limit is ${MAX_KEY_CHARS}`, { key: `at most ${MAX_KEY_CHARS} characters` });
  return key;
}

/** Memory ids named by `field`, each once and in lower case; any that is no UUID is refused by name. */
export function checkIds(ids: readonly string[], field: string): string[] {
  if (ids.length > MAX_IDS_PER_CALL)
    throw new InvalidInputError(`${field} names ${ids.length} ids; the limit is ${MAX_IDS_PER_CALL}`, { [field]: `at most ${MAX_IDS_PER_CALL} ids` });
  const malformed = ids.filter((id) => !isUuid(id));
  if (malformed.length) {
    throw new InvalidInputError(`${field}: not memory ids: ${malformed.map((id) => JSON.stringify(id)).join(', ')}`, { [field]: 'must be memory ids (UUIDs)' });
  }
  return Array.from(new Set(ids.map((id) => id.toLowerCase())));
}

/** An instant the database can hold, for `field`. */
export function checkInstant(value: Date, field: string): Date {
  const at = value.getTime();
  if (Number.isNaN(at) || value.getUTCFullYear() < 1 || value.getUTCFullYear() > 9999) {
    throw new InvalidInputError(`${field} must be an instant between the years 1 and 9999`, { [field]: 'must be between the years 1 and 9999' });
  }
  return value;
}
