import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { BackgroundWrites } from '@app/common';
import { bearer, signHs256, TEST_JWT_SECRET } from './support/auth.js';
import { JSON_HEADERS, postRaw, startApp, type RunningApp } from './support/test-app.js';

const ENV = { JWT_SECRET: TEST_JWT_SECRET };
const whoami = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } });

let running: RunningApp;
const token = (sub: string, extra: Record<string, unknown> = {}) =>
  signHs256(TEST_JWT_SECRET, { sub, email: `${sub}@example.com`, name: sub.toUpperCase(), ...extra });

async function call(method: string, path: string, credential?: string, body?: unknown) {
  const response = await fetch(new URL(path, running.url), {
    method,
    headers: { ...(credential ? bearer(credential) : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: response.status, json: json as any, text };
}

/** Makes the user exist (first valid token) and returns their id. */
async function userIdOf(credential: string): Promise<string> {
  const created = await call('POST', '/api/mcp-secrets', credential, { label: 'probe' });
  expect(created.status).toBe(201);
  await call('DELETE', `/api/mcp-secrets/${created.json.id}`, credential);
  const [row] = await running.app.get(DataSource).query(`SELECT user_id FROM mcp_secrets WHERE id = $1`, [created.json.id]);
  return row.user_id;
}

let admin: string;
let alice: string;
let bob: string;
let aliceId: string;
let bobId: string;

beforeAll(async () => {
  running = await startApp(ENV);
  admin = await token('root', { roles: ['admin'] });
  alice = await token('alice');
  bob = await token('bob');
  aliceId = await userIdOf(alice);
  bobId = await userIdOf(bob);
  await userIdOf(admin);
}, 120_000);

afterAll(() => running?.close());

const ADMIN_ROUTES: [string, (id: string) => string][] = [
  ['GET', () => '/admin/users'],
  ['GET', (id) => `/admin/users/${id}`],
  ['POST', (id) => `/admin/users/${id}/disable`],
  ['POST', (id) => `/admin/users/${id}/enable`],
  ['DELETE', (id) => `/admin/users/${id}`],
  ['GET', () => '/admin/audit'],
];

describe('the admin area', () => {
  it.each(ADMIN_ROUTES)('%s %s answers 401 to anonymous callers and 403 to non-admins, with or without a secret', async (method, path) => {
    const anonymous = await call(method, path(bobId));
    expect(anonymous.status).toBe(401);
    expect(anonymous.json).toMatchObject({ statusCode: 401 });
    expect((await call(method, path(bobId), alice)).status).toBe(403);
    const secret = (await call('POST', '/api/mcp-secrets', alice, { label: 'admin probe' })).json.secret as string;
    expect((await call(method, path(bobId), secret)).status).toBe(403);
    expect((await call('GET', `/admin/users/${bobId}`, admin)).status).toBe(200);
  });

  it('lists and searches users by e-mail, name or subject, a page at a time', async () => {
    const all = await call('GET', '/admin/users', admin);
    expect(all.status).toBe(200);
    expect(all.json.items.map((user: { subject: string }) => user.subject)).toEqual(expect.arrayContaining(['alice', 'bob', 'root']));
    expect((await call('GET', '/admin/users?q=ALICE@', admin)).json.items.map((user: { id: string }) => user.id)).toEqual([aliceId]);
    expect((await call('GET', '/admin/users?q=BOB', admin)).json.items.map((user: { id: string }) => user.id)).toEqual([bobId]);
    expect((await call('GET', '/admin/users?q=%25', admin)).json.items).toEqual([]);
    const first = await call('GET', '/admin/users?limit=1', admin);
    expect(first.json.items).toHaveLength(1);
    const second = await call('GET', `/admin/users?limit=1&cursor=${first.json.nextCursor}`, admin);
    expect(second.json.items).toHaveLength(1);
    expect(second.json.items[0].id).not.toBe(first.json.items[0].id);
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=201', 'limit'],
    ['limit=ten', 'limit'],
    ['cursor=nonsense', 'cursor'],
    ['role=admin', 'role'],
  ])('answers 400 naming the field for ?%s', async (query, field) => {
    const answer = await call('GET', `/admin/users?${query}`, admin);
    expect(answer.status).toBe(400);
    expect(Object.keys(answer.json.fields)).toEqual([field]);
  });

  it('shows one user with what each lib holds for them; an unknown id is 404', async () => {
    const detail = await call('GET', `/admin/users/${aliceId}`, admin);
    expect(detail.json).toMatchObject({ id: aliceId, email: 'alice@example.com', counts: { account: expect.any(Number) } });
    expect(detail.json.counts.account).toBeGreaterThanOrEqual(1);
    expect((await call('GET', '/admin/users/00000000-0000-4000-8000-000000000000', admin)).status).toBe(404);
  });

  it('answers a malformed user id with one 400 naming the parameter, on every admin route that takes one', async () => {
    const document = (await call('GET', '/openapi.json')).json as { paths: Record<string, Record<string, unknown>> };
    const userRoutes = Object.entries(document.paths)
      .filter(([path]) => /^\/admin\/users\/\{(id|userId)\}/.test(path))
      .flatMap(([path, operations]) => Object.keys(operations).map((method) => [method.toUpperCase(), path] as const));
    expect(userRoutes.length).toBeGreaterThanOrEqual(10);
    for (const [method, path] of userRoutes) {
      const parameter = path.match(/^\/admin\/users\/\{(id|userId)\}/)![1]!;
      for (const malformed of ['not-a-uuid', '1', '00000000-0000-4000-8000-00000000000g']) {
        // The route's other parameters well-formed, so that the user id is the one thing wrong.
        const answer = await call(method, path.replace(`{${parameter}}`, malformed).replace(/\{\w+\}/g, '00000000-0000-4000-8000-000000000000'), admin);
        expect({ route: `${method} ${path}`, malformed, status: answer.status, fields: answer.json?.fields }).toEqual({
          route: `${method} ${path}`,
          malformed,
          status: 400,
          fields: { [parameter]: 'must be a UUID' },
        });
      }
    }
  });

  it('disables a user: their JWT and their secrets are refused on /mcp and /api at once, until re-enabled', async () => {
    const carol = await token('carol');
    const carolId = await userIdOf(carol);
    const secret = (await call('POST', '/api/mcp-secrets', carol, { label: 'carol' })).json.secret as string;
    expect((await postRaw(running.url, whoami, { ...JSON_HEADERS, ...bearer(secret) })).status).toBe(200);

    expect((await call('POST', `/admin/users/${carolId}/disable`, admin)).json.disabledAt).toEqual(expect.any(String));
    expect((await postRaw(running.url, whoami, { ...JSON_HEADERS, ...bearer(carol) })).status).toBe(403);
    expect((await postRaw(running.url, whoami, { ...JSON_HEADERS, ...bearer(secret) })).status).toBe(403);
    expect((await postRaw(new URL(`/mcp/${secret}`, running.url), whoami)).status).toBe(403);
    expect((await call('GET', '/api/mcp-secrets', carol)).status).toBe(403);
    expect((await call('GET', '/api/me/export', carol)).status).toBe(403);

    expect((await call('POST', `/admin/users/${carolId}/enable`, admin)).json.disabledAt).toBeNull();
    expect((await postRaw(running.url, whoami, { ...JSON_HEADERS, ...bearer(secret) })).status).toBe(200);
    expect((await call('GET', '/api/mcp-secrets', carol)).status).toBe(200);
  });

  it('refuses to let an admin disable their own account', async () => {
    const rootId = (await call('GET', '/admin/users?q=root', admin)).json.items[0].id;
    expect((await call('POST', `/admin/users/${rootId}/disable`, admin)).status).toBe(409);
  });

  it('records every admin action, newest first, with who, what, on whom and when', async () => {
    const dave = await token('dave');
    const daveId = await userIdOf(dave);
    await call('POST', `/admin/users/${daveId}/disable`, admin);
    await call('POST', `/admin/users/${daveId}/enable`, admin);
    await call('DELETE', `/admin/users/${daveId}`, admin);
    const trail = await call('GET', '/admin/audit?limit=3', admin);
    expect(trail.json.items.map((entry: { action: string }) => entry.action)).toEqual(['user.erase', 'user.enable', 'user.disable']);
    expect(trail.json.items[0]).toMatchObject({
      actorEmail: 'root@example.com',
      targetUserId: daveId,
      at: expect.any(String),
      detail: { email: 'dave@example.com' },
    });
    expect(trail.json.nextCursor).toEqual(expect.any(String));
    const older = await call('GET', `/admin/audit?limit=3&cursor=${trail.json.nextCursor}`, admin);
    expect(older.json.items.length).toBeGreaterThan(0);
  });

  it("puts the calls on a user's memories and files on the audit trail, and answers 404 for a user who does not exist", async () => {
    const erin = await token('erin');
    const erinId = await userIdOf(erin);
    const memory = (await call('POST', '/api/memories', erin, { text: 'Erin takes her coffee black' })).json.memory.id as string;
    const calls: [string, string, string, Record<string, unknown> | null][] = [
      ['GET', `/admin/users/${erinId}/memories`, 'memories.view', null],
      ['DELETE', `/admin/users/${erinId}/memories/${memory}`, 'memories.erase', { memoryId: memory }],
      ['DELETE', `/admin/users/${erinId}/memories`, 'memories.erase_all', null],
      ['GET', `/admin/users/${erinId}/files`, 'files.view', null],
      ['DELETE', `/admin/users/${erinId}/files/no-such-key`, 'files.delete', { fileKey: 'no-such-key' }],
      ['DELETE', `/admin/users/${erinId}/files`, 'files.erase_all', null],
    ];
    for (const [method, path, action, detail] of calls) {
      const answer = await call(method, path, admin);
      expect({ path, status: answer.status < 500 }).toEqual({ path, status: true });
      const [newest] = (await call('GET', '/admin/audit?limit=1', admin)).json.items;
      expect({ path, action: newest.action, target: newest.targetUserId, detail: newest.detail }).toEqual({ path, action, target: erinId, detail });
    }
    const nobody = '00000000-0000-0000-0000-000000000000';
    for (const [method, path] of calls.map(([method, path]) => [method, path.replace(erinId, nobody)])) {
      const answer = await call(method!, path!, admin);
      expect({ path, status: answer.status, message: answer.json?.message }).toEqual({ path, status: 404, message: 'No such user' });
    }
  });
});

describe("a user's own data", () => {
  it('exports everything of the caller as one JSON document: secrets as metadata only, and the access log', async () => {
    const erin = await token('erin');
    const erinId = await userIdOf(erin);
    const created = await call('POST', '/api/mcp-secrets', erin, { label: 'erin laptop', agent: 'cursor' });
    expect((await postRaw(running.url, whoami, { ...JSON_HEADERS, ...bearer(created.json.secret) })).status).toBe(200);
    await running.app.get(BackgroundWrites).flush();

    const exported = await call('GET', '/api/me/export', erin);
    expect(exported.status).toBe(200);
    expect(exported.json.userId).toBe(erinId);
    const account = exported.json.parts.account;
    expect(account.user).toMatchObject({ id: erinId, email: 'erin@example.com', subject: 'erin' });
    expect(account.mcpSecrets.map((secret: { label: string }) => secret.label)).toContain('erin laptop');
    expect(account.accessLog).toEqual([expect.objectContaining({ tool: 'whoami', success: true })]);
    const [{ secret_hash: hash }] = await running.app.get(DataSource).query('SELECT secret_hash FROM mcp_secrets WHERE id = $1', [created.json.id]);
    expect(exported.text).not.toContain(created.json.secret);
    expect(exported.text).not.toContain(hash);
    expect(exported.text).not.toMatch(/secretHash|secret_hash/);
    // Nobody else's rows.
    expect(exported.text).not.toContain(aliceId);
  });

  it('is not exported nor erased with an MCP secret (a leaked one must not take or destroy the account)', async () => {
    const secret = (await call('POST', '/api/mcp-secrets', bob, { label: 'bob' })).json.secret as string;
    expect((await call('GET', '/api/me/export', secret)).status).toBe(401);
    expect((await call('DELETE', '/api/me', secret)).status).toBe(401);
    expect((await call('GET', '/api/me/export')).status).toBe(401);
  });

  it('erases every row of the caller and no one else', async () => {
    const frank = await token('frank');
    const frankId = await userIdOf(frank);
    const secret = (await call('POST', '/api/mcp-secrets', frank, { label: 'frank' })).json.secret as string;
    await postRaw(running.url, whoami, { ...JSON_HEADERS, ...bearer(secret) });
    await running.app.get(BackgroundWrites).flush();
    const before = await call('GET', `/admin/users/${aliceId}`, admin);

    expect((await call('DELETE', '/api/me', frank)).status).toBe(204);
    const db = running.app.get(DataSource);
    for (const [table, column] of [
      ['users', 'id'],
      ['mcp_secrets', 'user_id'],
      ['mcp_tool_calls', 'user_id'],
    ]) {
      expect(await db.query(`SELECT count(*)::int AS n FROM ${table} WHERE ${column} = $1`, [frankId])).toEqual([{ n: 0 }]);
    }
    expect((await postRaw(running.url, whoami, { ...JSON_HEADERS, ...bearer(secret) })).status).toBe(401);
    expect((await call('GET', `/admin/users/${aliceId}`, admin)).json.counts).toEqual(before.json.counts);
    // A later token makes a new, empty user.
    const again = await userIdOf(frank);
    expect(again).not.toBe(frankId);
  });

  it("erases a user at an admin's request", async () => {
    const gina = await token('gina');
    const ginaId = await userIdOf(gina);
    expect((await call('DELETE', `/admin/users/${ginaId}`, admin)).status).toBe(204);
    expect(await running.app.get(DataSource).query('SELECT count(*)::int AS n FROM users WHERE id = $1', [ginaId])).toEqual([{ n: 0 }]);
    expect((await call('DELETE', `/admin/users/${ginaId}`, admin)).status).toBe(404);
  });
});
