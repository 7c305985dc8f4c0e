import type { Tool } from '@modelcontextprotocol/server';
import { toGeminiFunction, toOpenAiChatFunction, toOpenAiResponsesFunction } from './llm-functions.js';

/** `mcp`: as `tools/list` has them; the others as the OpenAI Chat, OpenAI Responses and Gemini APIs take function tools. */
export const CATALOG_FORMATS = ['mcp', 'openai', 'openai-responses', 'gemini'] as const;
export type CatalogFormat = (typeof CATALOG_FORMATS)[number];

export interface ToolCatalog {
  format: CatalogFormat;
  /** The agent whose lists were applied; `null` for all tools. */
  agent: string | null;
  /** Ready to hand to the model's API as its list of tools. */
  tools: unknown[];
  /** Tool name → `packaged`, or the tool-directory file that defined it. */
  origins: Record<string, string>;
}

const FORMATTERS: Record<CatalogFormat, (tool: Tool) => unknown> = {
  mcp: (tool) => tool,
  openai: toOpenAiChatFunction,
  'openai-responses': toOpenAiResponsesFunction,
  gemini: toGeminiFunction,
};

export function formatCatalog(definitions: readonly Tool[], origins: Record<string, string>, format: CatalogFormat, agent: string | undefined): ToolCatalog {
  return { format, agent: agent ?? null, tools: definitions.map(FORMATTERS[format]), origins };
}
