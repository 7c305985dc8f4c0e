import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { bearer, signHs256, TEST_JWT_SECRET } from './support/auth.js';
import { seedEmbeddedDatabase } from './support/pglite-template.js';
import { startProcess, stopGroup, type Started } from './support/processes.js';
import { copyProject } from './support/project-copy.js';

/**
 * A body the server refuses (over BODY_LIMIT_BYTES, over FILES_MAX_BYTES) is answered 413 and read
 * to its end before the connection closes, so that a client that writes its whole body before it
 * reads the answer (Node's fetch) receives the 413 and its message. Before, Node 22's fetch got
 * EPIPE for 3 of 3 streamed bodies: the server closed the socket with the body unread. The server
 * runs in a process of its own, as in production: in the test's own process the client's writes
 * and the server's reads share one event loop, and the reset never happens. (Node 20's fetch got
 * the 413 even then; CI runs Node 22.)
 */
let project: string;
let server: Started;
let url: URL;
let token: string;

beforeAll(async () => {
  project = copyProject('mirobody-refused-bodies-', { build: true });
  const dataDir = join(project, 'data');
  seedEmbeddedDatabase(dataDir);
  server = startProcess(project, process.execPath, ['dist/apps/server/src/main.js'], {
    DATA_DIR: dataDir,
    JWT_SECRET: TEST_JWT_SECRET,
    FILES_MAX_BYTES: String(1024 * 1024),
  });
  url = new URL(await server.announcement(1));
  token = await signHs256(TEST_JWT_SECRET, { sub: 'refused-bodies', email: 'refused@example.com', email_verified: true });
}, 120_000);

afterAll(async () => {
  if (server) await stopGroup(server);
  rmSync(project, { recursive: true, force: true });
});

/** `text` as a stream of 64 KiB chunks: sent chunked, so the server learns its size only as it reads. */
function streamed(text: string): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      controller.enqueue(bytes.subarray(offset, (offset += 65_536)));
    },
  });
}

const bigCall = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'x'.repeat(2_200_000) } } });
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

describe('a refused body', () => {
  it.each([
    ['streamed', () => streamed(bigCall)],
    ['with Content-Length', () => bigCall],
  ])('over BODY_LIMIT_BYTES on /mcp (%s): each of six clients at once, three times, gets the 413 and its JSON-RPC message, never EPIPE', async (_how, body) => {
    // Three rounds of six at once: without the drain, Node 22's fetch lost most of them to EPIPE, though not every time.
    const answers: unknown[] = [];
    for (let round = 0; round < 3; round++) {
      const sent = Array.from({ length: 6 }, async () => {
        const response = await fetch(url, { method: 'POST', headers: { ...MCP_HEADERS, ...bearer(token) }, body: body(), duplex: 'half' } as RequestInit);
        return { status: response.status, connection: response.headers.get('connection'), body: await response.json() };
      });
      answers.push(...(await Promise.all(sent)));
    }
    for (const answer of answers) {
      expect(answer).toEqual({
        status: 413,
        connection: 'close',
        body: { jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Request body is larger than 1048576 bytes (BODY_LIMIT_BYTES)' } },
      });
    }
  });

  it('over BODY_LIMIT_BYTES on a REST route: the 413 in the REST error shape', async () => {
    const response = await fetch(new URL('/api/memories', url), {
      method: 'POST',
      headers: { ...bearer(token), 'content-type': 'application/json' },
      body: streamed(JSON.stringify({ text: 'y'.repeat(2_200_000) })),
      duplex: 'half',
    } as RequestInit);
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ statusCode: 413, message: 'Request body is larger than 1048576 bytes (BODY_LIMIT_BYTES)' });
  });

  it('of an upload over FILES_MAX_BYTES, refused before it is read: the 413 and its message', async () => {
    for (let attempt = 0; attempt < 3; attempt++) {
      const response = await fetch(new URL('/api/files/raw', url), {
        method: 'POST',
        headers: { ...bearer(token), 'content-type': 'application/octet-stream', 'content-disposition': 'attachment; filename="big.bin"' },
        body: new Uint8Array(3 * 1024 * 1024),
      });
      expect(response.status).toBe(413);
      expect((await response.json()) as { message: string }).toMatchObject({ message: expect.stringContaining('FILES_MAX_BYTES') });
    }
  });

  it('larger than the server drains is cut off rather than read for ever, and the server goes on answering', async () => {
    // Twice what the server drains, in 1 MiB chunks.
    let sent = 0;
    const huge = new ReadableStream<Uint8Array>({
      pull: (controller) => (sent++ < 128 ? controller.enqueue(new Uint8Array(1024 * 1024)) : controller.close()),
    });
    const outcome = await fetch(url, { method: 'POST', headers: MCP_HEADERS, body: huge, duplex: 'half' } as RequestInit).then(
      (response) => response.status,
      (error: Error) => (error.cause as { code?: string } | undefined)?.code ?? error.message,
    );
    // Within DRAIN_LIMIT the server answers 413 and closes; what the client saw depends on when its writes failed.
    expect([413, 'EPIPE', 'ECONNRESET', 'UND_ERR_SOCKET']).toContain(outcome);
    expect((await fetch(new URL('/health', url))).status).toBe(200);
  }, 30_000);
});
