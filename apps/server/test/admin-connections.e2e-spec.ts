import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { expectAdminOnly, refusedFields, restCall, sql, userIdOf } from './support/admin-calls.js';
import { signHs256, TEST_JWT_SECRET } from './support/auth.js';
import { startIdentityProvider, type TestIdentityProvider } from './support/identity-provider.js';
import { startApp, type RunningApp } from './support/test-app.js';

/** The console's Connected clients page: every user's connections, and the clients the built-in authorization server knows. */

const CLAUDE = 'https://claude.ai/oauth/mcp-oauth-client-metadata';
const token = (sub: string, extra: Record<string, unknown> = {}) => signHs256(TEST_JWT_SECRET, { sub, email: `${sub}@example.com`, ...extra });

interface Made {
  createdAt: string;
  lastUsedAt?: string;
  revokedAt?: string;
  name?: string;
}

/** A connection as the authorization server stores one at a sign-in; made in SQL, so that its times are the test's. */
async function connection(running: RunningApp, userId: string, clientId: string, { createdAt, lastUsedAt, revokedAt, name = 'Claude' }: Made): Promise<string> {
  const [row] = await sql(
    running,
    `INSERT INTO oauth_connections (user_id, client_id, client_name, client_verified, scope, resource, created_at, last_used_at, revoked_at)
     VALUES ($1, $2, $3, $4, 'memory:read files:read', 'http://127.0.0.1/mcp', $5, $6, $7) RETURNING id`,
    [userId, clientId, name, clientId.startsWith('https://'), createdAt, lastUsedAt ?? null, revokedAt ?? null],
  );
  return row.id;
}

describe('GET /admin/connections', () => {
  let running: RunningApp;
  let admin: string;
  let user: string;
  let aliceId: string;
  let bobId: string;
  const ids: Record<string, string> = {};
  const list = async (query = '') => {
    const answer = await restCall(running, 'GET', `/admin/connections${query}`, admin);
    expect(answer.status).toBe(200);
    return answer.json;
  };
  const idsOf = async (query = '') => (await list(query)).items.map((item: { id: string }) => item.id);

  beforeAll(async () => {
    running = await startApp({ JWT_SECRET: TEST_JWT_SECRET });
    admin = await token('root', { roles: ['admin'] });
    user = await token('plain');
    await userIdOf(running, admin);
    await userIdOf(running, user);
    aliceId = await userIdOf(running, await token('alice'));
    bobId = await userIdOf(running, await token('bob'));
    ids.aliceOld = await connection(running, aliceId, 'mrb_client_cursor', {
      createdAt: '2026-01-01T00:00:00Z',
      revokedAt: '2026-01-05T00:00:00Z',
      name: 'Cursor',
    });
    ids.alice = await connection(running, aliceId, CLAUDE, { createdAt: '2026-01-02T00:00:00Z', lastUsedAt: '2026-01-03T00:00:00Z' });
    ids.bob = await connection(running, bobId, CLAUDE, { createdAt: '2026-01-02T00:00:00.000001Z' });
  }, 120_000);

  afterAll(() => running?.close());

  it('401 anonymous, 403 a user', async () => {
    await expectAdminOnly(running, 'GET', '/admin/connections', user);
  });

  it("lists every user's, newest first to the microsecond, with whose they are", async () => {
    const page = await list();
    expect(page.items.map((item: { id: string }) => item.id)).toEqual([ids.bob, ids.alice, ids.aliceOld]);
    expect(page.items[1]).toEqual({
      id: ids.alice,
      userId: aliceId,
      userEmail: 'alice@example.com',
      clientId: CLAUDE,
      clientName: 'Claude',
      verified: true,
      scopes: ['memory:read', 'files:read'],
      createdAt: '2026-01-02T00:00:00.000Z',
      lastUsedAt: '2026-01-03T00:00:00.000Z',
      revokedAt: null,
    });
    expect(page.items[2]).toMatchObject({ clientId: 'mrb_client_cursor', clientName: 'Cursor', verified: false, revokedAt: '2026-01-05T00:00:00.000Z' });
    expect(page.nextCursor).toBeNull();
  });

  it('filters by user, client and whether they are active, together', async () => {
    expect(await idsOf(`?userId=${aliceId}`)).toEqual([ids.alice, ids.aliceOld]);
    expect(await idsOf(`?userId=${aliceId.toUpperCase()}`)).toEqual([ids.alice, ids.aliceOld]);
    expect(await idsOf(`?clientId=${encodeURIComponent(CLAUDE)}`)).toEqual([ids.bob, ids.alice]);
    expect(await idsOf('?active=true')).toEqual([ids.bob, ids.alice]);
    expect(await idsOf('?active=false')).toEqual([ids.aliceOld]);
    expect(await idsOf(`?userId=${aliceId}&active=true&clientId=${encodeURIComponent(CLAUDE)}`)).toEqual([ids.alice]);
    expect(await idsOf('?userId=00000000-0000-4000-8000-000000000000')).toEqual([]);
  });

  it('pages with the filters, each connection once', async () => {
    const first = await list('?limit=1&clientId=' + encodeURIComponent(CLAUDE));
    const second = await list(`?limit=1&clientId=${encodeURIComponent(CLAUDE)}&cursor=${first.nextCursor}`);
    expect([...first.items, ...second.items].map((item: { id: string }) => item.id)).toEqual([ids.bob, ids.alice]);
    expect(second.nextCursor).toBeNull();
  });

  it.each([
    ['userId=not-a-uuid', ['userId']],
    ['active=yes', ['active']],
    ['active=', ['active']],
    ['active=TRUE', ['active']],
    ['clientId=', ['clientId']],
    ['limit=201', ['limit']],
    ['cursor=nonsense', ['cursor']],
    ['user=alice', ['user']],
  ])('refuses ?%s with a 400 naming the parameter', async (query, fields) => {
    expect(await refusedFields(running, 'GET', `/admin/connections?${query}`, admin)).toEqual({ path: `/admin/connections?${query}`, status: 400, fields });
  });

  it('does not exist for the OAuth clients while the built-in authorization server is off', async () => {
    expect((await restCall(running, 'GET', '/admin/oauth-clients', admin)).status).toBe(404);
    expect((await restCall(running, 'GET', '/admin/oauth-clients')).status).toBe(404);
  });
});

describe('GET /admin/oauth-clients (OAUTH_MODE=builtin)', () => {
  let idp: TestIdentityProvider;
  let running: RunningApp;
  let admin: string;
  let user: string;
  let registered: string;
  const list = async (query = '') => {
    const answer = await restCall(running, 'GET', `/admin/oauth-clients${query}`, admin);
    expect(answer.status).toBe(200);
    return answer.json;
  };

  beforeAll(async () => {
    idp = await startIdentityProvider();
    running = await startApp({ JWT_SECRET: TEST_JWT_SECRET, OAUTH_MODE: 'builtin', ...idp.env });
    admin = await token('root', { roles: ['admin'] });
    user = await token('plain');
    await userIdOf(running, admin);
    const plainId = await userIdOf(running, user);
    const bobId = await userIdOf(running, await token('bob'));
    const registration = await fetch(new URL('/register', running.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'Cursor', redirect_uris: ['http://127.0.0.1:43117/callback'], token_endpoint_auth_method: 'none' }),
    });
    expect(registration.status).toBe(201);
    registered = ((await registration.json()) as { client_id: string }).client_id;
    await connection(running, plainId, registered, { createdAt: '2026-02-01T00:00:00Z', lastUsedAt: '2026-02-03T00:00:00Z', name: 'Cursor' });
    await connection(running, bobId, registered, { createdAt: '2026-02-02T00:00:00Z', revokedAt: '2026-02-04T00:00:00Z', name: 'Cursor' });
    await connection(running, plainId, CLAUDE, { createdAt: '2026-01-01T00:00:00Z', name: 'Claude (old name)' });
    await connection(running, bobId, CLAUDE, { createdAt: '2026-01-10T00:00:00Z', lastUsedAt: '2026-01-11T00:00:00Z' });
    await connection(running, bobId, 'http://127.0.0.1:9/dev-client.json', { createdAt: '2026-01-05T00:00:00Z', name: 'Dev client' });
    await connection(running, bobId, 'mrb_client_lapsed', { createdAt: '2026-01-06T00:00:00Z', name: 'Registration gone' });
    // A registration past its lifetime is unknown, as it is at /authorize, until housekeeping removes it.
    await sql(
      running,
      `INSERT INTO oauth_clients (id, auth_method, client_name, redirect_uris, created_at, expires_at)
       VALUES ('mrb_client_expired', 'none', 'Expired', '["http://127.0.0.1/cb"]', '2025-01-01T00:00:00Z', '2025-02-01T00:00:00Z')`,
    );
  }, 120_000);

  afterAll(async () => {
    await running?.close();
    await idp?.close();
  });

  it('401 anonymous, 403 a user', async () => {
    await expectAdminOnly(running, 'GET', '/admin/oauth-clients', user);
  });

  it('lists registered clients and metadata-document clients, newest first, with their use', async () => {
    const page = await list();
    expect(page.nextCursor).toBeNull();
    const [first, ...rest] = page.items;
    expect(first).toEqual({
      clientId: registered,
      name: 'Cursor',
      kind: 'registered',
      verified: false,
      redirectUris: ['http://127.0.0.1:43117/callback'],
      createdAt: expect.any(String),
      expiresAt: expect.any(String),
      lastUsedAt: '2026-02-03T00:00:00.000Z',
      activeConnections: 1,
    });
    expect(Date.parse(first.expiresAt)).toBeGreaterThan(Date.now());
    expect(rest).toEqual([
      {
        clientId: 'http://127.0.0.1:9/dev-client.json',
        name: 'Dev client',
        kind: 'metadata-document',
        verified: false,
        redirectUris: null,
        createdAt: '2026-01-05T00:00:00.000Z',
        expiresAt: null,
        lastUsedAt: '2026-01-05T00:00:00.000Z',
        activeConnections: 1,
      },
      {
        clientId: CLAUDE,
        name: 'Claude',
        kind: 'metadata-document',
        verified: true,
        redirectUris: null,
        createdAt: '2026-01-01T00:00:00.000Z',
        expiresAt: null,
        lastUsedAt: '2026-01-11T00:00:00.000Z',
        activeConnections: 2,
      },
    ]);
  });

  it('pages, each client once; refuses a bad limit or cursor naming it', async () => {
    const seen: string[] = [];
    let cursor: string | null = '';
    while (cursor !== null) {
      const page = await list(`?limit=1${cursor ? `&cursor=${cursor}` : ''}`);
      seen.push(...page.items.map((item: { clientId: string }) => item.clientId));
      cursor = page.nextCursor;
    }
    expect(seen).toEqual([registered, 'http://127.0.0.1:9/dev-client.json', CLAUDE]);
    for (const [query, fields] of [
      ['limit=0', ['limit']],
      ['cursor=nonsense', ['cursor']],
      ['kind=registered', ['kind']],
    ] as const) {
      expect(await refusedFields(running, 'GET', `/admin/oauth-clients?${query}`, admin)).toEqual({
        path: `/admin/oauth-clients?${query}`,
        status: 400,
        fields,
      });
    }
  });

  it('appears in the OpenAPI document under the admin tag', async () => {
    const document = (await restCall(running, 'GET', '/openapi.json')).json;
    expect(document.paths['/admin/oauth-clients'].get).toMatchObject({ operationId: 'adminOAuthClients_list', tags: ['admin'] });
  });
});
