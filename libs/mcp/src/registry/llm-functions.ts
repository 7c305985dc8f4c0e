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

/**
 * Gemini `functionDeclarations` entry. Gemini takes an OpenAPI subset that rejects `additionalProperties`
 * and `$schema`, and any enum member that is not a string (it fails the whole request).
 */
export function toGeminiFunction(tool: FunctionSource) {
  return { name: tool.name, description: tool.description ?? '', parameters: toGeminiSchema(tool.inputSchema, ['additionalProperties', '$schema']) };
}

function toGeminiSchema(schema: unknown, keys: string[]): JsonSchema {
  if (Array.isArray(schema)) return schema.map((item) => toGeminiSchema(item, keys)) as unknown as JsonSchema;
  if (schema === null || typeof schema !== 'object') return schema as JsonSchema;
  return withStringEnum(
    Object.fromEntries(
      Object.entries(schema)
        .filter(([key]) => !keys.includes(key))
        .map(([key, value]) => [key, toGeminiSchema(value, keys)]),
    ),
  );
}

/** A numeric or mixed enum keeps its declared type; its allowed values move into the description. */
function withStringEnum(schema: JsonSchema): JsonSchema {
  const values = schema.enum;
  if (!Array.isArray(values) || values.every((value) => typeof value === 'string')) return schema;
  const { enum: _numeric, ...rest } = schema;
  const hint = `Allowed values: ${values.map((value) => JSON.stringify(value)).join(', ')}.`;
  return { ...rest, description: typeof rest.description === 'string' && rest.description ? `${rest.description} ${hint}` : hint };
}
