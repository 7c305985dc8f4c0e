import ts from 'typescript';

/** A doc comment as a description: see `unwrap`. */
export const documentation = (parts: ts.SymbolDisplayPart[]) => unwrap(ts.displayPartsToString(parts));

/**
 * Doc comment text as a model should read it: a line break inside a paragraph is where the source
 * wrapped it, so it becomes a space; a blank line still separates paragraphs.
 */
export function unwrap(text: string): string {
  return text
    .trim()
    .split(/\n\s*\n/)
    .map((paragraph) => paragraph.replace(/\s*\n\s*/g, ' '))
    .join('\n\n');
}
