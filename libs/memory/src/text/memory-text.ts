/**
 * The two derived forms of a memory's text the store keeps beside it.
 *
 * - `dedupeKey`: what makes two sentences "the same memory": Unicode compatibility forms folded
 *   (NFKC: full-width ＡＢＣ and half-width ABC, ligatures), case folded, punctuation and symbols
 *   dropped, whitespace collapsed. Two texts with equal keys are one memory.
 * - `searchText`: what full-text search indexes. PostgreSQL's parser treats a run of Chinese or
 *   Japanese characters as one word, so a query of two characters from the middle of a sentence
 *   would never match; each such run is therefore also written out as its overlapping pairs of
 *   characters (bigrams, as Lucene's CJK analyzer does), and the same is done to a query. Accents
 *   on Latin letters are removed so that "café" and "cafe" meet.
 */

/** Han, Hiragana, Katakana and Hangul: scripts written without spaces between words. */
const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}ー]+/gu;
const PUNCTUATION_OR_SYMBOL = /[\p{P}\p{S}]+/gu;
const LATIN_WITH_MARKS = /(\p{Script=Latin})\p{M}+/gu;

export function dedupeKey(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(PUNCTUATION_OR_SYMBOL, ' ').replace(/\s+/gu, ' ').trim();
}

/** Removes accents from Latin letters only: in Japanese kana a combining mark changes the letter. */
function stripLatinAccents(text: string): string {
  return text.normalize('NFD').replace(LATIN_WITH_MARKS, '$1').normalize('NFC');
}

/** A run of CJK characters as its overlapping pairs; a single character stays as it is. */
function bigrams(run: string): string[] {
  const characters = Array.from(run);
  if (characters.length < 2) return characters;
  return characters.slice(0, -1).map((character, index) => character + characters[index + 1]);
}

export function searchText(text: string): string {
  const plain = stripLatinAccents(dedupeKey(text));
  const pairs = Array.from(plain.matchAll(CJK_RUN), (match) => bigrams(match[0]).join(' '));
  return pairs.length ? `${plain} ${pairs.join(' ')}` : plain;
}

/** The text a query is matched with: the same preparation, so query and memory tokens agree. */
export const searchQueryText = searchText;

/**
 * The words of a text that a misspelling of could be corrected to: words of at least three
 * letters outside the CJK scripts (those are matched by bigrams), accents removed.
 */
export function vocabularyWords(text: string): string[] {
  const words = stripLatinAccents(dedupeKey(text).replace(CJK_RUN, ' ')).split(' ');
  return Array.from(new Set(words.filter((word) => Array.from(word).length >= 3 && /\p{L}/u.test(word))));
}
