import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, execFileSync } from 'node:child_process';
import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Injectable, Module } from '@nestjs/common';
import { Arg, McpTool, ok } from '@app/mcp';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { bearer, signHs256, TEST_JWT_SECRET } from './support/auth.js';
import { seedEmbeddedDatabase } from './support/pglite-template.js';
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from './support/test-database.js';
import { CONFORMANCE_TOOLS, JSON_HEADERS, postRaw, startApp, type RunningApp } from './support/test-app.js';

@Injectable()
class SlowService {
  @McpTool({ description: 'Answers after `ms` milliseconds.' })
  async sleepFor(@Arg('ms', { description: 'How long to wait, e.g. 300', type: 'integer' }) ms: number) {
    // Unref'd: a call cut off by shutdown must not keep the test process alive.
    await new Promise((done) => setTimeout(done, ms).unref());
    return ok({ slept: ms });
  }
}

@Module({ providers: [SlowService] })
class SlowToolsModule {}

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'log-test', version: '1' } },
});

const SAMPLING_CALL = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'test_sampling', arguments: { prompt: 'hi' } } });

const sleepFor = (ms: number) => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'sleep_for', arguments: { ms } } });

describe('closing the app', () => {
  it('lets a call in flight finish, without waiting out the grace period', async () => {
    // A grace period far past the test's own timeout: closing must end when the call does, not when the grace does.
    const running = await startApp({ SHUTDOWN_GRACE_SECONDS: '600' }, { imports: [SlowToolsModule] });
    const call = postRaw(running.url, sleepFor(500));
    await new Promise((done) => setTimeout(done, 150));
    await running.close();
    const response = await call;
    expect(response.status).toBe(200);
    expect(response.json().result.structuredContent).toEqual({ slept: 500 });
  });

  it('cuts calls still running after SHUTDOWN_GRACE_SECONDS', async () => {
    const running = await startApp({ SHUTDOWN_GRACE_SECONDS: '1' }, { imports: [SlowToolsModule] });
    // Settled into a value right away: the rejection arrives while close() is still awaited.
    const outcome = fetch(running.url, { method: 'POST', headers: JSON_HEADERS, body: sleepFor(60_000) }).then(
      (response) =>
        response.text().then(
          () => 'answered',
          () => 'cut',
        ),
      () => 'cut',
    );
    await new Promise((done) => setTimeout(done, 150));
    // The call would answer after 60 s, far past the test's timeout: closing cuts it once the 1 s grace is over.
    await running.close();
    expect(await outcome).toBe('cut');
  });

  it('writes the access-log rows of calls that finish during shutdown before the database closes', async () => {
    const running = await startApp({ JWT_SECRET: TEST_JWT_SECRET, SHUTDOWN_GRACE_SECONDS: '600' }, { imports: [SlowToolsModule] });
    try {
      const headers = { ...JSON_HEADERS, ...bearer(await signHs256(TEST_JWT_SECRET, { sub: 'shutdown-log', email: 'log@example.com', email_verified: true })) };
      // The caller's row exists before the calls, as for any user who has called before.
      expect((await postRaw(running.url, sleepFor(1), headers)).status).toBe(200);
      const calls = Array.from({ length: 5 }, (_, index) => postRaw(running.url, sleepFor(300 + index * 50), headers));
      await new Promise((done) => setTimeout(done, 150));
      await running.app.close();
      expect((await Promise.all(calls)).map((call) => call.status)).toEqual([200, 200, 200, 200, 200]);
      expect(await loggedCalls(running, 'sleep_for')).toBe(6);
    } finally {
      await running.close();
    }
  });

  it('answers the calls in flight with Connection: close, so that a keep-alive client opens no request on a closing connection', async () => {
    const running = await startApp({ SHUTDOWN_GRACE_SECONDS: '600' }, { imports: [SlowToolsModule] });
    const agent = new Agent({ keepAlive: true });
    try {
      const post = (body: string) =>
        new Promise<{ status: number; headers: IncomingHttpHeaders }>((resolve, reject) => {
          const sent = httpRequest(running.url, { method: 'POST', agent, headers: JSON_HEADERS }, (response) => {
            response.resume().on('end', () => resolve({ status: response.statusCode!, headers: response.headers }));
          });
          sent.on('error', reject).end(body);
        });
      // Before shutdown, the connection is kept for the next request.
      expect((await post(sleepFor(1))).headers.connection).toBe('keep-alive');
      const inFlight = post(sleepFor(500));
      await new Promise((done) => setTimeout(done, 150));
      const closing = running.close();
      expect(await inFlight).toMatchObject({ status: 200, headers: { connection: 'close' } });
      await closing;
    } finally {
      agent.destroy();
    }
  });

  it('never resets a connection under a keep-alive client sending during the drain: each request is answered or refused before it is sent', async () => {
    const running = await startApp({ SHUTDOWN_GRACE_SECONDS: '600', RATE_LIMIT_ANONYMOUS_REQUESTS: '0' }, { imports: [SlowToolsModule] });
    const agent = new Agent({ keepAlive: true, maxSockets: 20 });
    const outcomes = new Map<string, number>();
    let closed = false;
    const post = (body: string) =>
      new Promise<string>((resolve) => {
        const sent = httpRequest(running.url, { method: 'POST', agent, headers: JSON_HEADERS }, (response) => {
          response.resume().on('end', () => resolve(`${response.statusCode} ${response.headers.connection}`));
        });
        sent.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message)).end(body);
      });
    const client = async () => {
      while (!closed) {
        const outcome = await post(sleepFor(5));
        outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
        if (outcome === 'ECONNREFUSED') return;
      }
    };
    try {
      const clients = Array.from({ length: 20 }, client);
      await new Promise((done) => setTimeout(done, 300));
      // A slow call keeps the drain open while the clients go on sending.
      const slow = post(sleepFor(700));
      await new Promise((done) => setTimeout(done, 50));
      await running.close();
      closed = true;
      await Promise.all(clients);
      expect(await slow).toBe('200 close');
      const seen = [...outcomes.keys()];
      expect(seen.filter((outcome) => !['200 keep-alive', '200 close', '503 close', 'ECONNREFUSED'].includes(outcome))).toEqual([]);
      // Every client's connection was told to close, and its next connection was refused before a byte was sent.
      expect(outcomes.get('ECONNREFUSED')).toBe(20);
    } finally {
      closed = true;
      agent.destroy();
    }
  });
});

/** Rows of the access log for `tool`, read after the app closed its database. */
async function loggedCalls(running: RunningApp, tool: string): Promise<number> {
  const query = 'SELECT count(*)::int AS count FROM mcp_tool_calls WHERE tool = $1';
  if (running.databaseUrl) {
    const client = new pg.Client({ connectionString: running.databaseUrl });
    await client.connect();
    try {
      return (await client.query<{ count: number }>(query, [tool])).rows[0]!.count;
    } finally {
      await client.end();
    }
  }
  const db = await PGlite.create({ dataDir: join(running.dataDir, 'pg') });
  try {
    return (await db.query<{ count: number }>(query, [tool])).rows[0]!.count;
  } finally {
    await db.close();
  }
}

describe('the built server', () => {
  const root = resolve(import.meta.dirname, '../../..');
  let workDir: string;
  let database: TestDatabase | undefined;

  beforeAll(async () => {
    // The test runs what `npm run start:prod` runs, so it builds that first.
    execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'ignore' });
    workDir = mkdtempSync(join(tmpdir(), 'mirobody-server-'));
    if (TEST_DATABASE_URL) database = await createTestDatabase(TEST_DATABASE_URL);
    else seedEmbeddedDatabase(join(workDir, 'data'));
  }, 120_000);

  afterAll(async () => {
    await database?.drop();
    rmSync(workDir, { recursive: true, force: true });
  });

  it('logs JSON with request ids and no credentials, and exits 0 on SIGTERM', async () => {
    // Started in an empty directory: no config.yaml of the repository's applies.
    const server = spawn(process.execPath, [join(root, 'dist/apps/server/src/main.js')], {
      cwd: workDir,
      env: {
        PATH: process.env.PATH,
        HOST: '127.0.0.1',
        PORT: '0',
        DATA_DIR: join(workDir, 'data'),
        // A second session evicts the first, which logs a warning while serving the request.
        MCP_MAX_SESSIONS: '1',
        LOG_REQUEST_CONTEXT: 'true',
        // For test_sampling, a call that waits on the client until it hangs up.
        MCP_TOOL_DIRS: CONFORMANCE_TOOLS,
        ...(database ? { DATABASE_URL: database.url } : {}),
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise<number | null>((done) => server.on('exit', (code) => done(code)));
    let output = '';
    const listening = new Promise<string>((done, fail) => {
      server.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        const match = /listening on (http:\/\/\S+)\/mcp/.exec(output);
        if (match) done(match[1]!);
      });
      void exited.then((code) => fail(new Error(`the server exited with ${code} before listening:\n${output}`)));
    });
    const base = await listening;

    const ready = await fetch(`${base}/health/ready`, { headers: { authorization: 'Bearer top-secret-token', 'x-request-id': 'shutdown-test' } });
    expect(ready.status).toBe(200);
    for (const requestId of ['first-session', 'second-session']) {
      const opened = await fetch(`${base}/mcp`, { method: 'POST', headers: { ...JSON_HEADERS, 'x-request-id': requestId }, body: INITIALIZE });
      expect(opened.status).toBe(200);
    }
    const hangUp = new AbortController();
    const waiting = fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, 'x-request-id': 'hung-up' },
      body: SAMPLING_CALL,
      signal: hangUp.signal,
    });
    await new Promise((done) => setTimeout(done, 300));
    hangUp.abort();
    // The sampling request arrives on the call's own stream; hanging up aborts reading it.
    await expect(waiting.then((response) => response.text())).rejects.toThrow();
    await new Promise((done) => setTimeout(done, 200));
    server.kill('SIGTERM');
    expect(await exited).toBe(0);

    const lines = output
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines).toContainEqual(expect.objectContaining({ context: 'McpExplorer', msg: 'Loaded tool: echo' }));
    // Request lines carry the id, method, path and status; headers, and so credentials, are never logged.
    expect(lines).toContainEqual(
      expect.objectContaining({
        reqId: 'shutdown-test',
        req: { id: 'shutdown-test', method: 'GET', url: '/health/ready', remoteAddress: '127.0.0.1' },
        res: { statusCode: 200 },
      }),
    );
    expect(lines).toContainEqual(
      expect.objectContaining({ reqId: 'hung-up', req: { id: 'hung-up', method: 'POST', url: '/mcp', remoteAddress: '127.0.0.1' }, msg: 'request aborted' }),
    );
    // Nest `Logger` lines written while serving a request carry that request's id.
    expect(lines).toContainEqual(
      expect.objectContaining({ reqId: 'second-session', context: 'McpSessions', msg: expect.stringContaining('Session limit 1 reached') }),
    );
    expect(output).not.toContain('top-secret-token');
  }, 60_000);
});
