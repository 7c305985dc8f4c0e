import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { consoleLinkSigner } from '../../../libs/auth/src/identity/console-sessions/console-link.js';
import { bearer, cliToken, TEST_JWT_SECRET } from './support/auth.js';
import { appOrigin, linkToken, redeemLink, signInByLink, type ConsoleSignIn } from './support/console.js';
import { describeNeeding } from './support/services.js';
import { JSON_HEADERS, startApp, type RunningApp } from './support/test-app.js';
import { createTestDatabase, postgresService, SHARED_DATABASE_SERVER_URL, type TestDatabase } from './support/test-database.js';

/**
 * The web console's sign-in and the session behind its cookie, over HTTP as a browser would send
 * it: one-time links from the operators' CLI, the cookie as a credential of /api and /admin only,
 * the CSRF proof of every request that may change something, and the ways a session ends.
 */
const ENV = { JWT_SECRET: TEST_JWT_SECRET, ADMIN_EMAILS: 'boss@example.com' };

const at = (app: RunningApp, path: string, init: RequestInit = {}) => fetch(new URL(path, app.url), init);

describe('the console sign-in', () => {
  let app: RunningApp;

  beforeAll(async () => {
    app = await startApp(ENV);
  });
  afterAll(async () => {
    await app?.close();
  });

  it('trades a one-time link for an HttpOnly, SameSite=Lax session cookie, once', async () => {
    const token = await linkToken(app, ENV, '--email', 'ada@example.com', '--name', 'Ada');
    const first = await redeemLink(app, token);
    expect(first.status).toBe(204);
    const cookie = first.headers.get('set-cookie')!;
    // A loopback http address: the cookie cannot be Secure there, so it goes without the __Host- prefix.
    expect(cookie).toMatch(/^mirobody-console=[\w-]{43}; Path=\/; Max-Age=43200; HttpOnly; SameSite=Lax$/);
    const session = await at(app, '/api/console/session', { headers: { cookie: cookie.split(';')[0]! } });
    expect(session.status).toBe(200);
    expect(session.headers.get('cache-control')).toBe('no-store');
    expect(await session.json()).toEqual({
      user: { id: expect.any(String), email: 'ada@example.com', name: 'Ada', roles: [], admin: false },
      csrfToken: expect.stringMatching(/^[\w-]{43}$/),
      signIn: 'link',
      expiresAt: expect.any(String),
    });

    const again = await redeemLink(app, token);
    expect(again.status).toBe(401);
    expect((await again.json()).message).toMatch(/used already/);
    expect(again.headers.get('set-cookie')).toBeNull();
  });

  it('refuses an expired, forged or malformed link, naming the problem', async () => {
    const signer = consoleLinkSigner({ dataDir: app.dataDir });
    const claims = JSON.stringify({ id: 'expired-link', sub: 'ada@example.com', email: 'ada@example.com' });
    const expired = await redeemLink(app, signer.sign(claims, new Date(Date.now() - 1000)));
    expect(expired.status).toBe(401);
    expect((await expired.json()).message).toMatch(/not valid or has expired/);

    const token = await linkToken(app, ENV, '--email', 'eve@example.com');
    const [payload, expiry, mac] = token.split('.');
    const promoted = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), admin: true })).toString('base64url');
    expect((await redeemLink(app, `${promoted}.${expiry}.${mac}`)).status).toBe(401);
    // Signed by another server's key: a link works where it was made only.
    const elsewhere = consoleLinkSigner({ signingSecret: 'another-server-signing-secret-of-32-chars', dataDir: app.dataDir });
    expect((await redeemLink(app, elsewhere.sign(claims, new Date(Date.now() + 60_000)))).status).toBe(401);

    for (const body of ['{}', '{"token":42}', '{"token":""}', `{"token":"${token}","admin":true}`, 'not json']) {
      const response = await at(app, '/console/sign-in/link', {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: appOrigin(app) },
        body,
      });
      expect([body, response.status]).toEqual([body, 400]);
    }
    // None of those spent the link.
    expect((await redeemLink(app, token)).status).toBe(204);
  });

  it('signs in only from its own origin: a sign-in form on another site would log the browser in as someone else', async () => {
    const token = await linkToken(app, ENV, '--email', 'mallory@example.com');
    const refused: Record<string, string>[] = [{ origin: 'https://evil.example' }, {}, { 'sec-fetch-site': 'cross-site' }, { origin: 'null' }];
    for (const headers of refused) {
      const response = await redeemLink(app, token, headers);
      expect([headers, response.status]).toEqual([headers, 403]);
    }
    // A browser's fetch without an Origin header still says where it comes from.
    expect((await redeemLink(app, token, { 'sec-fetch-site': 'same-origin' })).status).toBe(204);
  });

  it('gives admins the admin area, through --admin or ADMIN_EMAILS; others get 403 there', async () => {
    const admin = await signInByLink(app, ENV, '--email', 'ops@example.com', '--admin');
    const boss = await signInByLink(app, ENV, '--email', 'boss@example.com');
    const user = await signInByLink(app, ENV, '--email', 'someone@example.com');
    for (const session of [admin, boss]) expect((await at(app, '/admin/users', { headers: { cookie: session.cookie } })).status).toBe(200);
    expect((await at(app, '/admin/users', { headers: { cookie: user.cookie } })).status).toBe(403);
    expect((await at(app, '/admin/users')).status).toBe(401);
  });

  it('is one user with the CLI token of the same subject', async () => {
    const session = await signInByLink(app, ENV, '--email', 'same@example.com', '--sub', 'same-person');
    const token = await cliToken(app, ENV, '--sub', 'same-person', '--email', 'same@example.com');
    const byCookie = await (await at(app, '/api/console/session', { headers: { cookie: session.cookie } })).json();
    const byToken = await (await at(app, '/api/console/session', { headers: bearer(token) })).json();
    expect(byToken).toEqual({ user: byCookie.user, csrfToken: null, signIn: null, expiresAt: null });
  });
});

describe('the console session cookie as a credential', () => {
  let app: RunningApp;
  let ada: ConsoleSignIn;

  beforeAll(async () => {
    app = await startApp(ENV);
    ada = await signInByLink(app, ENV, '--email', 'ada@example.com');
  });
  afterAll(async () => {
    await app?.close();
  });

  it('opens /api and /admin, never /mcp', async () => {
    const whoami = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } });
    const mcp = await at(app, '/mcp', { method: 'POST', headers: { ...JSON_HEADERS, ...ada.headers }, body: whoami });
    expect(mcp.status).toBe(401);
    expect((await at(app, '/api/memories', { headers: { cookie: ada.cookie } })).status).toBe(200);
  });

  it('gives way to a bearer credential sent along', async () => {
    const bob = await cliToken(app, ENV, '--sub', 'bob', '--email', 'bob@example.com');
    const answer = await (await at(app, '/api/console/session', { headers: { cookie: ada.cookie, ...bearer(bob) } })).json();
    expect(answer.user.email).toBe('bob@example.com');
    expect(answer.csrfToken).toBeNull();
  });

  it('needs its origin and CSRF token for any request that may change something', async () => {
    const create = (headers: Record<string, string>, label: string) =>
      at(app, '/api/mcp-secrets', { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ label }) });
    const refusals: [string, Record<string, string>][] = [
      ['no CSRF token', { cookie: ada.cookie, origin: appOrigin(app) }],
      ['a wrong CSRF token', { ...ada.headers, 'x-csrf-token': 'A'.repeat(43) }],
      ["another session's token", { ...ada.headers, 'x-csrf-token': (await signInByLink(app, ENV, '--email', 'other@example.com')).csrfToken }],
      ['another origin', { ...ada.headers, origin: 'https://evil.example' }],
      ['no origin, cross-site', { cookie: ada.cookie, 'x-csrf-token': ada.csrfToken, 'sec-fetch-site': 'cross-site' }],
      ['no origin at all', { cookie: ada.cookie, 'x-csrf-token': ada.csrfToken }],
    ];
    for (const [why, headers] of refusals) {
      const response = await create(headers, why);
      expect([why, response.status]).toEqual([why, 403]);
    }
    // A cross-site HTML form can send neither the token nor JSON.
    const form = await at(app, '/api/mcp-secrets', {
      method: 'POST',
      headers: { cookie: ada.cookie, origin: 'https://evil.example', 'content-type': 'application/x-www-form-urlencoded' },
      body: 'label=forged',
    });
    expect([403, 415]).toContain(form.status);
    const list = await (await at(app, '/api/mcp-secrets', { headers: { cookie: ada.cookie } })).json();
    expect(list.items).toEqual([]);

    expect((await create(ada.headers, 'laptop')).status).toBe(201);
    expect((await create({ cookie: ada.cookie, 'x-csrf-token': ada.csrfToken, 'sec-fetch-site': 'same-origin' }, 'phone')).status).toBe(201);
  });

  it('ends at sign-out, and a bearer request has no session to end', async () => {
    const session = await signInByLink(app, ENV, '--email', 'leaving@example.com');
    expect((await at(app, '/api/console/session', { method: 'DELETE', headers: { cookie: session.cookie, origin: appOrigin(app) } })).status).toBe(403);
    const signOut = await at(app, '/api/console/session', { method: 'DELETE', headers: session.headers });
    expect(signOut.status).toBe(204);
    expect(signOut.headers.get('set-cookie')).toMatch(/^mirobody-console=; Path=\/; Max-Age=0; HttpOnly; SameSite=Lax$/);
    const after = await at(app, '/api/console/session', { headers: { cookie: session.cookie } });
    expect(after.status).toBe(401);
    expect((await after.json()).message).toMatch(/session has ended/);

    const token = await cliToken(app, ENV, '--sub', 'carol');
    expect((await at(app, '/api/console/session', { method: 'DELETE', headers: bearer(token) })).status).toBe(400);
  });

  it('ends when an admin disables the account, and stays ended when it is enabled again', async () => {
    const admin = await signInByLink(app, ENV, '--email', 'ops@example.com', '--admin');
    const victim = await signInByLink(app, ENV, '--email', 'disabled@example.com');
    const me = await (await at(app, '/api/console/session', { headers: { cookie: victim.cookie } })).json();
    expect((await at(app, `/admin/users/${me.user.id}/disable`, { method: 'POST', headers: admin.headers })).status).toBe(200);
    expect((await at(app, '/api/memories', { headers: { cookie: victim.cookie } })).status).toBe(401);
    expect((await at(app, `/admin/users/${me.user.id}/enable`, { method: 'POST', headers: admin.headers })).status).toBe(200);
    expect((await at(app, '/api/memories', { headers: { cookie: victim.cookie } })).status).toBe(401);
    // A disabled user cannot sign in again either.
    expect((await at(app, `/admin/users/${me.user.id}/disable`, { method: 'POST', headers: admin.headers })).status).toBe(200);
    expect((await redeemLink(app, await linkToken(app, ENV, '--email', 'disabled@example.com'))).status).toBe(403);
  });

  it('ends when the user erases their account', async () => {
    const session = await signInByLink(app, ENV, '--email', 'erased@example.com');
    expect((await at(app, '/api/me', { method: 'DELETE', headers: session.headers })).status).toBe(204);
    expect((await at(app, '/api/memories', { headers: { cookie: session.cookie } })).status).toBe(401);
  });

  it('counts against a budget of its own, not the address’s', async () => {
    const limited = await startApp({ ...ENV, RATE_LIMIT_ANONYMOUS_REQUESTS: '4', RATE_LIMIT_REQUESTS: '100' });
    try {
      const session = await signInByLink(limited, ENV, '--email', 'busy@example.com');
      for (let request = 0; request < 10; request++) expect((await at(limited, '/api/memories', { headers: { cookie: session.cookie } })).status).toBe(200);
      // A made-up cookie buys nothing: it counts against the address, as an unverified credential.
      const statuses = [];
      for (let request = 0; request < 6; request++)
        statuses.push((await at(limited, '/api/memories', { headers: { cookie: `mirobody-console=${'x'.repeat(43)}` } })).status);
      expect(statuses).toContain(429);
    } finally {
      await limited.close();
    }
  });
});

describe('console session lifetimes', () => {
  it('end after the idle timeout, and after the absolute lifetime however busy', async () => {
    const idle = await startApp(ENV, {}, (config) => ({ ...config, auth: { ...config.auth, consoleSessions: { idleSeconds: 1, lifetimeSeconds: 3600 } } }));
    const short = await startApp(ENV, {}, (config) => ({ ...config, auth: { ...config.auth, consoleSessions: { idleSeconds: 3600, lifetimeSeconds: 2 } } }));
    try {
      const quiet = await signInByLink(idle, ENV, '--email', 'quiet@example.com');
      const busy = await signInByLink(short, ENV, '--email', 'busy@example.com');
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect((await at(idle, '/api/memories', { headers: { cookie: quiet.cookie } })).status).toBe(401);
      expect((await at(short, '/api/memories', { headers: { cookie: busy.cookie } })).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect((await at(short, '/api/memories', { headers: { cookie: busy.cookie } })).status).toBe(401);
    } finally {
      await idle.close();
      await short.close();
    }
  });

  it('use a __Host- Secure cookie behind https, and refuse to sign in over plain http to another host', async () => {
    const https = await startApp({ ...ENV, PUBLIC_BASE_URL: 'https://console.example.com' });
    const plain = await startApp({ ...ENV, PUBLIC_BASE_URL: 'http://mcp.example.com' });
    try {
      const secure = await redeemLink(https, await linkToken(https, { ...ENV, PUBLIC_BASE_URL: 'https://console.example.com' }, '--email', 'a@example.com'), {
        origin: 'https://console.example.com',
      });
      expect(secure.status).toBe(204);
      expect(secure.headers.get('set-cookie')).toMatch(/^__Host-mirobody-console=[\w-]{43}; Path=\/; Max-Age=43200; HttpOnly; SameSite=Lax; Secure$/);
      const refused = await redeemLink(plain, await linkToken(plain, ENV, '--email', 'a@example.com'), { origin: 'http://mcp.example.com' });
      expect(refused.status).toBe(400);
      expect((await refused.json()).message).toMatch(/https only/);
    } finally {
      await https.close();
      await plain.close();
    }
  });
});

const describeWithPostgres = await describeNeeding(postgresService(SHARED_DATABASE_SERVER_URL));

describeWithPostgres('console sessions across instances (one PostgreSQL database)', () => {
  let database: TestDatabase;
  let first: RunningApp;
  let second: RunningApp;
  const SHARED = { ...ENV, SIGNING_SECRET: 'a-signing-secret-both-instances-share-32' };

  beforeAll(async () => {
    database = await createTestDatabase(SHARED_DATABASE_SERVER_URL);
    // One after the other: the first applies the migrations.
    first = await startApp({ ...SHARED, DATABASE_URL: database.url });
    second = await startApp({ ...SHARED, DATABASE_URL: database.url });
  });
  afterAll(async () => {
    await Promise.all([first?.close(), second?.close()]);
    await database?.drop();
  });

  it('serves a session on every instance, and ends it on every instance at sign-out, disable and erasure', async () => {
    const onSecond = (session: ConsoleSignIn) => at(second, '/api/memories', { headers: { cookie: session.cookie } });
    const admin = await signInByLink(first, SHARED, '--email', 'ops@example.com', '--admin');

    const leaving = await signInByLink(first, SHARED, '--email', 'leaving@example.com');
    expect((await onSecond(leaving)).status).toBe(200);
    expect((await at(first, '/api/console/session', { method: 'DELETE', headers: leaving.headers })).status).toBe(204);
    expect((await onSecond(leaving)).status).toBe(401);

    const disabled = await signInByLink(first, SHARED, '--email', 'disabled@example.com');
    const { user } = await (await at(first, '/api/console/session', { headers: { cookie: disabled.cookie } })).json();
    expect((await onSecond(disabled)).status).toBe(200);
    expect((await at(first, `/admin/users/${user.id}/disable`, { method: 'POST', headers: admin.headers })).status).toBe(200);
    expect((await onSecond(disabled)).status).toBe(401);

    const erased = await signInByLink(first, SHARED, '--email', 'erased@example.com');
    expect((await onSecond(erased)).status).toBe(200);
    expect((await at(first, '/api/me', { method: 'DELETE', headers: erased.headers })).status).toBe(204);
    expect((await onSecond(erased)).status).toBe(401);
    // A link redeemed on one instance is spent on the other too.
    const token = await linkToken(first, SHARED, '--email', 'once@example.com');
    expect((await redeemLink(second, token, { origin: appOrigin(second) })).status).toBe(204);
    expect((await redeemLink(first, token)).status).toBe(401);
  });
});
