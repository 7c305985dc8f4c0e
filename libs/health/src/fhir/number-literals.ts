/**
 * One token of JSON text after any whitespace: a string (group 1), a structural character (2), a
 * number (3) or `true`/`false`/`null`. The text has already been parsed, so it is valid JSON: a
 * number runs to the next character that cannot be part of one.
 */
const TOKEN = /[\t\n\r ]*(?:("[^"\\]*(?:\\.[^"\\]*)*")|([[\]{},:])|(-?\d[\d.eE+-]*)|[a-z]+)/gy;

/** A decimal number as text, in parts: sign, whole digits, fraction digits, exponent. */
const DECIMAL = /^(-?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/**
 * The value a decimal text denotes, written one way only (`725e-1` for `72.50` and `72.5`), so
 * that two texts are equal exactly when their values are; undefined for what is no decimal
 * (`Infinity`).
 */
function canonicalDecimal(text: string): string | undefined {
  const match = DECIMAL.exec(text);
  if (!match) return undefined;
  const [, sign, whole = '', fraction = '', exponent = '0'] = match;
  const digits = (whole + fraction).replace(/^0+/, '');
  if (digits === '') return '0';
  const significant = digits.replace(/0+$/, '');
  return `${sign}${significant}e${Number(exponent) - fraction.length + digits.length - significant.length}`;
}

/** Whether the JSON number `literal` reads as exactly its value: JSON.parse keeps a 64-bit float, about 15 significant digits. */
export function keepsItsValue(literal: string): boolean {
  return canonicalDecimal(literal) === canonicalDecimal(String(Number(literal)));
}

interface Container {
  isArray: boolean;
  /** The key of the member being read (an object), or the index of the item (an array). */
  at: string | number;
  expectsKey: boolean;
}

const pathOf = (root: string, containers: readonly Container[]) =>
  root + containers.map((container) => (container.isArray ? `[${container.at}]` : `.${container.at}`)).join('');

/**
 * The numbers of a JSON text that JSON.parse does not read as their value (`99999999999999999999`
 * reads as 1e20, `0.12345678901234567890` as 0.12345678901234568, `1e309` as Infinity), by path
 * from `root` (`Bundle.entry[2].resource.valueQuantity.value`), each with its text as sent. Only
 * the text has them: once parsed, the digits are gone. `json` must be valid JSON.
 */
export function inexactNumbers(json: string, root: string): Map<string, string> {
  const found = new Map<string, string>();
  const containers: Container[] = [];
  for (const [, string, structural, number] of json.matchAll(TOKEN)) {
    const container = containers.at(-1);
    if (number !== undefined) {
      if (!keepsItsValue(number)) found.set(pathOf(root, containers), number);
    } else if (string !== undefined) {
      if (container?.expectsKey) container.at = string.includes('\\') ? (JSON.parse(string) as string) : string.slice(1, -1);
    } else if (structural === '{' || structural === '[') {
      containers.push({ isArray: structural === '[', at: structural === '[' ? 0 : '', expectsKey: structural === '{' });
    } else if (structural === '}' || structural === ']') {
      containers.pop();
    } else if (structural === ':') {
      container!.expectsKey = false;
    } else if (structural === ',') {
      if (container!.isArray) container!.at = (container!.at as number) + 1;
      else container!.expectsKey = true;
    }
  }
  return found;
}

/** The text, as sent, of the number at a path (`Observation.valueQuantity.value`) that JSON.parse did not read as its value. */
export type InexactNumbers = (path: string) => string | undefined;

/**
 * `inexactNumbers` as a look-up that reads the text at its first use: a body refused before its
 * numbers are checked (not a Bundle, a missing status) is never read a second time.
 */
export function lazyInexactNumbers(json: string, root: string): InexactNumbers {
  let found: Map<string, string> | undefined;
  return (path) => (found ??= inexactNumbers(json, root)).get(path);
}
