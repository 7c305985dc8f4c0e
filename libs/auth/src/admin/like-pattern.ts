/** LIKE's own wildcards in `text`, and its escape character (PostgreSQL's default, the backslash), matched literally. */
const literal = (text: string): string => text.replace(/[\\%_]/g, (char) => `\\${char}`);

/** A LIKE pattern for text that contains `text`. */
export const containing = (text: string): string => `%${literal(text)}%`;

/** A LIKE pattern for text that starts with `text`. */
export const startingWith = (text: string): string => `${literal(text)}%`;
