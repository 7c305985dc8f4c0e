import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { bearer, cliToken, TEST_JWT_SECRET } from './support/auth.js';
import { startApp, type RunningApp } from './support/test-app.js';

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const ping = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });

describe('CORS for browser-based MCP clients', () => {
  let running: RunningApp;
  let without: RunningApp;
  const INSPECTOR = 'http://localhost:6274';

  beforeAll(async () => {
    [running, without] = await Promise.all([startApp({ CORS_ORIGINS: `${INSPECTOR}, https://chat.example.com` }), startApp()]);
  });
  afterAll(async () => {
    await Promise.all([running.close(), without.close()]);
  });

  const preflight = (url: URL, origin: string) =>
    fetch(url, {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type, mcp-session-id, mcp-protocol-version',
      },
    });

  it('answers a preflight to /mcp with 204 for a listed origin', async () => {
    const answer = await preflight(running.url, INSPECTOR);
    expect(answer.status).toBe(204);
    expect(answer.headers.get('access-control-allow-origin')).toBe(INSPECTOR);
    expect(answer.headers.get('access-control-allow-methods')).toContain('POST');
    expect(answer.headers.get('access-control-allow-headers')).toContain('mcp-session-id');
    expect(answer.headers.get('vary')).toBe('Origin');
  });

  it('exposes the headers MCP needs on the answers the MCP endpoint writes itself, and on a 401', async () => {
    const initialize = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'browser', version: '1' } },
    });
    const answer = await fetch(running.url, { method: 'POST', headers: { ...MCP_HEADERS, origin: INSPECTOR }, body: initialize });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('access-control-allow-origin')).toBe(INSPECTOR);
    const exposed = answer.headers.get('access-control-expose-headers')!.toLowerCase();
    for (const name of ['mcp-session-id', 'www-authenticate', 'mcp-protocol-version']) expect(exposed).toContain(name);
    await answer.body?.cancel();
    const refused = await fetch(running.url, { method: 'POST', headers: { ...MCP_HEADERS, origin: INSPECTOR, authorization: 'Bearer nonsense' }, body: ping });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('access-control-allow-origin')).toBe(INSPECTOR);
  });

  it('adds nothing for an origin not listed, or when CORS_ORIGINS is unset', async () => {
    const other = await preflight(running.url, 'https://evil.example.com');
    expect(other.status).not.toBe(204);
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    const unset = await preflight(without.url, INSPECTOR);
    expect(unset.status).not.toBe(204);
    expect(unset.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('OAuth protected-resource metadata without PUBLIC_BASE_URL', () => {
  let running: RunningApp;
  beforeAll(async () => {
    running = await startApp();
  });
  afterAll(() => running.close());

  it.each(['127.0.0.1', 'localhost'])('names the /mcp URL at the address the client used (%s)', async (host) => {
    const base = `http://${host}:${running.url.port}`;
    const metadata = (await (await fetch(`${base}/.well-known/oauth-protected-resource`)).json()) as { resource: string };
    expect(metadata.resource).toBe(`${base}/mcp`);
    const challenge = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: MCP_HEADERS,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } }),
    });
    expect(challenge.status).toBe(401);
    expect(challenge.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${base}/.well-known/oauth-protected-resource"`);
  });

  it('names the configured PUBLIC_BASE_URL whatever the client used, in the metadata and in FHIR links (those named the address behind the proxy)', async () => {
    const env = { PUBLIC_BASE_URL: 'https://mcp.example.com/mirobody', JWT_SECRET: TEST_JWT_SECRET };
    const configured = await startApp(env);
    try {
      const metadata = (await (await fetch(new URL('/.well-known/oauth-protected-resource', configured.url))).json()) as { resource: string };
      expect(metadata.resource).toBe('https://mcp.example.com/mirobody/mcp');
      const headers = { ...bearer(await cliToken(configured, env, '--sub', 'alice')), 'content-type': 'application/json' };
      const observation = { resourceType: 'Observation', status: 'final', code: { text: 'steps' }, valueInteger: 9000 };
      for (let count = 0; count < 2; count++) {
        const created = await fetch(new URL('/api/fhir/Observation', configured.url), { method: 'POST', headers, body: JSON.stringify(observation) });
        const { id } = (await created.json()) as { id: string };
        expect(created.headers.get('location')).toBe(`https://mcp.example.com/mirobody/api/fhir/Observation/${id}/_history/1`);
      }
      const page = await fetch(new URL('/api/fhir/Observation?_count=1', configured.url), { headers });
      const links = ((await page.json()) as { link: { relation: string; url: string }[] }).link;
      expect(links.map((link) => link.url)).toEqual([
        'https://mcp.example.com/mirobody/api/fhir/Observation?_count=1',
        expect.stringMatching(/^https:\/\/mcp\.example\.com\/mirobody\/api\/fhir\/Observation\?_count=1&_cursor=[\w-]+$/),
      ]);
    } finally {
      await configured.close();
    }
  });
});

describe('bodies Fastify cannot parse, outside /mcp', () => {
  let running: RunningApp;
  beforeAll(async () => {
    running = await startApp();
  });
  afterAll(() => running.close());

  const multipart = () => {
    const form = new FormData();
    form.append('file', new Blob(['hello']), 'hello.txt');
    return form;
  };

  it.each([
    ['a multipart form', () => ({ body: multipart() })],
    ['plain text', () => ({ body: 'hello', headers: { 'content-type': 'text/plain' } })],
    ['an octet stream', () => ({ body: new Uint8Array([1, 2, 3]), headers: { 'content-type': 'application/octet-stream' } })],
    ['broken JSON', () => ({ body: '{"a":', headers: { 'content-type': 'application/json' } })],
    ['no content type', () => ({ body: new Uint8Array([1]), headers: {} })],
  ])('%s answers 4xx, never 500, on a route that does not exist and on a JSON route', async (_name, request) => {
    for (const path of ['/no/such/route', '/api/mcp-secrets', '/health']) {
      const answer = await fetch(new URL(path, running.url), { method: 'POST', ...request() });
      expect([path, answer.status >= 400 && answer.status < 500 ? '4xx' : answer.status, await answer.text()]).toEqual([path, '4xx', expect.anything()]);
    }
  });
});
