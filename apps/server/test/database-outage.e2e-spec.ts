import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { bearer, signHs256, TEST_JWT_SECRET } from './support/auth.js';
import { describeNeeding } from './support/services.js';
import { createTestDatabase, postgresService, SHARED_DATABASE_SERVER_URL, type TestDatabase } from './support/test-database.js';
import { JSON_HEADERS, postRaw, startApp, type RunningApp } from './support/test-app.js';

/**
 * A TCP relay in front of PostgreSQL that the test cuts and restores: the database goes away for
 * this app alone, as when its server restarts or the network between them fails.
 */
class Relay {
  private server?: Server;
  private readonly sockets = new Set<Socket>();
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  async open(): Promise<void> {
    this.server = createServer((client) => {
      const upstream = connect(this.target.port, this.target.host);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => this.server!.listen(this.port, '127.0.0.1', resolve));
    this.port = (this.server.address() as { port: number }).port;
  }

  async cut(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => this.server?.close(resolve));
  }
}

const describeWithPostgres = await describeNeeding(postgresService(SHARED_DATABASE_SERVER_URL));

describeWithPostgres('while the database is unreachable', () => {
  let database: TestDatabase;
  let relay: Relay;
  let running: RunningApp;
  const call = (name: string, args: Record<string, unknown>, headers: Record<string, string> = {}) =>
    postRaw(running.url, JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name, arguments: args } }), {
      ...JSON_HEADERS,
      ...headers,
    });
  const rest = async (path: string, token: string) => {
    const response = await fetch(new URL(path, running.url), { headers: bearer(token) });
    return { status: response.status, retryAfter: response.headers.get('retry-after'), body: await response.json() };
  };

  beforeAll(async () => {
    database = await createTestDatabase(SHARED_DATABASE_SERVER_URL);
    const server = new URL(database.url);
    relay = new Relay({ host: server.hostname, port: Number(server.port || 5432) });
    await relay.open();
    server.host = `127.0.0.1:${relay.port}`;
    running = await startApp({ DATABASE_URL: server.href, JWT_SECRET: TEST_JWT_SECRET });
  });

  afterAll(async () => {
    await running?.close();
    await relay?.cut();
    await database?.drop();
  });

  it('answers 503 with Retry-After (never 500), keeps anonymous tools working, and recovers by itself', async () => {
    const known = await signHs256(TEST_JWT_SECRET, { sub: 'known', email: 'known@example.com' });
    const newcomer = await signHs256(TEST_JWT_SECRET, { sub: 'newcomer', email: 'newcomer@example.com' });
    expect((await rest('/api/me/export', known)).status).toBe(200);

    await relay.cut();
    // REST: a user whose id the server knows gets as far as the query, a newcomer fails at sign-in; both a 503.
    for (const token of [known, newcomer]) {
      expect(await rest('/api/me/export', token)).toEqual({
        status: 503,
        retryAfter: '5',
        body: { statusCode: 503, error: 'Service Unavailable', message: 'The database is unavailable for the moment: try again shortly' },
      });
    }
    // /mcp: the newcomer's credential cannot be checked: a JSON-RPC error with the request's id.
    const refused = await call('whoami', {}, bearer(newcomer));
    expect([refused.status, refused.headers.get('retry-after'), refused.json()]).toEqual([
      503,
      '5',
      { jsonrpc: '2.0', error: { code: -32000, message: 'The database is unavailable for the moment: try again shortly' }, id: 7 },
    ]);
    // A known user's tool that needs the database says why it failed, for the model to try again.
    const toolFailure = (await call('list_files', {}, bearer(known))).json();
    expect(toolFailure.result).toEqual({
      content: [{ type: 'text', text: expect.stringMatching(/^The database is unavailable for the moment: try again shortly \(request id .+\)$/) }],
      isError: true,
    });
    // Anonymous tools need no database.
    const echoed = await call('echo', { text: 'hi' });
    expect([echoed.status, echoed.json().result.structuredContent]).toEqual([200, { echo: 'hi' }]);

    await relay.open();
    const deadline = Date.now() + 15_000;
    let status = 0;
    while (Date.now() < deadline && status !== 200) {
      status = (await rest('/api/me/export', newcomer)).status;
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(status).toBe(200);
    expect((await call('list_files', {}, bearer(newcomer))).json().result.isError).toBeUndefined();
  }, 60_000);
});
