import type { JsonSchema } from '../decorators/metadata.types.js';

export interface FunctionSource {
  name: string;
  description?: string;
  inputSchema: JsonSchema;
}

/** OpenAI Chat Completions `tools` entry. */
export function toOpenAiChatFunction(tool: FunctionSource) {
  return { type: 'function' as const, function: { name: tool.name, description: tool.description ?? '', parameters: tool.inputSchema } };
}

/** OpenAI Responses API `tools` entry (flat). */
export function toOpenAiResponsesFunction(tool: FunctionSource) {
  return { type: 'function' as const, name: tool.name, description: tool.description ?? '', parameters: tool.inputSchema };
}

/** Gemini `functionDeclarations` entry. Gemini takes an OpenAPI subset that rejects `additionalProperties` and `$schema`. */
export function toGeminiFunction(tool: FunctionSource) {
  return { name: tool.name, description: tool.description ?? '', parameters: withoutKeys(tool.inputSchema, ['additionalProperties', '$schema']) };
}

function withoutKeys(schema: unknown, keys: string[]): JsonSchema {
  if (Array.isArray(schema)) return schema.map((item) => withoutKeys(item, keys)) as unknown as JsonSchema;
  if (schema === null || typeof schema !== 'object') return schema as JsonSchema;
  return Object.fromEntries(
    Object.entries(schema)
      .filter(([key]) => !keys.includes(key))
      .map(([key, value]) => [key, withoutKeys(value, keys)]),
  );
}
