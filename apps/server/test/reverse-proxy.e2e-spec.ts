import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { request } from 'node:http';
import { DataSource } from 'typeorm';
import { TEST_JWT_SECRET } from './support/auth.js';
import { describeWithHaproxy, startHaproxy, type RunningProxy } from './support/haproxy.js';
import { startIdentityProvider, type TestIdentityProvider } from './support/identity-provider.js';
import { REDIRECT, startBuiltinApp } from './support/oauth-client.js';
import { partyOf, tokenFor } from './support/parties.js';
import { startApp, type RunningApp } from './support/test-app.js';

/**
 * The server behind a real reverse proxy (HAProxy, `option forwardfor`) with `TRUST_PROXY` naming
 * the proxy's address. Clients are told apart by the loopback address they connect from (Linux
 * routes all of 127.0.0.0/8 to the loopback interface, so a socket may bind any of them): the proxy
 * sees each one's own address and appends it to `X-Forwarded-For`; it reaches the app from
 * 127.0.0.1, which is trusted, while a client straight to the app comes from an address that is not.
 */
const PROXY_SOURCE = '127.0.0.1';
const ENV = {
  JWT_SECRET: TEST_JWT_SECRET,
  RATE_LIMIT_ANONYMOUS_REQUESTS: '3',
  RATE_LIMIT_WINDOW_SECONDS: '60',
  TRUST_PROXY: PROXY_SOURCE,
};
const PING = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

interface Answer {
  status: number;
  body: string;
}

/** One request over a connection of its own from `localAddress`. */
function requestFrom(localAddress: string, url: URL, method: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { method, headers, localAddress, agent: false }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode!, body: text }));
    });
    outgoing.once('error', reject);
    outgoing.end(body);
  });
}

/** The statuses of `count` anonymous pings to `/mcp` at `base`, one after the other, from `localAddress`. */
async function pings(localAddress: string, base: URL, count: number, headers: (index: number) => Record<string, string> = () => ({})): Promise<number[]> {
  const statuses: number[] = [];
  for (let index = 0; index < count; index++)
    statuses.push((await requestFrom(localAddress, new URL('/mcp', base), 'POST', { ...MCP_HEADERS, ...headers(index) }, PING)).status);
  return statuses;
}

const describeProxy = describeWithHaproxy();

describeProxy('behind a reverse proxy (HAProxy) with TRUST_PROXY', () => {
  let app: RunningApp;
  let proxy: RunningProxy;
  let appBase: URL;

  beforeAll(async () => {
    app = await startApp(ENV);
    appBase = new URL('/', app.url);
    proxy = await startHaproxy(appBase, PROXY_SOURCE);
  });

  afterAll(async () => {
    await proxy?.stop();
    await app?.close();
  });

  it('gives each client behind the proxy a budget of its own, which a forged X-Forwarded-For through the proxy does not escape', async () => {
    expect(await pings('127.0.0.2', proxy.url, 4)).toEqual([200, 200, 200, 429]);
    // HAProxy appends the address it accepted after the forged one: the server reads that one.
    expect(await pings('127.0.0.2', proxy.url, 2, (index) => ({ 'x-forwarded-for': `198.51.100.${index + 1}` }))).toEqual([429, 429]);
    expect(await pings('127.0.0.3', proxy.url, 4)).toEqual([200, 200, 200, 429]);
  });

  it('gives a client that forges X-Forwarded-For straight to the server no extra budget', async () => {
    // A new forged address each time: were any believed, each request would get a budget of its own.
    expect(await pings('127.0.0.4', appBase, 5, (index) => ({ 'x-forwarded-for': `203.0.113.${index + 1}` }))).toEqual([200, 200, 200, 429, 429]);
    // The budget spent was 127.0.0.4's own, not that of the address it named.
    expect(await pings('127.0.0.5', proxy.url, 1, () => ({ 'x-forwarded-for': '203.0.113.1' }))).toEqual([200]);
  });

  it("records the admin's own address on the audit trail, not the proxy's", async () => {
    const bob = await partyOf(app, 'bob');
    const admin = await tokenFor('root', { roles: ['admin'] });
    const viewed = await requestFrom('127.0.0.6', new URL(`/admin/users/${bob.id}`, proxy.url), 'GET', { authorization: `Bearer ${admin}` });
    expect(viewed.status).toBe(200);
    const direct = await requestFrom('127.0.0.7', new URL(`/admin/users/${bob.id}`, appBase), 'GET', {
      authorization: `Bearer ${admin}`,
      'x-forwarded-for': '192.0.2.1',
    });
    expect(direct.status).toBe(200);
    const trail = await app.app
      .get(DataSource)
      .query(`SELECT actor_address FROM admin_audit WHERE action = 'user.view' AND target_user_id = $1 ORDER BY id`, [bob.id]);
    expect(trail).toEqual([{ actor_address: '127.0.0.6' }, { actor_address: '127.0.0.7' }]);
  });

  it("never builds the server's address from X-Forwarded-Host or X-Forwarded-Proto, even through the trusted proxy", async () => {
    const metadata = await requestFrom('127.0.0.8', new URL('/.well-known/oauth-protected-resource', proxy.url), 'GET', {
      'x-forwarded-host': 'attacker.example',
      'x-forwarded-proto': 'https',
    });
    expect(metadata.status).toBe(200);
    expect(JSON.parse(metadata.body).resource).toBe(`http://${proxy.url.host}/mcp`);
  });
});

describeProxy('the OAuth registration limit behind a reverse proxy (HAProxy) with TRUST_PROXY', () => {
  let idp: TestIdentityProvider;
  let app: RunningApp;
  let proxy: RunningProxy;

  beforeAll(async () => {
    idp = await startIdentityProvider({ headless: true });
    app = await startBuiltinApp(idp, { OAUTH_REGISTRATIONS_PER_HOUR: '2', TRUST_PROXY: PROXY_SOURCE });
    proxy = await startHaproxy(new URL('/', app.url), PROXY_SOURCE);
  });

  afterAll(async () => {
    await proxy?.stop();
    await app?.close();
    await idp?.close();
  });

  /** The statuses of `count` dynamic client registrations (RFC 7591) from `localAddress` through the proxy. */
  async function registrations(localAddress: string, count: number): Promise<number[]> {
    const metadata = JSON.stringify({ client_name: 'Proxy test', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' });
    const statuses: number[] = [];
    for (let index = 0; index < count; index++)
      statuses.push((await requestFrom(localAddress, new URL('/register', proxy.url), 'POST', { 'content-type': 'application/json' }, metadata)).status);
    return statuses;
  }

  it("counts each client's registrations apart: one who spends the limit locks no one else out", async () => {
    expect(await registrations('127.0.0.2', 3)).toEqual([201, 201, 429]);
    expect(await registrations('127.0.0.3', 2)).toEqual([201, 201]);
  });
});
