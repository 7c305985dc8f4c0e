import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { BackgroundWrites } from '@app/common';
import { expectAdminOnly, refusedFields, restCall, sql, userIdOf } from './support/admin-calls.js';
import { bearer, signHs256, TEST_JWT_SECRET } from './support/auth.js';
import { JSON_HEADERS, postRaw, startApp, type RunningApp } from './support/test-app.js';

/** What the console's Users page reads: who was seen when, with which roles; their MCP secrets; their export. */

const ENV = { JWT_SECRET: TEST_JWT_SECRET, ADMIN_EMAILS: 'boss@example.com' };
const NOBODY = '00000000-0000-4000-8000-000000000000';
const whoami = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } });

let running: RunningApp;
let admin: string;
let user: string;
const token = (sub: string, extra: Record<string, unknown> = {}) => signHs256(TEST_JWT_SECRET, { sub, email: `${sub}@example.com`, ...extra });
const call = (method: string, path: string, credential?: string) => restCall(running, method, path, credential);
const newestAudit = async () => (await call('GET', '/admin/audit?limit=1', admin)).json.items[0];
const mcpStatus = async (secret: string) => (await postRaw(running.url, whoami, { ...JSON_HEADERS, ...bearer(secret) })).status;

beforeAll(async () => {
  running = await startApp(ENV);
  admin = await token('root', { roles: ['ops', 'admin'] });
  user = await token('plain');
  await userIdOf(running, admin);
  await userIdOf(running, user);
}, 120_000);

afterAll(() => running?.close());

describe('who may call', () => {
  it.each([
    ['GET', () => `/admin/users/${NOBODY}/mcp-secrets`],
    ['DELETE', () => `/admin/users/${NOBODY}/mcp-secrets/${NOBODY}`],
    ['GET', () => `/admin/users/${NOBODY}/export`],
  ])('%s %s: 401 anonymous, 403 a user, and a user id of no one is 404 for an admin', async (method, path) => {
    await expectAdminOnly(running, method, path(), user);
    const answer = await call(method, path(), admin);
    expect([answer.status, answer.json.message]).toEqual([404, 'No such user']);
  });
});

describe('users with their roles and when they were last seen', () => {
  it("stores the roles of each user's latest token, admin included when ADMIN_EMAILS made them one", async () => {
    const boss = await token('boss', { email_verified: true, roles: ['auditor'] });
    const bossId = await userIdOf(running, boss);
    const rootId = (await call('GET', '/admin/users?q=root@', admin)).json.items[0].id;
    const plainId = (await call('GET', '/admin/users?q=plain@', admin)).json.items[0].id;
    const listed = (await call('GET', '/admin/users?limit=200', admin)).json.items as { id: string; roles: string[] }[];
    const rolesOf = (id: string) => listed.find((entry) => entry.id === id)!.roles;
    expect([rolesOf(rootId), rolesOf(bossId), rolesOf(plainId)]).toEqual([['admin', 'ops'], ['admin', 'auditor'], []]);

    // A later token with other roles writes them at once (the roles are part of what the cache compares).
    await userIdOf(running, await token('plain', { roles: ['editor'] }));
    expect((await call('GET', `/admin/users/${plainId}`, admin)).json.roles).toEqual(['editor']);
    await userIdOf(running, user);
    expect((await call('GET', `/admin/users/${plainId}`, admin)).json.roles).toEqual([]);
  });

  it('takes lastSeenAt from the latest of the token, the MCP secrets, the connections and the console sessions', async () => {
    const carol = await token('carol');
    const carolId = await userIdOf(running, carol);
    const lastSeen = async () => {
      const detail = (await call('GET', `/admin/users/${carolId}`, admin)).json;
      const listed = (await call(`GET`, '/admin/users?q=carol@', admin)).json.items[0];
      expect(listed.lastSeenAt).toBe(detail.lastSeenAt);
      return detail.lastSeenAt;
    };
    expect(Date.now() - Date.parse(await lastSeen())).toBeLessThan(60_000);

    await sql(running, `UPDATE users SET updated_at = '2020-01-01T00:00:00Z' WHERE id = $1`, [carolId]);
    expect(await lastSeen()).toBe('2020-01-01T00:00:00.000Z');
    await sql(
      running,
      `INSERT INTO oauth_connections (user_id, client_id, client_name, client_verified, scope, resource, created_at, last_used_at)
       VALUES ($1, 'https://claude.ai/client.json', 'Claude', true, '', 'http://x/mcp', '2020-06-01T00:00:00Z', '2021-01-01T00:00:00Z')`,
      [carolId],
    );
    expect(await lastSeen()).toBe('2021-01-01T00:00:00.000Z');
    await sql(
      running,
      `INSERT INTO console_sessions (token_hash, user_id, sign_in, created_at, last_seen_at, expires_at)
       VALUES ('carol-session', $1, 'oidc', '2021-06-01T00:00:00Z', '2022-01-01T00:00:00Z', '2022-01-02T00:00:00Z')`,
      [carolId],
    );
    expect(await lastSeen()).toBe('2022-01-01T00:00:00.000Z');

    const secret = (await restPost('/api/mcp-secrets', carol, { label: 'laptop' })).secret as string;
    await sql(running, `UPDATE users SET updated_at = '2020-01-01T00:00:00Z' WHERE id = $1`, [carolId]);
    expect(await mcpStatus(secret)).toBe(200);
    await running.app.get(BackgroundWrites).flush();
    expect(Date.now() - Date.parse(await lastSeen())).toBeLessThan(60_000);
  });

  it('pages through more than a thousand users, each once, oldest first', async () => {
    await sql(
      running,
      `INSERT INTO users (issuer, subject, email, created_at)
       SELECT 'bulk', 'bulk-' || n, 'bulk-' || n || '@example.com', '2019-01-01T00:00:00Z'::timestamptz + n * interval '1 second' FROM generate_series(1, 1200) n`,
    );
    const seen: string[] = [];
    let cursor: string | null = '';
    while (cursor !== null) {
      const page = await call('GET', `/admin/users?q=bulk-&limit=200${cursor ? `&cursor=${cursor}` : ''}`, admin);
      expect(page.status).toBe(200);
      seen.push(...page.json.items.map((item: { subject: string }) => item.subject));
      cursor = page.json.nextCursor;
    }
    expect(seen).toEqual(Array.from({ length: 1200 }, (_, index) => `bulk-${index + 1}`));
  });
});

describe("a user's MCP secrets", () => {
  let dana: string;
  let danaId: string;
  let kept: { id: string; secret: string };
  let revokedByDana: { id: string; secret: string };

  beforeAll(async () => {
    dana = await token('dana');
    danaId = await userIdOf(running, dana);
    revokedByDana = await restPost('/api/mcp-secrets', dana, { label: 'old phone', agent: 'claude' });
    kept = await restPost('/api/mcp-secrets', dana, { label: 'laptop', agent: 'cursor' });
    expect((await call('DELETE', `/api/mcp-secrets/${revokedByDana.id}`, dana)).status).toBe(204);
  });

  it('lists them newest first, revoked ones included, as metadata only, on the audit trail', async () => {
    const listed = await call('GET', `/admin/users/${danaId}/mcp-secrets`, admin);
    expect(listed.status).toBe(200);
    expect(listed.json).toEqual({
      items: [
        { id: kept.id, label: 'laptop', agent: 'cursor', createdAt: expect.any(String), expiresAt: null, lastUsedAt: null, revokedAt: null },
        {
          id: revokedByDana.id,
          label: 'old phone',
          agent: 'claude',
          createdAt: expect.any(String),
          expiresAt: null,
          lastUsedAt: null,
          revokedAt: expect.any(String),
        },
      ],
      nextCursor: null,
    });
    const [{ secret_hash: hash }] = await sql(running, 'SELECT secret_hash FROM mcp_secrets WHERE id = $1', [kept.id]);
    expect(listed.text).not.toContain(kept.secret);
    expect(listed.text).not.toContain(hash);
    expect(await newestAudit()).toMatchObject({ action: 'mcp_secrets.list', targetUserId: danaId, detail: null });

    const first = await call('GET', `/admin/users/${danaId}/mcp-secrets?limit=1`, admin);
    const second = await call('GET', `/admin/users/${danaId}/mcp-secrets?limit=1&cursor=${first.json.nextCursor}`, admin);
    expect([...first.json.items, ...second.json.items].map((item: { id: string }) => item.id)).toEqual([kept.id, revokedByDana.id]);
    expect(second.json.nextCursor).toBeNull();
  });

  it('revokes one at once: the next /mcp request with it is refused; revoking it again changes nothing', async () => {
    expect(await mcpStatus(kept.secret)).toBe(200);
    expect((await call('DELETE', `/admin/users/${danaId}/mcp-secrets/${kept.id.toUpperCase()}`, admin)).status).toBe(204);
    expect(await mcpStatus(kept.secret)).toBe(401);
    expect((await postRaw(new URL(`/mcp/${kept.secret}`, running.url), whoami)).status).toBe(401);
    expect(await newestAudit()).toMatchObject({ action: 'mcp_secret.revoke', targetUserId: danaId, detail: { secretId: kept.id.toUpperCase() } });
    expect((await call('DELETE', `/admin/users/${danaId}/mcp-secrets/${kept.id}`, admin)).status).toBe(204);
    const listed = (await call('GET', `/admin/users/${danaId}/mcp-secrets`, admin)).json.items;
    expect(listed.map((item: { revokedAt: string | null }) => item.revokedAt !== null)).toEqual([true, true]);
  });

  it("answers 404 for another user's secret, or one that never was, and leaves it alone", async () => {
    const other = await restPost('/api/mcp-secrets', user, { label: 'plain' });
    for (const secretId of [other.id, NOBODY]) {
      const answer = await call('DELETE', `/admin/users/${danaId}/mcp-secrets/${secretId}`, admin);
      expect([answer.status, answer.json.message]).toEqual([404, 'No such MCP secret']);
    }
    expect(await mcpStatus(other.secret)).toBe(200);
  });

  it('refuses a malformed id, limit or cursor naming it', async () => {
    const refusals = [
      ['DELETE', `/admin/users/${danaId}/mcp-secrets/not-a-uuid`, ['secretId']],
      ['GET', `/admin/users/${danaId}/mcp-secrets?limit=0`, ['limit']],
      ['GET', `/admin/users/${danaId}/mcp-secrets?cursor=nonsense`, ['cursor']],
      ['GET', `/admin/users/${danaId}/mcp-secrets?label=laptop`, ['label']],
    ] as const;
    for (const [method, path, fields] of refusals) {
      expect(await refusedFields(running, method, path, admin)).toEqual({ path, status: 400, fields });
    }
  });
});

describe("a user's export, for an admin", () => {
  it("is the user's own export, as an attachment named after them, on the audit trail", async () => {
    const erin = await token('erin');
    const erinId = await userIdOf(running, erin);
    await restPost('/api/mcp-secrets', erin, { label: 'erin laptop' });
    await running.app.get(BackgroundWrites).flush();
    const own = await call('GET', '/api/me/export', erin);

    for (const spelling of [erinId, erinId.toUpperCase()]) {
      const exported = await call('GET', `/admin/users/${spelling}/export`, admin);
      expect(exported.status).toBe(200);
      expect(exported.headers.get('content-type')).toMatch(/^application\/json/);
      expect(exported.headers.get('content-disposition')).toBe(`attachment; filename="mirobody-export-${erinId}.json"`);
      expect({ ...exported.json, exportedAt: 'when' }).toEqual({ ...own.json, exportedAt: 'when' });
      expect(await newestAudit()).toMatchObject({ action: 'user.export', targetUserId: erinId, detail: null });
    }
  });
});

async function restPost(path: string, credential: string, body: unknown): Promise<{ id: string; secret: string }> {
  const response = await fetch(new URL(path, running.url), {
    method: 'POST',
    headers: { ...bearer(credential), 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(201);
  return (await response.json()) as { id: string; secret: string };
}
