/** The longest title kept, in characters (Unicode code points). */
export const MAX_TITLE_CHARS = 200;

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/**
 * Trims and shortens a summary to at most `MAX_TITLE_CHARS` code points, cutting only between whole characters as
 * people see them (never inside a surrogate pair, nor between an emoji and its modifiers).
 */
export function toTitle(summary: string): string {
  const text = summary.trim().replace(/\s+/g, ' ');
  if ([...text].length <= MAX_TITLE_CHARS) return text;
  let title = '';
  let length = 0;
  for (const { segment } of graphemes.segment(text)) {
    const size = [...segment].length;
    if (length + size > MAX_TITLE_CHARS) break;
    title += segment;
    length += size;
  }
  return title.trimEnd();
}
