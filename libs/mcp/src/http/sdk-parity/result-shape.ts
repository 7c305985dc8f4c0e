import type { CallToolResult, InputRequiredResult } from '@modelcontextprotocol/server';

export const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;

/** The SDK's 2025 wire codec rewrites a tool whose output schema is not an object (and its results). */
export const nonObjectOutputSchema = (schema: Record<string, unknown> | undefined): boolean => schema !== undefined && schema['type'] !== 'object';

/** `CallToolResult` keys in the order the SDK's result schema writes them. */
const RESULT_KEYS = ['content', 'structuredContent', 'isError'];

/**
 * True when the SDK would send this `tools/call` result exactly as `JSON.stringify` writes it: the
 * shapes the registry builds itself (text blocks, plain structured data, an error flag), in the
 * SDK schema's key order. Anything else (a tool's own content blocks with extra keys, a class
 * instance or an own `__proto__` key in `structuredContent`, non-object data the codec wraps, an
 * input request) gets false, and the SDK validates and encodes it as usual.
 */
export function isUnchangedBySdk(result: CallToolResult | InputRequiredResult, outputSchema: Record<string, unknown> | undefined): boolean {
  let position = 0;
  for (const key of Object.keys(result)) {
    const expected = RESULT_KEYS.indexOf(key, position);
    if (expected === -1) return false;
    position = expected + 1;
  }
  const { content, structuredContent, isError } = result as CallToolResult;
  if (!Array.isArray(content) || !content.every(isTextBlock)) return false;
  if (isError !== undefined && typeof isError !== 'boolean') return false;
  if (structuredContent === undefined) return true;
  return isPlainObject(structuredContent) && !Object.hasOwn(structuredContent, '__proto__') && !nonObjectOutputSchema(outputSchema);
}

function isTextBlock(block: unknown): boolean {
  if (!isPlainObject(block) || block.type !== 'text' || typeof block.text !== 'string') return false;
  const keys = Object.keys(block);
  return keys.length === 2 && keys[0] === 'type';
}
