import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { bearer, signHs256, structured, TEST_JWT_SECRET, withClient } from './support/auth.js';
import { ERAS, JSON_HEADERS, postRaw, startApp, type RunningApp } from './support/test-app.js';

const ENV = { JWT_SECRET: TEST_JWT_SECRET, JWT_SCOPES_CLAIM: 'scope', PUBLIC_BASE_URL: 'https://mcp.example.com', MCP_ALLOWED_HOSTS: '127.0.0.1' };
const METADATA = 'https://mcp.example.com/.well-known/oauth-protected-resource';
const BUILT_IN_SCOPES = ['conversations:write', 'files:read', 'health:read', 'memory:read', 'memory:write'];
/** The built-in tools that require no scope (and the probe tools every test app has, which require none either). */
const UNSCOPED = ['echo', 'render_chart', 'whoami'];
const SCOPED = ['family_health', 'forget_memory', 'list_files', 'read_file', 'recall_memory', 'remember', 'summarize_conversation'];

const call = (name: string, args: Record<string, unknown> = {}, id = 1) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
const post = (url: URL, body: unknown, headers: Record<string, string> = {}) => postRaw(url, JSON.stringify(body), { ...JSON_HEADERS, ...headers });

let running: RunningApp;
let alice: string; // memory:read and files:read
let bob: string; // a token without the claim: no scopes
let carol: string; // every built-in scope, as a list of strings

beforeAll(async () => {
  running = await startApp(ENV);
  alice = await signHs256(TEST_JWT_SECRET, { sub: 'alice', scope: 'memory:read files:read openid' });
  bob = await signHs256(TEST_JWT_SECRET, { sub: 'bob' });
  carol = await signHs256(TEST_JWT_SECRET, { sub: 'carol', scope: BUILT_IN_SCOPES });
});

afterAll(() => running.close());

const listedTools = async (url: URL, era: (typeof ERAS)[number], token: string) =>
  withClient(url, era, bearer(token), async (client) => (await client.listTools()).tools.map((tool) => tool.name));

describe.each(ERAS)('tools/list and tools/call with JWT_SCOPES_CLAIM, revision %s', (era) => {
  it("lists only the tools a token's scopes allow", async () => {
    const aliceSees = await listedTools(running.url, era, alice);
    expect(aliceSees).toEqual(expect.arrayContaining([...UNSCOPED, 'list_files', 'read_file', 'recall_memory']));
    for (const hidden of ['remember', 'forget_memory', 'family_health', 'summarize_conversation']) expect(aliceSees).not.toContain(hidden);

    const bobSees = await listedTools(running.url, era, bob);
    expect(bobSees).toEqual(expect.arrayContaining(UNSCOPED));
    for (const hidden of SCOPED) expect(bobSees).not.toContain(hidden);

    expect(await listedTools(running.url, era, carol)).toEqual(expect.arrayContaining([...UNSCOPED, ...SCOPED]));
  });

  it('runs a tool the scopes allow, and refuses one they do not with 403 insufficient_scope naming the scope', async () => {
    await withClient(running.url, era, bearer(alice), async (client) => {
      expect(await structured(client, 'recall_memory', { query: 'peanuts' })).toEqual(expect.objectContaining({ memories: [] }));
      await expect(client.callTool({ name: 'remember', arguments: { text: 'The user is allergic to peanuts' } })).rejects.toThrow(
        /403|insufficient_scope|Insufficient scope/,
      );
    });
  });
});

describe('the 403 challenge', () => {
  it('names the error, the scopes to ask for and the metadata, on the fast lane and on a session alike', async () => {
    const sessionless = await post(running.url, call('remember', { text: 'x' }), bearer(alice));
    expect(sessionless.status).toBe(403);
    expect(sessionless.headers.get('www-authenticate')).toBe(`Bearer error="insufficient_scope", scope="memory:write", resource_metadata="${METADATA}"`);
    expect(sessionless.json()).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32000, message: 'Insufficient scope: tool "remember" needs "memory:write", which your token does not grant' },
    });
    // In a batch, one refused call refuses the request: nothing in it runs.
    const batch = await post(running.url, [call('echo', { text: 'hi' }, 1), call('list_files', {}, 2)], bearer(bob));
    expect(batch.status).toBe(403);
    expect(batch.headers.get('www-authenticate')).toContain('scope="files:read"');
  });

  it('challenges an anonymous call of a scoped tool with 401 naming its scopes', async () => {
    const anonymous = await post(running.url, call('family_health'));
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe(`Bearer scope="health:read", resource_metadata="${METADATA}"`);
  });

  it('a token whose scope claim is neither a string nor a list of strings is refused, not read as no scopes', async () => {
    const odd = await signHs256(TEST_JWT_SECRET, { sub: 'dave', scope: 42 });
    const answer = await post(running.url, call('echo', { text: 'hi' }), bearer(odd));
    expect(answer.status).toBe(401);
    expect(answer.json().error.message).toBe('Invalid token: "scope" must be a space-separated string or a list of strings');
  });
});

describe('callers not limited by scopes', () => {
  it("an MCP secret keeps today's behaviour: every tool, whatever its owner's token granted", async () => {
    const created = await fetch(new URL('/api/mcp-secrets', running.url), {
      method: 'POST',
      headers: { ...bearer(bob), 'content-type': 'application/json' },
      body: JSON.stringify({ label: 'laptop' }),
    });
    expect(created.status).toBe(201);
    const { secret } = (await created.json()) as { secret: string };
    expect(await listedTools(running.url, '2025-11-25', secret)).toEqual(expect.arrayContaining([...UNSCOPED, ...SCOPED]));
    const remembered = await post(running.url, call('remember', { text: 'The user is allergic to peanuts' }), bearer(secret));
    expect(remembered.status).toBe(200);
  });

  it('a JWT, when JWT_SCOPES_CLAIM is not set', async () => {
    const plain = await startApp({ JWT_SECRET: TEST_JWT_SECRET });
    try {
      const token = await signHs256(TEST_JWT_SECRET, { sub: 'erin', scope: 'memory:read' });
      expect(await listedTools(plain.url, '2025-11-25', token)).toEqual(expect.arrayContaining(SCOPED));
      expect((await post(plain.url, call('remember', { text: 'The user likes tea' }), bearer(token))).status).toBe(200);
    } finally {
      await plain.close();
    }
  });
});

describe('protected-resource metadata', () => {
  it('lists the scopes the tools require as scopes_supported, at both addresses', async () => {
    for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']) {
      const metadata = (await (await fetch(new URL(path, running.url))).json()) as { scopes_supported?: string[] };
      expect(metadata.scopes_supported).toEqual(BUILT_IN_SCOPES);
    }
  });
});
