import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { McpRegistry, type UserInfo } from '@app/mcp';
import { runCli } from '../src/cli.js';
import { bearer, cliToken, signHs256, structured, TEST_JWT_SECRET, withClient } from './support/auth.js';
import { writeToolDirectories, type ToolDirectories } from './support/tool-directory-fixtures.js';
import { ERAS, startApp, type RunningApp } from './support/test-app.js';

/**
 * cursor: an allow list with a denied entry (deny wins); reporter: a deny list only; mute: an
 * empty allow list (no tools at all). Any other agent sees everything.
 */
const AGENT_LISTS = {
  ALLOWED_TOOLS_CURSOR: 'echo,whoami,my_account,weekly_summary',
  DISALLOWED_TOOLS_CURSOR: 'whoami',
  DISALLOWED_TOOLS_REPORTER: 'echo,latest_report',
  ALLOWED_TOOLS_MUTE: '',
};

let directories: ToolDirectories;
let running: RunningApp;
let env: Record<string, string>;
let everything: string[];
let aliceJwt: string;

beforeAll(async () => {
  directories = writeToolDirectories();
  env = { JWT_SECRET: TEST_JWT_SECRET, MCP_TOOL_DIRS: directories.env, ...AGENT_LISTS };
  running = await startApp(env);
  aliceJwt = await cliToken(running, env, '--sub', 'alice', '--email', 'alice@example.com');
  everything = running.app
    .get(McpRegistry)
    .listTools()
    .tools.map((tool) => tool.name)
    .sort();
});

afterAll(async () => {
  await running?.close();
  directories.remove();
});

/** An agent-named MCP secret of alice's, made through the REST API as a user would. */
async function secretFor(agent: string): Promise<string> {
  const response = await fetch(new URL('/api/mcp-secrets', running.url), {
    method: 'POST',
    headers: { ...bearer(aliceJwt), 'content-type': 'application/json' },
    body: JSON.stringify({ label: `for ${agent}`, agent }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { secret: string }).secret;
}

const withAgent = (url: URL, agent: string) => Object.assign(new URL(url), { search: `?agent=${encodeURIComponent(agent)}` });
const listed = (url: URL, headers: Record<string, string>, era = ERAS[0]) =>
  withClient(url, era, headers, async (client) => (await client.listTools()).tools.map((tool) => tool.name).sort());
const without = (...names: string[]) => everything.filter((name) => !names.includes(name));

describe('per-agent tool lists', () => {
  it.each(ERAS)('apply to tools/list for a JWT agent claim, an agent MCP secret and ?agent= (%s)', async (era) => {
    const cursorJwt = await signHs256(TEST_JWT_SECRET, { sub: 'alice', email: 'alice@example.com', agent: 'cursor' });
    expect(await listed(running.url, bearer(cursorJwt), era)).toEqual(['echo', 'my_account']);
    expect(await listed(running.url, bearer(await secretFor('reporter')), era)).toEqual(without('echo'));
    expect(await listed(withAgent(running.url, 'cursor'), {}, era)).toEqual(['echo', 'my_account']);
    expect(await listed(withAgent(running.url, 'mute'), {}, era)).toEqual([]);
    // Names match case-insensitively, as the keys are upper-cased; an agent without lists sees everything.
    expect(await listed(withAgent(running.url, 'Cursor'), bearer(aliceJwt), era)).toEqual(['echo', 'my_account']);
    expect(await listed(withAgent(running.url, 'someone-else'), {}, era)).toEqual(everything);
    expect(await listed(running.url, bearer(aliceJwt), era)).toEqual(everything);
  });

  it("let the credential's agent win over ?agent=", async () => {
    const reporterSecret = await secretFor('reporter');
    expect(await listed(withAgent(running.url, 'cursor'), bearer(reporterSecret))).toEqual(without('echo'));
    const secretUrl = new URL(`/mcp/${reporterSecret}?agent=mute`, running.url);
    expect(await listed(secretUrl, {})).toEqual(without('echo'));
  });

  it('answer a call of a hidden tool exactly like one of an unknown tool', async () => {
    const cursorJwt = await signHs256(TEST_JWT_SECRET, { sub: 'alice', email: 'alice@example.com', agent: 'cursor' });
    await withClient(running.url, '2025-11-25', bearer(cursorJwt), async (client) => {
      expect(await structured(client, 'my_account')).toEqual({ email: 'alice@example.com', agent: 'cursor', injectedLogger: true });
      const hidden = await client.callTool({ name: 'whoami', arguments: {} }).catch((error: Error) => error);
      const unknown = await client.callTool({ name: 'no_such_tool', arguments: {} }).catch((error: Error) => error);
      expect(hidden).toBeInstanceOf(Error);
      expect((hidden as Error).message.replace('whoami', 'X')).toBe((unknown as Error).message.replace('no_such_tool', 'X'));
    });
    await withClient(withAgent(running.url, 'reporter'), '2026-07-28', {}, async (client) => {
      await expect(client.callTool({ name: 'echo', arguments: { text: 'x' } })).rejects.toThrow(/Unknown tool: echo/);
    });
    await withClient(withAgent(running.url, 'mute'), '2025-11-25', {}, async (client) => {
      await expect(client.callTool({ name: 'echo', arguments: { text: 'x' } })).rejects.toThrow(/Unknown tool: echo/);
    });
  });

  it('apply to prompts and resources by name', async () => {
    await withClient(withAgent(running.url, 'cursor'), '2025-11-25', {}, async (client) => {
      expect((await client.listPrompts()).prompts.map((prompt) => prompt.name)).toEqual(['weekly_summary']);
      expect((await client.listResources()).resources).toEqual([]);
      await expect(client.readResource({ uri: 'mirobody://reports/latest' })).rejects.toThrow(/Resource not found/);
    });
    await withClient(withAgent(running.url, 'reporter'), '2025-11-25', {}, async (client) => {
      expect((await client.listPrompts()).prompts.map((prompt) => prompt.name)).toEqual(['weekly_summary']);
      await expect(client.readResource({ uri: 'mirobody://reports/latest' })).rejects.toThrow(/Resource not found/);
    });
    const complete = { ref: { type: 'ref/prompt' as const, name: 'weekly_summary' }, argument: { name: 'week', value: '2026-W49' } };
    await withClient(withAgent(running.url, 'cursor'), '2025-11-25', {}, async (client) => {
      expect((await client.complete(complete)).completion.values).toEqual(['2026-W49']);
    });
    await withClient(withAgent(running.url, 'mute'), '2025-11-25', {}, async (client) => {
      expect((await client.listPrompts()).prompts).toEqual([]);
      await expect(client.getPrompt({ name: 'weekly_summary' })).rejects.toThrow(/Unknown prompt/);
      expect((await client.complete(complete)).completion.values).toEqual([]);
    });
  });

  it.each([
    ['a name with a space', '?agent=two%20words', /Query parameter "agent" must be/],
    ['a repeated parameter', '?agent=cursor&agent=mute', /given more than once/],
  ])('refuse ?agent= with %s (400)', async (_case, search, message) => {
    const response = await fetch(new URL(`/mcp${search}`, running.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(message);
  });
});

describe('in-process calls (McpRegistry.call)', () => {
  it('follow the rules of /mcp: visibility, validation, the caller', async () => {
    const registry = running.app.get(McpRegistry);
    const caller: UserInfo = { userId: '00000000-0000-4000-8000-000000000000', email: 'nobody@example.com' };
    expect(await registry.call('echo', { text: 'in' }, undefined, { agent: 'cursor' })).toMatchObject({ structuredContent: { echo: 'IN!' } });
    await expect(registry.call('echo', { text: 'in' }, undefined, { agent: 'reporter' })).rejects.toThrow('Unknown tool: echo');
    await expect(registry.call('whoami', {}, caller, { agent: 'cursor' })).rejects.toThrow('Unknown tool: whoami');
    // The caller's own agent applies when the options name none.
    await expect(registry.call('echo', { text: 'in' }, { ...caller, agent: 'mute' })).rejects.toThrow('Unknown tool: echo');
    expect(await registry.call('echo', { text: 3 }, undefined)).toMatchObject({
      isError: true,
      content: [{ text: 'Invalid arguments for tool "echo": argument "text" must be string' }],
    });
    expect(await registry.call('my_account', {}, undefined)).toMatchObject({
      isError: true,
      content: [{ text: expect.stringMatching(/^Authentication required/) }],
    });
    expect(await registry.call('my_account', {}, caller, { agent: 'cursor' })).toMatchObject({ structuredContent: { email: null, agent: 'cursor' } });
  });

  it('give an LLM the same tools in OpenAI chat, OpenAI Responses and Gemini form', () => {
    const registry = running.app.get(McpRegistry);
    // Directory tools come first, in the order of their directories and files.
    expect(registry.toOpenAiChatTools('cursor').map((tool) => tool.function.name)).toEqual(['my_account', 'echo']);
    expect(registry.toOpenAiResponsesTools('cursor').map((tool) => tool.name)).toEqual(['my_account', 'echo']);
    expect(registry.toGeminiFunctionDeclarations('mute')).toEqual([]);
    expect(
      registry
        .toGeminiFunctionDeclarations('reporter')
        .map((tool) => tool.name)
        .sort(),
    ).toEqual(without('echo'));
  });
});

const FORMATS = ['mcp', 'openai', 'openai-responses', 'gemini'] as const;
const nameOf = (format: (typeof FORMATS)[number], tool: Record<string, any>) => (format === 'openai' ? tool.function.name : tool.name);

describe('GET /admin/tools', () => {
  const adminToken = () => signHs256(TEST_JWT_SECRET, { sub: 'root', email: 'root@example.com', roles: ['admin'] });
  const catalog = async (search: string, token?: string) => {
    const response = await fetch(new URL(`/admin/tools${search}`, running.url), { headers: token ? bearer(token) : {} });
    return { status: response.status, body: (await response.json()) as Record<string, any> };
  };

  it.each(FORMATS.flatMap((format) => ['cursor', 'reporter', 'mute', undefined].map((agent) => [format, agent] as const)))(
    'in %s format for agent %s lists exactly what tools/list shows that agent, with origins',
    async (format, agent) => {
      const { status, body } = await catalog(`?format=${format}${agent ? `&agent=${agent}` : ''}`, await adminToken());
      expect(status).toBe(200);
      const url = agent ? withAgent(running.url, agent) : running.url;
      const listedTools = await withClient(url, '2025-11-25', {}, async (client) => (await client.listTools()).tools);
      expect(body.tools.map((tool: Record<string, any>) => nameOf(format, tool))).toEqual(listedTools.map((tool) => tool.name));
      if (format === 'mcp') expect(body.tools).toEqual(listedTools);
      expect(body).toMatchObject({ format, agent: agent ?? null });
      expect(Object.keys(body.origins).sort()).toEqual(listedTools.map((tool) => tool.name).sort());
      if (!agent) {
        expect(body.origins).toMatchObject({
          echo: `${directories.first}/echo.js`,
          whoami: 'packaged',
          count_readings_above_goal: expect.stringMatching(/examples\/tools\/goal\.service\.ts$/),
        });
      }
    },
  );

  it('is for administrators only, and names a bad parameter', async () => {
    expect((await catalog('')).status).toBe(401);
    expect((await catalog('', aliceJwt)).status).toBe(403);
    const badFormat = await catalog('?format=anthropic', await adminToken());
    expect(badFormat).toMatchObject({ status: 400, body: { fields: { format: expect.stringMatching(/mcp, openai, openai-responses, gemini/) } } });
    expect(await catalog('?format=mcp&format=gemini', await adminToken())).toMatchObject({ status: 400, body: { fields: { format: expect.any(String) } } });
    expect(await catalog('?agent=../etc', await adminToken())).toMatchObject({
      status: 400,
      body: { fields: { agent: expect.stringMatching(/agent must be 1-64 letters/) } },
    });
    expect(await catalog('?colour=red', await adminToken())).toMatchObject({ status: 400, body: { fields: { colour: expect.any(String) } } });
  });
});

describe('the OpenAPI document', () => {
  it('describes GET /admin/tools: its parameters, its answer and that it needs an administrator', async () => {
    const document = (await (await fetch(new URL('/openapi.json', running.url))).json()) as Record<string, any>;
    const operation = document.paths['/admin/tools'].get;
    expect(operation.tags).toEqual(['admin']);
    expect(operation.parameters.map((parameter: { name: string }) => parameter.name).sort()).toEqual(['agent', 'format']);
    expect(operation.parameters.find((parameter: { name: string }) => parameter.name === 'format').schema.enum).toEqual([
      'mcp',
      'openai',
      'openai-responses',
      'gemini',
    ]);
    expect(operation.responses).toHaveProperty('200');
    expect(operation.responses).toHaveProperty('403');
    expect(operation.security.length).toBeGreaterThan(0);
  });
});

describe('npm run cli -- tools', () => {
  const quiet = { log: () => {}, warn: () => {}, error: () => {} };

  it.each(FORMATS)('prints the catalog the server answers (%s), offline from the same configuration', async (format) => {
    const admin = await signHs256(TEST_JWT_SECRET, { sub: 'root', roles: ['admin'] });
    for (const agent of ['cursor', undefined]) {
      const offline = JSON.parse(
        await runCli(['tools', '--format', format, ...(agent ? ['--agent', agent] : [])], { ...env, DATA_DIR: running.dataDir }, undefined, quiet),
      );
      const served = await (
        await fetch(new URL(`/admin/tools?format=${format}${agent ? `&agent=${agent}` : ''}`, running.url), { headers: bearer(admin) })
      ).json();
      // The test app adds probe tools the CLI cannot know of.
      const probes = ['count_slowly', 'add', 'my_email', 'my_roles'];
      const withoutProbes = (catalog: Record<string, any>) => ({
        ...catalog,
        tools: catalog.tools.filter((tool: Record<string, any>) => !probes.includes(nameOf(format, tool))),
        origins: Object.fromEntries(Object.entries(catalog.origins).filter(([name]) => !probes.includes(name))),
      });
      expect(offline).toEqual(withoutProbes(served));
    }
  });

  it('refuses an unknown format or a missing directory', async () => {
    await expect(runCli(['tools', '--format', 'xml'], env, undefined, quiet)).rejects.toMatchObject({ exitCode: 2 });
    await expect(runCli(['tools'], { ...env, MCP_TOOL_DIRS: '/no/such/dir' }, undefined, quiet)).rejects.toThrow(
      'Invalid configuration MCP_TOOL_DIRS: /no/such/dir is not a directory',
    );
  });
});
