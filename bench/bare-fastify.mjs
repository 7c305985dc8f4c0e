// The baseline: a bare Fastify route answering POST /mcp with a fixed JSON-RPC result of the same
// shape (and size) as our server's tools/call echo answer; only the request id is taken from the body.
// With BARE_BODY=<file> it answers that file's bytes instead, already serialized (the payload floor
// for tools/list: what sending the same bytes costs without any MCP work).
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

const result = { content: [{ type: 'text', text: '{"echo":"hi"}' }], structuredContent: { echo: 'hi' } };
const fixedBody = process.env.BARE_BODY ? readFileSync(process.env.BARE_BODY) : undefined;
const app = Fastify({ logger: false });
if (fixedBody) {
  app.post('/mcp', async (request, reply) => reply.type('application/json').send(fixedBody));
} else {
  app.post('/mcp', async (request) => ({ result, jsonrpc: '2.0', id: request.body?.id ?? null }));
}
const host = process.env.HOST ?? '127.0.0.1';
const port = Number(process.env.PORT ?? 18082);
await app.listen({ port, host });
console.log(`bare fastify listening on http://${host}:${port}/mcp`);
