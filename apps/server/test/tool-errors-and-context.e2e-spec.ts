import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { Catch, Injectable, Logger, Module, UseFilters, type ExceptionFilter } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { NotFoundError } from '@app/common';
import { CurrentUser, fail, McpTool, type UserInfo } from '@app/mcp';
import { bearer, signHs256, TEST_JWT_SECRET } from './support/auth.js';
import { JSON_HEADERS, postRaw, startApp, type RunningApp } from './support/test-app.js';

@Catch(NotFoundError)
class NotFoundAsToolFailure implements ExceptionFilter<NotFoundError> {
  catch(error: NotFoundError) {
    return fail(`filtered: ${error.message}`);
  }
}

@Injectable()
class TroubleService {
  constructor(private readonly db: DataSource) {}

  @McpTool({ description: 'Fails the way a bug fails: a database error naming a table' })
  async brokenQuery(@CurrentUser() _user: UserInfo) {
    return this.db.query('SELECT secret_column FROM users_secret_table_that_does_not_exist');
  }

  @McpTool({ description: 'Fails the way a service refuses: a domain error' })
  missingNote() {
    throw new NotFoundError('No such note');
  }

  @McpTool({ description: 'A domain error turned into a result by its own filter' })
  @UseFilters(NotFoundAsToolFailure)
  filteredNote() {
    throw new NotFoundError('No such note');
  }

  @McpTool({ description: 'Shows the per-call context the server resolved' })
  callContext(@CurrentUser() user: UserInfo) {
    return { conversationId: user.conversationId ?? null, actingFor: user.actingFor ?? null, agent: user.agent ?? null, sessionId: user.sessionId ?? null };
  }
}

@Module({ providers: [TroubleService] })
class TroubleModule {}

const ENV = { JWT_SECRET: TEST_JWT_SECRET };
let running: RunningApp;
let jwt: string;

const call = (name: string) => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {} } });

async function callTool(name: string, headers: Record<string, string> = {}, url = running.url) {
  const response = await postRaw(url, call(name), { ...JSON_HEADERS, ...bearer(jwt), ...headers });
  return { status: response.status, body: response.status === 200 ? parseSse(response.text) : response.json() };
}

/** The one JSON-RPC answer of a POST, whether sent as JSON or as one SSE event. */
function parseSse(text: string) {
  const data = text.startsWith('{')
    ? text
    : text
        .split('\n')
        .find((line) => line.startsWith('data: '))!
        .slice(6);
  return JSON.parse(data).result as { content: { text: string }[]; isError?: boolean; structuredContent?: Record<string, unknown> };
}

beforeAll(async () => {
  running = await startApp(ENV, { imports: [TroubleModule] });
  jwt = await signHs256(TEST_JWT_SECRET, { sub: 'tess', email: 'tess@example.com' });
}, 120_000);

afterAll(() => running?.close());

describe('errors inside tools', () => {
  it("hides an unexpected error from the model behind its request id, and logs the stack with that id, without the driver's message", async () => {
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    try {
      const { body } = await callTool('broken_query', { 'x-request-id': 'req-broken-1' });
      expect(body.isError).toBe(true);
      expect(body.content[0]!.text).toBe('Internal error (request id req-broken-1)');
      expect(JSON.stringify(body)).not.toContain('users_secret_table_that_does_not_exist');
      const [line, stack] = logged.mock.calls.find((args) => String(args[0]).includes('req-broken-1')) ?? [];
      expect(line).toBe('Tool broken_query failed (request id req-broken-1): QueryFailedError: database error 42P01');
      expect(stack).toMatch(/^\s+at /);
      // The driver's message may quote what a caller sent; the log keeps its SQLSTATE only, as on REST.
      expect(`${String(line)}${String(stack)}`).not.toContain('users_secret_table_that_does_not_exist');
    } finally {
      logged.mockRestore();
    }
  });

  it("shows a domain error's message", async () => {
    const { body } = await callTool('missing_note');
    expect(body).toMatchObject({ isError: true, content: [{ text: 'No such note' }] });
  });

  it("runs @UseFilters on a tool and makes the filter's answer the result", async () => {
    const { body } = await callTool('filtered_note');
    expect(body).toMatchObject({ isError: true, content: [{ text: 'filtered: No such note' }] });
  });
});

describe('the per-call context', () => {
  it('comes from X-Conversation-Id, X-Acting-For and ?agent=, resolved once for every tool', async () => {
    const { body } = await callTool('call_context', { 'x-conversation-id': 'conv-1', 'x-acting-for': 'member-7' }, new URL('/mcp?agent=claude', running.url));
    expect(body.structuredContent).toMatchObject({ conversationId: 'conv-1', actingFor: 'member-7', agent: 'claude' });
  });

  it("takes the agent of the caller's MCP secret over ?agent=", async () => {
    const created = await fetch(new URL('/api/mcp-secrets', running.url), {
      method: 'POST',
      headers: { ...bearer(jwt), 'content-type': 'application/json' },
      body: JSON.stringify({ label: 'ide', agent: 'cursor' }),
    });
    const { secret } = (await created.json()) as { secret: string };
    const response = await postRaw(new URL('/mcp?agent=other', running.url), call('call_context'), { ...JSON_HEADERS, ...bearer(secret) });
    expect(parseSse(response.text).structuredContent).toMatchObject({ agent: 'cursor' });
  });

  it('falls back to the session for the conversation: X-Session-Id', async () => {
    const good = await callTool('call_context', { 'x-session-id': 'client-session-9' });
    expect(good.body.structuredContent).toMatchObject({ sessionId: 'client-session-9', conversationId: 'client-session-9' });
  });

  it.each([
    ['x-conversation-id', 'has spaces in it', 'X-Conversation-Id'],
    ['x-acting-for', 'x'.repeat(129), 'X-Acting-For'],
    ['x-session-id', 'not an id <script>', 'X-Session-Id'],
  ])('refuses a malformed %s with 400 naming it', async (name, value, named) => {
    const { status, body } = await callTool('call_context', { [name]: value });
    expect(status).toBe(400);
    expect(JSON.stringify(body)).toContain(named);
  });
});
