import { classifyInboundRequest, type JSONRPCRequest } from '@modelcontextprotocol/server';
import type { FastifyRequest } from 'fastify';
import { MODERN_REVISION } from './headers.js';

/**
 * True when `createMcpHandler` would dispatch this 2026 request to its server: the SDK's own
 * classifier finds a well-formed envelope naming this revision that agrees with the
 * `MCP-Protocol-Version` and `Mcp-Method` headers, and the required-header rung it runs next
 * (`validateStandardRequestHeaders`, which the SDK does not export) passes: a `tools/call` names
 * its tool in `Mcp-Name`, a `tasks/get` its task, verbatim (the SDK would decode a Base64 sentinel and strip blanks).
 */
export function servableModern(headers: FastifyRequest['headers'], body: JSONRPCRequest): boolean {
  if (!classifiedModern(headers['mcp-method'] as string, body)) return false;
  const name = namedInMcpName(body);
  return name === undefined || (headers['mcp-name'] === name && name === name.trim() && !name.startsWith('=?'));
}

/** What the request's `Mcp-Name` must name: a `tools/call`'s tool, a `tasks/get`'s task (SEP-2663). */
function namedInMcpName(body: JSONRPCRequest): string | undefined {
  const params = body.params as { name?: string; taskId?: string };
  return body.method === 'tools/call' ? params.name : body.method === 'tasks/get' ? params.taskId : undefined;
}

/**
 * The SDK classifier's verdict on a request `take` accepted (a plain JSON-RPC request with plain
 * params): it reads only the method, the two headers and `params._meta`, so its verdict is
 * remembered by those. A client sends the same envelope with every request, and the envelope's
 * schema validation is most of what classifying costs. Bounded: a flood of distinct envelopes
 * only empties the memo.
 */
function classifiedModern(methodHeader: string, body: JSONRPCRequest): boolean {
  const key = `${body.method}\n${methodHeader}\n${JSON.stringify((body.params as Record<string, unknown>)._meta)}`;
  let verdict = modernVerdicts.get(key);
  if (verdict === undefined) {
    const route = classifyInboundRequest({ httpMethod: 'POST', protocolVersionHeader: MODERN_REVISION, mcpMethodHeader: methodHeader, body });
    verdict = route.kind === 'modern' && route.messageKind === 'request' && route.classification.revision === MODERN_REVISION;
    if (modernVerdicts.size >= MAX_MODERN_VERDICTS) modernVerdicts.clear();
    modernVerdicts.set(key, verdict);
  }
  return verdict;
}

const modernVerdicts = new Map<string, boolean>();
const MAX_MODERN_VERDICTS = 1000;
