import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { TEST_JWT_SECRET } from './support/auth.js';
import { ConsoleToolsModule } from './support/console-tools.module.js';
import { eventually } from './support/files.js';
import { jsonCall } from './support/json-call.js';
import { partiesOf, statusesOf, tokenFor, type Parties } from './support/parties.js';
import { TaskToolsModule } from './support/task-tools.module.js';
import { startApp, type RunningApp } from './support/test-app.js';

/**
 * The tools REST routes a console's Tools page takes: the list a caller's MCP client would see (with
 * the disabled ones greyed), and a call as the caller, by the rules and into the access log of `/mcp`.
 */
const ENV = {
  JWT_SECRET: TEST_JWT_SECRET,
  JWT_SCOPES_CLAIM: 'scope',
  RATE_LIMIT_REQUESTS: '0',
  ALLOWED_TOOLS_CURSOR: 'echo,remember',
};

let app: RunningApp;
let parties: Parties;

beforeAll(async () => {
  app = await startApp(ENV, { imports: [TaskToolsModule, ConsoleToolsModule] });
  // Tokens carry scopes here (JWT_SCOPES_CLAIM): the parties' carry every scope the built-in tools take.
  parties = await partiesOf(app, { scope: 'memory:read memory:write files:read health:read conversations:write' });
});
afterAll(() => app?.close());

/** POST /api/tools/:name/call, with the answer's X-Request-Id. */
async function callTool(name: string, token: string | undefined, body: unknown) {
  const response = await fetch(new URL(`/api/tools/${encodeURIComponent(name)}/call`, app.url), {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  return { status: response.status, requestId: response.headers.get('x-request-id'), body: await response.json() };
}

const names = (tools: { name: string }[]) => tools.map((tool) => tool.name);

describe('GET /api/tools', () => {
  it('lists what tools/list shows the caller, each with its schema, scopes, task support and origin, then the disabled tools', async () => {
    const answer = await jsonCall(app, 'GET', '/api/tools', parties.alice.token);
    expect(answer.status).toBe(200);
    expect(answer.body.agent).toBeNull();
    const byName = new Map(answer.body.tools.map((tool: { name: string }) => [tool.name, tool]));
    expect(byName.get('remember')).toEqual({
      name: 'remember',
      title: null,
      description: expect.any(String),
      inputSchema: expect.objectContaining({ type: 'object', required: ['text'] }),
      outputSchema: expect.objectContaining({ type: 'object' }),
      scopes: ['memory:write'],
      taskSupport: 'forbidden',
      approval: null,
      actsForUser: true,
      origin: 'packaged',
      enabled: true,
    });
    expect(byName.get('echo')).toMatchObject({ scopes: [], actsForUser: false });
    expect(byName.get('wait_for')).toMatchObject({ taskSupport: 'optional' });
    expect(byName.get('break_later')).toMatchObject({ taskSupport: 'required' });
    expect(byName.get('look_up_weather')).toEqual({
      name: 'look_up_weather',
      title: 'Weather',
      description: 'Looks up the weather; needs an API key this server lacks',
      inputSchema: expect.objectContaining({ properties: { city: expect.objectContaining({ type: 'string' }) } }),
      outputSchema: null,
      scopes: [],
      taskSupport: 'forbidden',
      approval: null,
      actsForUser: false,
      origin: 'packaged',
      enabled: false,
    });
    // The disabled come last, after every tool that can be called.
    const enabled = answer.body.tools.map((tool: { enabled: boolean }) => tool.enabled);
    expect(enabled).toEqual([...enabled].sort((a, b) => Number(b) - Number(a)));
  });

  it("applies an agent's lists, asked for or named by the credential, and a token's scopes", async () => {
    const cursor = await jsonCall(app, 'GET', '/api/tools?agent=cursor', parties.alice.token);
    expect([cursor.body.agent, names(cursor.body.tools)]).toEqual(['cursor', ['echo', 'remember']]);
    const boundToCursor = await tokenFor('carol', { agent: 'cursor', scope: 'memory:write' });
    expect(names((await jsonCall(app, 'GET', '/api/tools', boundToCursor)).body.tools)).toEqual(['echo', 'remember']);
    const other = await jsonCall(app, 'GET', '/api/tools?agent=reporter', boundToCursor);
    expect([other.status, other.body.message]).toEqual([403, expect.stringContaining('agent "cursor"')]);
    const readOnly = await tokenFor('dave', { scope: 'memory:read' });
    const seen = names((await jsonCall(app, 'GET', '/api/tools', readOnly)).body.tools);
    expect(seen).toEqual(expect.arrayContaining(['recall_memory', 'echo', 'look_up_weather']));
    expect(seen).not.toContain('remember');
  });

  it('answers anonymous callers 401, users and admins alike, and a malformed agent 400 naming it', async () => {
    expect(await statusesOf(app, 'GET', '/api/tools', parties)).toEqual({ anonymous: 401, user: 200, admin: 200 });
    const bad = await jsonCall(app, 'GET', '/api/tools?agent=no%20spaces', parties.alice.token);
    expect([bad.status, Object.keys(bad.body.fields)]).toEqual([400, ['agent']]);
  });
});

describe('POST /api/tools/:name/call', () => {
  it("runs the tool as the caller: its effect is the caller's alone, and the access log records the call with its request id", async () => {
    const answer = await callTool('remember', parties.alice.token, { arguments: { text: 'Alice tried the console on a rainy Tuesday' } });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ content: [{ type: 'text' }], structuredContent: { id: expect.any(String) } });
    expect(answer.body.isError).toBeUndefined();
    const found = await jsonCall(app, 'GET', '/api/memories?q=rainy console', parties.alice.token);
    expect(found.body.items.map((memory: { text: string }) => memory.text)).toContain('Alice tried the console on a rainy Tuesday');
    expect((await jsonCall(app, 'GET', '/api/memories?q=rainy console', parties.bob.token)).body.items).toEqual([]);
    await eventually(async () => {
      const rows = await app.app
        .get(DataSource)
        .query('SELECT user_id, success, request_id, error FROM mcp_tool_calls WHERE request_id = $1', [answer.requestId]);
      expect(rows).toEqual([{ user_id: parties.alice.id, success: true, request_id: answer.requestId, error: null }]);
    });
  });

  it("answers a tool's own error 200 with isError, and a failure of the server's as MCP does; both go to the access log", async () => {
    const missing = await callTool('read_file', parties.alice.token, { arguments: { file_key: 'AAAAAAAAAAAAAAAAAAAAAA' } });
    expect([missing.status, missing.body]).toEqual([200, { content: [{ type: 'text', text: 'File not found.' }], isError: true }]);
    const broken = await callTool('break_now', parties.alice.token, { arguments: {} });
    expect([broken.status, broken.body.isError, broken.body.content[0].text]).toEqual([200, true, `Internal error (request id ${broken.requestId})`]);
    await eventually(async () => {
      const rows = await app.app
        .get(DataSource)
        .query('SELECT tool, error FROM mcp_tool_calls WHERE request_id = ANY($1) ORDER BY id', [[missing.requestId, broken.requestId]]);
      expect(rows).toEqual([
        { tool: 'read_file', error: 'File not found.' },
        { tool: 'break_now', error: 'Internal error' },
      ]);
    });
  });

  it('answers a tool that asks the client a question with its error: only an MCP client can answer', async () => {
    const asking = await callTool('ask_name', parties.alice.token, { arguments: {} });
    expect([asking.status, asking.body.isError, asking.body.content[0].text]).toEqual([200, true, expect.stringContaining('There is no MCP client to ask')]);
  });

  it.each([
    ['a missing argument', 'echo', { arguments: {} }, { 'arguments.text': 'missing required argument "text"' }],
    ['a wrong type', 'echo', { arguments: { text: 42 } }, { 'arguments.text': 'argument "text" must be string' }],
    ['an unknown argument', 'echo', { arguments: { text: 'x', user_id: 'bob' } }, { 'arguments.user_id': 'unknown argument "user_id"' }],
    ['no arguments', 'echo', {}, { arguments: 'arguments must be an object' }],
    ['arguments that are no object', 'echo', { arguments: ['x'] }, { arguments: 'arguments must be an object' }],
    ['an unknown field', 'echo', { arguments: { text: 'x' }, as: 'bob' }, { as: expect.any(String) }],
    ['a malformed agent', 'echo', { arguments: { text: 'x' }, agent: 'a b' }, { agent: expect.any(String) }],
    ['a task-only tool', 'break_later', { arguments: { ms: 0 } }, { name: 'runs only as a task' }],
  ])('answers %s with 400 naming it, and runs nothing', async (_what, tool, body, fields) => {
    const answer = await callTool(tool, parties.alice.token, body);
    expect([answer.status, answer.body.fields]).toEqual([400, fields]);
  });

  it('answers an unknown tool, one the agent does not see and a disabled one with 404 naming it', async () => {
    for (const [name, body, message] of [
      ['no_such_tool', { arguments: {} }, 'No tool named "no_such_tool"'],
      ['whoami', { arguments: {}, agent: 'cursor' }, 'No tool named "whoami"'],
      ['look_up_weather', { arguments: { city: 'Oslo' } }, 'Tool "look_up_weather" is disabled on this server'],
    ] as const) {
      const answer = await callTool(name, parties.alice.token, body);
      expect([name, answer.status, answer.body.message]).toEqual([name, 404, message]);
    }
  });

  it("refuses a token without the tool's scopes (403, naming them) and anonymous callers (401); admins call as themselves", async () => {
    const readOnly = await tokenFor('dave', { scope: 'memory:read' });
    const refused = await callTool('remember', readOnly, { arguments: { text: 'Dave may not write' } });
    expect([refused.status, refused.body.message]).toEqual([403, expect.stringContaining('memory:write')]);
    expect(await statusesOf(app, 'POST', '/api/tools/whoami/call', parties, { arguments: {} })).toEqual({ anonymous: 401, user: 200, admin: 200 });
    expect((await callTool('my_email', parties.admin.token, { arguments: {} })).body.structuredContent).toEqual({ email: parties.admin.email });
    expect((await callTool('my_email', parties.bob.token, { arguments: {} })).body.structuredContent).toEqual({ email: parties.bob.email });
  });
});
