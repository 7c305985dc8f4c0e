import type { CallToolResult, InputRequiredResult } from '@modelcontextprotocol/server';
import { isInputRequiredResult } from '@modelcontextprotocol/server';

/** What a tool returns in the engine's convention: success with data, or a failure the model can read. */
export type ToolResult<T = unknown> = { success: true; data?: T } | { success: false; error: string };

/** Shorthands that read well at the end of a tool method. */
export const ok = <T>(data?: T): ToolResult<T> => ({ success: true, data });
export const fail = (error: string): ToolResult<never> => ({ success: false, error });

export function errorResult(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

function isToolResult(value: object): value is ToolResult {
  return typeof (value as ToolResult).success === 'boolean';
}

function isContentResult(value: object): value is CallToolResult {
  return Array.isArray((value as CallToolResult).content);
}

/**
 * Maps what a tool method returned to an MCP result: `ToolResult` as in the engine, a full
 * `CallToolResult` or input request as is, a string as text, anything else as data. Data that is
 * not an object is published as `structuredContent: { result }`, unless the tool declares a
 * non-object output schema: then the SDK's 2025 wire codec does that wrapping itself (doing it
 * here too gave `{ result: { result: [1] } }`) and 2026 clients get the value as declared.
 */
export function toCallToolResult(value: unknown, outputSchema?: Record<string, unknown>): CallToolResult | InputRequiredResult {
  const wrap = outputSchema === undefined || outputSchema['type'] === 'object';
  if (typeof value === 'string') return { content: [{ type: 'text', text: value }] };
  if (value === undefined || value === null) return { content: [] };
  if (typeof value !== 'object') return dataResult(value, wrap);
  if (isInputRequiredResult(value)) return value;
  if (isContentResult(value)) return value;
  if (isToolResult(value)) return value.success ? dataResult(value.data, wrap) : errorResult(value.error || 'Tool failed');
  return dataResult(value, wrap);
}

function dataResult(data: unknown, wrapNonObject: boolean): CallToolResult {
  if (data === undefined) return { content: [] };
  if (typeof data === 'string') return { content: [{ type: 'text', text: data }] };
  const text = JSON.stringify(data);
  // A value with toJSON (a Date, say) is published as what it serializes to, so both forms agree.
  const json = data !== null && typeof (data as { toJSON?: unknown }).toJSON === 'function' ? JSON.parse(text) : data;
  const isObject = json !== null && typeof json === 'object' && !Array.isArray(json);
  const structuredContent = isObject || !wrapNonObject ? (json as Record<string, unknown>) : { result: json };
  return { content: [{ type: 'text', text }], structuredContent };
}
