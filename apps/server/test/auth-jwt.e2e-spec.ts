import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { request as httpRequest } from 'node:http';
import { DataSource } from 'typeorm';
import { AccessLogRetention } from '@app/auth';
import { BackgroundWrites } from '@app/common';
import { AdminProbeModule } from './support/admin-probe.module.js';
import { bearer, cliToken, signHs256, structured, TEST_JWT_SECRET, unsignedToken, withClient } from './support/auth.js';
import { ERAS, JSON_HEADERS, postRaw, startApp, type RunningApp } from './support/test-app.js';

const ISSUER = 'https://id.example.com';
const ENV = {
  JWT_SECRET: TEST_JWT_SECRET,
  JWT_ISSUER: ISSUER,
  JWT_AUDIENCE: 'mirobody',
  ADMIN_EMAILS: 'Boss@Example.com',
  PUBLIC_BASE_URL: 'https://mcp.example.com',
  MCP_ALLOWED_HOSTS: '127.0.0.1',
};
const call = (name: string, args: Record<string, unknown> = {}) =>
  JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } });
const now = () => Math.floor(Date.now() / 1000);

let running: RunningApp;
let adminUrl: URL;

beforeAll(async () => {
  running = await startApp(ENV, { imports: [AdminProbeModule] });
  adminUrl = new URL('/admin/ping', running.url);
});

afterAll(async () => {
  await running.close();
});

describe.each(ERAS)('a JWT from the CLI, revision %s', (era) => {
  it('authenticates whoami, which shows the session and no internal id', async () => {
    const token = await cliToken(running, ENV, '--sub', `alice-${era}`, '--email', 'alice@example.com');
    const result = await withClient(running.url, era, { ...bearer(token), 'x-session-id': 'client-session-1' }, (client) => structured(client, 'whoami'));
    expect(result.authenticated).toBe(true);
    expect(Object.keys(result).sort()).toEqual(['authenticated', 'session_id']);
    if (era === '2026-07-28') expect(result.session_id).toBe('client-session-1');
    else expect(result.session_id).toEqual(expect.any(String));
    const [{ id }] = await running.app.get(DataSource).query('SELECT id FROM users WHERE subject = $1', [`alice-${era}`]);
    expect(JSON.stringify(result)).not.toContain(id);
  });

  it('refuses a user_id or userId argument and keeps the caller', async () => {
    const token = await cliToken(running, ENV, '--sub', 'mallory', '--email', 'mallory@example.com');
    await withClient(running.url, era, bearer(token), async (client) => {
      for (const [tool, key] of [
        ['whoami', 'user_id'],
        ['my_email', 'userId'],
        ['my_email', 'user_id'],
      ]) {
        const result = await client.callTool({ name: tool!, arguments: { [key!]: 'someone-else' } });
        expect(result.isError).toBe(true);
        expect((result.content as { text: string }[])[0]!.text).toContain(`unknown argument "${key}"`);
      }
      expect(await structured(client, 'my_email')).toEqual({ email: 'mallory@example.com' });
    });
  });

  it("keeps two users' interleaved concurrent calls apart", async () => {
    const users = ['ann', 'bob'];
    const tokens = await Promise.all(users.map((user) => cliToken(running, ENV, '--sub', user, '--email', `${user}@example.com`)));
    await Promise.all(
      users.map((user, index) =>
        withClient(running.url, era, bearer(tokens[index]!), async (client) => {
          const emails = await Promise.all(Array.from({ length: 20 }, () => structured(client, 'my_email')));
          expect(emails).toEqual(Array.from({ length: 20 }, () => ({ email: `${user}@example.com` })));
        }),
      ),
    );
  });
});

describe('anonymous callers', () => {
  it('initialize, ping, tools/list and echo work without credentials', async () => {
    for (const era of ERAS) {
      await withClient(running.url, era, {}, async (client) => {
        // ping is a 2025 method; the 2026 revision has none.
        if (era === '2025-11-25') await client.ping();
        expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['echo', 'whoami']));
        expect(await structured(client, 'echo', { text: 'hi' })).toEqual({ echo: 'hi' });
      });
    }
  });

  it('whoami: 401 naming the protected-resource metadata', async () => {
    const response = await postRaw(running.url, call('whoami'));
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource"');
  });

  it('the metadata names the resource and the authorization server', async () => {
    for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']) {
      const response = await fetch(new URL(path, running.url));
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ resource: 'https://mcp.example.com/mcp', authorization_servers: [ISSUER] });
    }
  });
});

describe('tokens that are refused with 401 on any request', () => {
  const valid = { sub: 'carol', iss: ISSUER, aud: 'mirobody' };
  const cases: [string, () => Promise<string> | string][] = [
    ['expired beyond the clock skew', () => signHs256(TEST_JWT_SECRET, { ...valid, exp: now() - 61 })],
    ['not valid before a time beyond the skew', () => signHs256(TEST_JWT_SECRET, { ...valid, nbf: now() + 120 })],
    ['for another audience', () => signHs256(TEST_JWT_SECRET, { ...valid, aud: 'someone-else' })],
    ['from another issuer', () => signHs256(TEST_JWT_SECRET, { ...valid, iss: 'https://evil.example' })],
    ['signed with another secret', () => signHs256('another-secret-that-is-at-least-32-chars', valid)],
    ['unsigned (alg: none)', () => unsignedToken(valid)],
    ['without a subject', () => signHs256(TEST_JWT_SECRET, { iss: ISSUER, aud: 'mirobody' })],
    ['not a JWT at all', () => 'garbage'],
  ];

  it.each(cases)('%s', async (_name, make) => {
    const headers = { ...JSON_HEADERS, ...bearer(await make()) };
    for (const body of [call('echo', { text: 'x' }), JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' })]) {
      const response = await postRaw(running.url, body, headers);
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer resource_metadata=/);
    }
  });

  it('accepts a token expired within the 60 s clock skew', async () => {
    const token = await signHs256(TEST_JWT_SECRET, { ...valid, exp: now() - 30 });
    const response = await postRaw(running.url, call('whoami'), { ...JSON_HEADERS, ...bearer(token) });
    expect(response.status).toBe(200);
  });

  it('refuses another Authorization scheme rather than treating the caller as anonymous', async () => {
    const response = await postRaw(running.url, call('echo', { text: 'x' }), { ...JSON_HEADERS, authorization: 'Basic dXNlcjpwYXNz' });
    expect(response.status).toBe(401);
  });
});

describe('more than one Authorization header', () => {
  /** fetch() folds repeated headers into one; node:http sends each line as given (and, given a list, no Host of its own). */
  const statusWithAuthorizations = (url: URL, method: string, authorizations: string[], body?: string) =>
    new Promise<number>((resolve, reject) => {
      const outgoing = httpRequest(
        url,
        {
          method,
          headers: ['host', url.host, ...Object.entries(body ? JSON_HEADERS : {}).flat(), ...authorizations.flatMap((value) => ['authorization', value])],
        },
        (response) => {
          response.resume();
          resolve(response.statusCode!);
        },
      );
      outgoing.on('error', reject);
      outgoing.end(body);
    });

  it('is refused with 400 on /mcp and on REST routes, whichever comes first, rather than one picked', async () => {
    const [alice, bob] = await Promise.all([cliToken(running, ENV, '--sub', 'alice-twice'), cliToken(running, ENV, '--sub', 'bob-twice')]);
    const mcp = (authorizations: string[]) => statusWithAuthorizations(running.url, 'POST', authorizations, call('whoami'));
    const rest = (authorizations: string[]) => statusWithAuthorizations(new URL('/api/mcp-secrets', running.url), 'GET', authorizations);
    for (const send of [mcp, rest]) {
      expect(await send([`Bearer ${alice}`])).toBe(200);
      expect(await send([`Bearer ${alice}`, `Bearer ${bob}`])).toBe(400);
      expect(await send([`Bearer ${alice}`, `Bearer ${alice}`])).toBe(400);
      expect(await send(['Bearer garbage', `Bearer ${alice}`])).toBe(400);
    }
  });
});

describe('the access log', () => {
  it('records each tools/call by a known user with its outcome and duration', async () => {
    const token = await cliToken(running, ENV, '--sub', 'logged');
    await withClient(running.url, '2025-11-25', bearer(token), async (client) => {
      await structured(client, 'echo', { text: 'x' });
      await client.callTool({ name: 'add', arguments: { a: 'not a number' } });
    });
    await running.app.get(BackgroundWrites).flush();
    const rows = await running.app
      .get(DataSource)
      .query('SELECT c.tool, c.success, c.duration_ms FROM mcp_tool_calls c JOIN users u ON u.id = c.user_id WHERE u.subject = $1 ORDER BY c.id', ['logged']);
    expect(rows).toEqual([
      { tool: 'echo', success: true, duration_ms: expect.any(Number) },
      { tool: 'add', success: false, duration_ms: expect.any(Number) },
    ]);
  });

  it('records every call of a burst (written in batches), none lost or doubled', async () => {
    const headers = { ...JSON_HEADERS, ...bearer(await cliToken(running, ENV, '--sub', 'burst')) };
    const answers = await Promise.all(Array.from({ length: 30 }, () => postRaw(running.url, call('whoami'), headers)));
    expect(answers.every((answer) => answer.status === 200)).toBe(true);
    await running.app.get(BackgroundWrites).flush();
    const [{ count }] = await running.app
      .get(DataSource)
      .query('SELECT count(*)::int AS count FROM mcp_tool_calls c JOIN users u ON u.id = c.user_id WHERE u.subject = $1', ['burst']);
    expect(count).toBe(30);
  });

  it('still records the others of a batch when one caller is erased before it is written', async () => {
    const [kept, erased] = await Promise.all(
      ['kept', 'erased'].map(async (sub) => ({ ...JSON_HEADERS, ...bearer(await cliToken(running, ENV, '--sub', sub)) })),
    );
    const answers = await Promise.all([postRaw(running.url, call('whoami'), kept!), postRaw(running.url, call('whoami'), erased!)]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    const db = running.app.get(DataSource);
    // The batch is still open: the erased user's call cannot be written, the other one must be.
    await db.query('DELETE FROM users WHERE subject = $1', ['erased']);
    await running.app.get(BackgroundWrites).flush();
    const rows = await db.query('SELECT u.subject FROM mcp_tool_calls c JOIN users u ON u.id = c.user_id WHERE u.subject IN ($1, $2)', ['kept', 'erased']);
    expect(rows).toEqual([{ subject: 'kept' }]);
  });
});

describe('the access log retention (ACCESS_LOG_RETENTION)', () => {
  it('removes calls older than the retention, every user alike, and keeps the newer ones', async () => {
    const token = await cliToken(running, ENV, '--sub', 'retained');
    expect((await postRaw(running.url, call('whoami'), { ...JSON_HEADERS, ...bearer(token) })).status).toBe(200);
    await running.app.get(BackgroundWrites).flush();
    const db = running.app.get(DataSource);
    const [{ id: userId }] = await db.query('SELECT id FROM users WHERE subject = $1', ['retained']);
    // Calls of 91 and 89 days ago beside today's: the default retention is 90 days.
    await db.query(
      `INSERT INTO mcp_tool_calls (user_id, tool, success, duration_ms, called_at)
       VALUES ($1, 'old', true, 1, now() - interval '91 days'), ($1, 'older', true, 1, now() - interval '400 days'), ($1, 'recent', true, 1, now() - interval '89 days')`,
      [userId],
    );
    const removed = await running.app.get(AccessLogRetention).prune();
    expect(removed).toBeGreaterThanOrEqual(2);
    const tools = await db.query('SELECT tool FROM mcp_tool_calls WHERE user_id = $1 ORDER BY called_at', [userId]);
    expect(tools).toEqual([{ tool: 'recent' }, { tool: 'whoami' }]);
    expect(await db.query(`SELECT count(*)::int AS count FROM mcp_tool_calls WHERE called_at < now() - interval '90 days'`)).toEqual([{ count: 0 }]);
  });

  it('keeps every call with 0', async () => {
    const env = { ...ENV, ACCESS_LOG_RETENTION: '0' };
    const forever = await startApp(env);
    try {
      const db = forever.app.get(DataSource);
      const token = await cliToken(forever, env, '--sub', 'forever');
      expect((await postRaw(forever.url, call('whoami'), { ...JSON_HEADERS, ...bearer(token) })).status).toBe(200);
      await forever.app.get(BackgroundWrites).flush();
      await db.query(`UPDATE mcp_tool_calls SET called_at = now() - interval '1000 days'`);
      expect(await forever.app.get(AccessLogRetention).prune()).toBe(0);
      expect(await db.query('SELECT count(*)::int AS count FROM mcp_tool_calls')).toEqual([{ count: 1 }]);
    } finally {
      await forever.close();
    }
  });
});

describe('users', () => {
  it('are created on the first token, keyed by issuer and subject, with email and name kept current', async () => {
    const database = running.app.get(DataSource);
    const first = await cliToken(running, ENV, '--sub', 'dave', '--email', 'dave@old.example', '--name', 'Dave');
    const second = await cliToken(running, ENV, '--sub', 'dave', '--email', 'dave@new.example');
    for (const token of [first, second]) expect((await postRaw(running.url, call('whoami'), { ...JSON_HEADERS, ...bearer(token) })).status).toBe(200);
    expect(await database.query('SELECT issuer, email, name FROM users WHERE subject = $1', ['dave'])).toEqual([
      { issuer: ISSUER, email: 'dave@new.example', name: 'Dave' },
    ]);
  });
});

describe('the admin guard', () => {
  const get = async (token?: string) => fetch(adminUrl, { headers: token ? bearer(token) : {} });

  it('lets in the admin role claim and ADMIN_EMAILS, refuses others with 403 and no token with 401', async () => {
    expect((await get(await cliToken(running, ENV, '--sub', 'root', '--admin'))).status).toBe(200);
    const byEmail = await get(await cliToken(running, ENV, '--sub', 'boss', '--email', 'boss@example.com'));
    expect(await byEmail.json()).toEqual({ admin: true, email: 'boss@example.com' });
    expect((await get(await cliToken(running, ENV, '--sub', 'eve', '--email', 'eve@example.com'))).status).toBe(403);
    const unverified = await signHs256(TEST_JWT_SECRET, { sub: 'boss2', iss: ISSUER, aud: 'mirobody', email: 'boss@example.com', email_verified: false });
    expect((await get(unverified)).status).toBe(403);
    expect((await get()).status).toBe(401);
  });
});

describe("passport's AuthGuard() in an app's own controller", () => {
  it('takes a valid JWT, and refuses no token, a forged one and an MCP secret with 401', async () => {
    const url = new URL('/passport-probe', running.url);
    const get = (headers: Record<string, string> = {}) => fetch(url, { headers });
    const token = await cliToken(running, ENV, '--sub', 'passport-user', '--email', 'pat@example.com');
    const accepted = await get(bearer(token));
    expect(accepted.status).toBe(200);
    expect(await accepted.json()).toEqual({ email: 'pat@example.com' });
    expect((await get()).status).toBe(401);
    expect(
      (await get(bearer(await signHs256('another-secret-that-is-at-least-32-chars', { sub: 'x', iss: ISSUER, aud: 'mirobody', exp: now() + 60 })))).status,
    ).toBe(401);
    const created = await fetch(new URL('/api/mcp-secrets', running.url), {
      method: 'POST',
      headers: { ...bearer(token), 'content-type': 'application/json' },
      body: '{}',
    });
    const { secret } = (await created.json()) as { secret: string };
    expect((await get(bearer(secret))).status).toBe(401);
  });
});

describe('admin through ADMIN_EMAILS only for an address a token verified (finding 3)', () => {
  const boss = (sub: string, claims: Record<string, unknown>) =>
    signHs256(TEST_JWT_SECRET, { sub, iss: ISSUER, aud: 'mirobody', email: 'boss@example.com', ...claims });
  const rolesThroughSecret = async (jwt: string) => {
    const created = await fetch(new URL('/api/mcp-secrets', running.url), {
      method: 'POST',
      headers: { ...bearer(jwt), 'content-type': 'application/json' },
      body: JSON.stringify({ label: 'admin?' }),
    });
    const { secret } = (await created.json()) as { secret: string };
    const answer = await postRaw(running.url, call('my_roles'), { ...JSON_HEADERS, ...bearer(secret) });
    return answer.json().result.structuredContent.roles;
  };

  it('refuses /admin to a token whose email_verified is missing, false or the string "false"', async () => {
    for (const [sub, claims] of [
      ['boss-missing', {}],
      ['boss-string', { email_verified: 'false' }],
      ['boss-false', { email_verified: false }],
    ] as const) {
      expect((await fetch(adminUrl, { headers: bearer(await boss(sub, claims)) })).status).toBe(403);
    }
    expect((await fetch(adminUrl, { headers: bearer(await boss('boss-true', { email_verified: true })) })).status).toBe(200);
  });

  it('gives an MCP secret’s owner no admin role for an unverified stored address', async () => {
    expect(await rolesThroughSecret(await boss('secret-unverified', { email_verified: false }))).toEqual([]);
    expect(await rolesThroughSecret(await boss('secret-missing', {}))).toEqual([]);
    expect(await rolesThroughSecret(await boss('secret-verified', { email_verified: true }))).toEqual(['admin']);
  });
});

describe('token lifetime (finding 14)', () => {
  it('refuses, through HTTP, a token without iat, one older than JWT_MAX_AGE and one issued in the future', async () => {
    const status = async (claims: Record<string, unknown>) =>
      (
        await fetch(new URL('/api/mcp-secrets', running.url), {
          headers: bearer(await signHs256(TEST_JWT_SECRET, { sub: 'aged', iss: ISSUER, aud: 'mirobody', ...claims })),
        })
      ).status;
    expect(await status({ exp: now() + 100 * 365 * 86_400 })).toBe(200);
    expect(await status({ iat: undefined })).toBe(401);
    expect(await status({ iat: now() - 25 * 3600, exp: now() + 100 * 365 * 86_400 })).toBe(401);
    expect(await status({ iat: now() + 365 * 86_400 })).toBe(401);
  });
});
