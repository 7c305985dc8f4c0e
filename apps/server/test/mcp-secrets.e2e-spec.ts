import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { DataSource } from 'typeorm';
import { SECRET_PREFIX } from '@app/auth';
import { BackgroundWrites } from '@app/common';
import { bearer, cliToken, structured, TEST_JWT_SECRET, withClient } from './support/auth.js';
import { ERAS, JSON_HEADERS, postRaw, startApp, type RunningApp } from './support/test-app.js';

const ENV = { JWT_SECRET: TEST_JWT_SECRET, PUBLIC_BASE_URL: 'https://mcp.example.com' };
const whoami = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } });

let running: RunningApp;
let aliceJwt: string;
let bobJwt: string;
let api: URL;

/** A JSON request to `/api/mcp-secrets[/id]` with a bearer token. */
async function request(method: string, token: string, body?: unknown, id = '') {
  const response = await fetch(new URL(id ? `${api.pathname}/${id}` : api.pathname, api), {
    method,
    headers: { ...bearer(token), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

const createSecret = async (token: string, body: unknown) => {
  const created = await request('POST', token, body);
  expect(created.status).toBe(201);
  return created.body as { id: string; secret: string; url: string };
};

beforeAll(async () => {
  running = await startApp(ENV);
  api = new URL('/api/mcp-secrets', running.url);
  aliceJwt = await cliToken(running, ENV, '--sub', 'alice', '--email', 'alice@example.com');
  bobJwt = await cliToken(running, ENV, '--sub', 'bob', '--email', 'bob@example.com');
});

afterAll(async () => {
  await running.close();
});

describe('personal MCP secrets', () => {
  it('are issued once with their URL, stored only as a hash, and listed without the secret', async () => {
    const { id, secret, url } = await createSecret(aliceJwt, { label: 'laptop', agent: 'cursor' });
    expect(secret.startsWith(SECRET_PREFIX)).toBe(true);
    expect(secret.length).toBeGreaterThanOrEqual(SECRET_PREFIX.length + 43);
    expect(url).toBe(`https://mcp.example.com/mcp/${secret}`);
    const [row] = await running.app.get(DataSource).query('SELECT * FROM mcp_secrets WHERE id = $1', [id]);
    expect(JSON.stringify(row)).not.toContain(secret);
    expect(row.secret_hash).toBe(createHash('sha256').update(secret).digest('hex'));
    const listed = await request('GET', aliceJwt);
    expect(listed.body.items).toEqual([{ id, label: 'laptop', agent: 'cursor', createdAt: expect.any(String), expiresAt: null, lastUsedAt: null }]);
    expect(JSON.stringify(listed.body)).not.toContain(secret);
  });

  it.each(ERAS)('authenticate whoami as a header and in the path, revision %s', async (era) => {
    const { secret } = await createSecret(aliceJwt, { label: `both ways ${era}` });
    for (const [url, headers] of [
      [running.url, bearer(secret)],
      [new URL(`${running.url.pathname}/${secret}`, running.url), {}],
    ] as const) {
      const result = await withClient(url, era, { ...headers, 'x-session-id': 'sess-42' }, async (client) => {
        expect(await structured(client, 'my_email')).toEqual({ email: 'alice@example.com' });
        return structured(client, 'whoami');
      });
      expect(result.authenticated).toBe(true);
    }
  });

  it('record their last use', async () => {
    const { id, secret } = await createSecret(aliceJwt, { label: 'used' });
    expect((await postRaw(running.url, whoami, { ...JSON_HEADERS, ...bearer(secret) })).status).toBe(200);
    await running.app.get(BackgroundWrites).flush();
    const listed = await request('GET', aliceJwt);
    const entry = listed.body.items.find((secretEntry: { id: string }) => secretEntry.id === id);
    expect(Date.parse(entry.lastUsedAt)).toBeGreaterThan(Date.now() - 60_000);
  });

  it('are refused at once after revocation, in both forms, and vanish from the list', async () => {
    const { id, secret } = await createSecret(aliceJwt, { label: 'to revoke' });
    expect((await postRaw(running.url, whoami, { ...JSON_HEADERS, ...bearer(secret) })).status).toBe(200);
    expect((await request('DELETE', bobJwt, undefined, id)).status).toBe(404);
    expect((await request('DELETE', aliceJwt, undefined, id)).status).toBe(204);
    expect((await postRaw(running.url, whoami, { ...JSON_HEADERS, ...bearer(secret) })).status).toBe(401);
    const inPath = await postRaw(new URL(`${running.url.pathname}/${secret}`, running.url), whoami);
    expect(inPath.status).toBe(401);
    expect(inPath.headers.get('www-authenticate')).toMatch(/^Bearer resource_metadata=/);
    expect((await request('GET', aliceJwt)).body.items.map((entry: { id: string }) => entry.id)).not.toContain(id);
    expect((await request('DELETE', aliceJwt, undefined, id)).status).toBe(404);
  });

  it('are refused once expired, and an unknown one is refused too', async () => {
    const { id, secret } = await createSecret(aliceJwt, { label: 'short-lived', expiresAt: new Date(Date.now() + 3_600_000).toISOString() });
    expect((await postRaw(running.url, whoami, { ...JSON_HEADERS, ...bearer(secret) })).status).toBe(200);
    await running.app.get(DataSource).query(`UPDATE mcp_secrets SET expires_at = now() - interval '1 second' WHERE id = $1`, [id]);
    expect((await postRaw(running.url, whoami, { ...JSON_HEADERS, ...bearer(secret) })).status).toBe(401);
    expect((await postRaw(running.url, whoami, { ...JSON_HEADERS, ...bearer(`${SECRET_PREFIX}unknown`) })).status).toBe(401);
  });

  it('are listed a page at a time, newest first', async () => {
    const carolJwt = await cliToken(running, ENV, '--sub', 'carol');
    for (const label of ['one', 'two', 'three']) {
      await createSecret(carolJwt, { label });
      // Creation times a few milliseconds apart, so "newest first" has one answer.
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const page = async (query: string) => {
      const response = await fetch(new URL(`${api.pathname}?${query}`, api), { headers: bearer(carolJwt) });
      return { status: response.status, body: (await response.json()) as { items: { label: string }[]; nextCursor: string | null; fields?: object } };
    };
    const first = await page('limit=2');
    expect(first.body.items.map((entry) => entry.label)).toEqual(['three', 'two']);
    const second = await page(`limit=2&cursor=${first.body.nextCursor}`);
    expect(second.body).toEqual({ items: [expect.objectContaining({ label: 'one' })], nextCursor: null });
    expect((await page('limit=500')).status).toBe(400);
    expect((await page('cursor=abc')).body.fields).toEqual({ cursor: expect.any(String) });
  });

  it("are each user's own", async () => {
    await createSecret(bobJwt, { label: 'bob only' });
    const labels = (await request('GET', aliceJwt)).body.items.map((entry: { label: string }) => entry.label);
    expect(labels).not.toContain('bob only');
  });
});

describe('the /api/mcp-secrets endpoint', () => {
  it('takes only a JWT', async () => {
    const { secret } = await createSecret(aliceJwt, { label: 'not for the api' });
    expect((await request('GET', secret)).status).toBe(401);
    const anonymous = await fetch(api);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource"');
  });

  it.each([
    ['no label', {}],
    ['an empty label', { label: ' ' }],
    ['an unknown field', { label: 'x', user_id: 'someone' }],
    ['an expiry in the past', { label: 'x', expiresAt: '2001-01-01T00:00:00Z' }],
    ['an expiry without offset', { label: 'x', expiresAt: '2099-01-01' }],
    ['a non-string agent', { label: 'x', agent: 7 }],
  ])('refuses %s with 400', async (_name, body) => {
    expect((await request('POST', aliceJwt, body)).status).toBe(400);
  });

  it.each([
    // `new Date()` reads the first as 2 March and the second as the server's local time.
    ['2099-02-30T00:00:00Z', 'expiresAt has no day 30 in 2099-02'],
    ['2099-01-01T00:00:00', 'expiresAt needs a time zone after the time of day: Z or an offset such as +01:00'],
    ['tomorrow', 'expiresAt must be an ISO 8601 date-time with a time zone such as 2026-01-05T10:00:00Z'],
  ])('refuses the expiry %s naming its problem', async (expiresAt, problem) => {
    expect(await request('POST', aliceJwt, { label: 'x', expiresAt })).toMatchObject({ status: 400, body: { fields: { expiresAt: problem } } });
  });
});

describe('a deleted user (finding 15)', () => {
  it('is never trusted from the cache: 401 instead of 500, then re-created under a new id', async () => {
    const jwt = await cliToken(running, ENV, '--sub', 'deleted-later');
    expect((await request('POST', jwt, { label: 'before' })).status).toBe(201);
    const database = running.app.get(DataSource);
    const [{ id: oldId }] = await database.query(`SELECT id FROM users WHERE subject = 'deleted-later'`);
    await database.query('DELETE FROM users WHERE id = $1', [oldId]);
    const refused = await request('POST', jwt, { label: 'after' });
    expect(refused.status).toBe(401);
    expect((await request('POST', jwt, { label: 'again' })).status).toBe(201);
    const [{ id: newId }] = await database.query(`SELECT id FROM users WHERE subject = 'deleted-later'`);
    expect(newId).not.toBe(oldId);
  });
});
