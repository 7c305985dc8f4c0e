import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { signHs256, TEST_JWT_SECRET } from './support/auth.js';
import { signInHeadless } from './support/headless-browser.js';
import { startIdentityProvider, type TestIdentityProvider } from './support/identity-provider.js';
import {
  authorizeUrl,
  basic,
  callTool,
  connectedTokens,
  form,
  freshCode,
  pkce,
  REDIRECT,
  redeem,
  refresh,
  register,
  send,
  startBuiltinApp,
  userIdOf,
} from './support/oauth-client.js';
import type { RunningApp } from './support/test-app.js';

/**
 * What the outside red team (56 attacks, both databases) and the code review found in the built-in
 * authorization server, each as the attack it was: a browser that cannot finish a sign-in, a 500
 * for hostile input, a disabled user who still gets tokens, a redirect URI without a bound, a
 * client name that reads as another.
 */
let idp: TestIdentityProvider;
let running: RunningApp;
let clientId: string;
const adminJwt = () => signHs256(TEST_JWT_SECRET, { sub: 'root', email: 'root@example.com', email_verified: true });

beforeAll(async () => {
  idp = await startIdentityProvider({ profile: 'okta' });
  running = await startBuiltinApp(idp, { JWT_SECRET: TEST_JWT_SECRET, ADMIN_EMAILS: 'root@example.com' });
  clientId = (await register(running)).client_id;
});

afterAll(async () => {
  await running?.close();
  await idp?.close();
});

async function setDisabled(userId: string, disabled: boolean): Promise<void> {
  const answer = await send(running, `/admin/users/${userId}/${disabled ? 'disable' : 'enable'}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${await adminJwt()}` },
  });
  expect(answer.status).toBeLessThan(300);
}

describe('a malformed cookie of another name for this host', () => {
  it.each([
    ['theme', '100%'],
    ['x', '%E0%A4%A'],
    ['y', '%zz%'],
  ])('%s=%s: the browser still finishes its sign-in', async (name, value) => {
    const callback = await signInHeadless(idp, authorizeUrl(running, clientId, pkce().challenge), REDIRECT, {
      login: 'cookie-user',
      cookies: { [name]: value },
    });
    expect(callback.searchParams.get('code')).toMatch(/^mrb_ac_/);
  });

  it('is a 4xx page at /oauth/callback and /oauth/consent, never a 500', async () => {
    const cookie = { cookie: 'theme=100%; mirobody_oauth_x=%E0%A4%A' };
    const callback = await send(running, '/oauth/callback?state=unknown&code=x', { headers: cookie });
    expect(callback.status).toBe(400);
    const consent = await send(
      running,
      '/oauth/consent',
      form({ request: '0f8fad5b-d9cb-469f-a165-70867728950e', consent_token: 'x', decision: 'allow' }, cookie),
    );
    expect(consent.status).toBe(400);
  });
});

describe('HTTP Basic client credentials with a bad percent-escape', () => {
  it.each([
    ['/token', (id: string) => basic(`${id}%`, 'x')],
    ['/token', (id: string) => basic(id, '%zz')],
    ['/revoke', (id: string) => basic(`${id}%`, 'x')],
    ['/revoke', (id: string) => basic(id, '%zz')],
  ])('at %s are invalid_client (401), not a 500', async (path, credentials) => {
    const confidential = await register(running, { token_endpoint_auth_method: 'client_secret_basic' });
    const answer = await send(running, path, form({ grant_type: 'refresh_token', refresh_token: 'mrb_rt_x', token: 'x' }, credentials(confidential.client_id)));
    expect([answer.status, answer.json().error]).toEqual([401, 'invalid_client']);
    expect(answer.json().error_description).toMatch(/not form-encoded/);
  });

  it('still takes form-encoded credentials (RFC 6749 §2.3.1)', async () => {
    const confidential = await register(running, { token_endpoint_auth_method: 'client_secret_basic' });
    const answer = await send(
      running,
      '/revoke',
      form({ token: 'nothing-to-revoke' }, basic(encodeURIComponent(confidential.client_id), encodeURIComponent(confidential.client_secret!))),
    );
    expect(answer.status).toBe(200);
  });
});

describe('a disabled user gets no new token by any grant', () => {
  it('a refresh after the disable is refused, and works again, with the same token, once enabled', async () => {
    const tokens = await connectedTokens(running, idp, clientId, 'dora');
    const userId = userIdOf(tokens.access_token);
    await setDisabled(userId, true);
    const refused = await refresh(running, clientId, tokens.refresh_token);
    expect([refused.status, refused.json()]).toEqual([400, { error: 'invalid_grant', error_description: 'The account is disabled: ask an administrator' }]);
    expect((await callTool(running, tokens.access_token, 'whoami')).status).toBe(403);
    await setDisabled(userId, false);
    const again = await refresh(running, clientId, tokens.refresh_token);
    expect(again.status).toBe(200);
  });

  it('a code approved before the disable and redeemed after opens no connection', async () => {
    const warmUp = await connectedTokens(running, idp, clientId, 'dirk');
    const userId = userIdOf(warmUp.access_token);
    const { code, verifier } = await freshCode(running, idp, clientId, { login: 'dirk' });
    await setDisabled(userId, true);
    const refused = await redeem(running, clientId, code, verifier);
    expect([refused.status, refused.json().error, refused.json().error_description]).toEqual([
      400,
      'invalid_grant',
      'The account is disabled: ask an administrator',
    ]);
    const [{ count }] = await running.app.get(DataSource).query('SELECT count(*)::int AS count FROM oauth_connections WHERE user_id = $1', [userId]);
    expect(count).toBe(1);
  });
});

describe('registration bounds', () => {
  const registration = (metadata: Record<string, unknown>) =>
    send(running, '/register', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', ...metadata }),
    });

  it('refuses a redirect URI of 100,000 characters, naming the bound', async () => {
    const answer = await registration({ redirect_uris: [`https://app.example.com/cb?pad=${'x'.repeat(100_000)}`] });
    expect([answer.status, answer.json().error]).toEqual([400, 'invalid_redirect_uri']);
    expect(answer.json().error_description).toMatch(/at most 2048 characters, this one has 100031/);
  });

  it.each([
    ['\u202Eedualc', 'U+202E'],
    ['Claude\u2066 (verified)\u2069', 'U+2066'],
    ['Cla\u200Bude', 'U+200B'],
  ])('refuses the client name %j, which would show as another, naming %s', async (name, codePoint) => {
    const answer = await registration({ client_name: name });
    expect([answer.status, answer.json().error]).toEqual([400, 'invalid_client_metadata']);
    expect(answer.json().error_description).toContain(`client_name holds ${codePoint}`);
  });

  it('a name stored before the refusal is shown on the consent page with the character written out', async () => {
    const registered = await register(running, { client_name: 'Placeholder' });
    await running.app.get(DataSource).query('UPDATE oauth_clients SET client_name = $1 WHERE id = $2', ['\u202Eedualc', registered.client_id]);
    let consentPage = '';
    await signInHeadless(idp, authorizeUrl(running, registered.client_id, pkce().challenge), REDIRECT, {
      login: 'careful',
      consent: 'deny',
      onConsentPage: (html) => (consentPage = html),
    });
    expect(consentPage).toContain('Allow <strong>[U+202E]edualc</strong>');
    expect(consentPage).not.toContain('\u202E');
  });
});

describe('hostile input on every OAuth route is a 4xx, never a 500', () => {
  const bad = ['%', '%zz', '%00', '%ED%A0%80', 'a%00b', '%E2%80%AE'];

  it('in the query of /authorize and /oauth/callback', async () => {
    const statuses: Record<string, number> = {};
    for (const value of bad) {
      for (const parameter of ['client_id', 'redirect_uri', 'state', 'code_challenge', 'scope', 'resource']) {
        const url = `${authorizeUrl(running, clientId, pkce().challenge).href.replace(/&state=[^&]*/, '')}&${parameter === 'state' ? '' : 'state=s&'}${parameter}=${value}`;
        statuses[`authorize ${parameter}=${value}`] = (await send(running, url)).status;
      }
      statuses[`callback state=${value}`] = (await send(running, `/oauth/callback?state=${value}&code=${value}`)).status;
      statuses[`callback error=${value}`] = (await send(running, `/oauth/callback?state=s&error=${value}&error_description=${value}`)).status;
    }
    expect(Object.entries(statuses).filter(([, status]) => status >= 500)).toEqual([]);
  });

  it('in the forms of /token, /revoke and /oauth/consent, and in their headers', async () => {
    const statuses: Record<string, number> = {};
    for (const value of bad) {
      const body = (fields: string) => ({ method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: fields });
      for (const grant of ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:jwt-bearer', value]) {
        const fields = `grant_type=${encodeURIComponent(grant)}&client_id=${value}&code=${value}&code_verifier=${value}&refresh_token=${value}&assertion=${value}&scope=${value}&resource=${value}`;
        statuses[`token ${grant} ${value}`] = (await send(running, '/token', body(fields))).status;
        statuses[`token ${grant} ${value} own client`] = (
          await send(running, '/token', body(fields.replace(`client_id=${value}`, `client_id=${clientId}`)))
        ).status;
      }
      statuses[`revoke ${value}`] = (await send(running, '/revoke', body(`client_id=${clientId}&token=${value}`))).status;
      statuses[`consent ${value}`] = (await send(running, '/oauth/consent', body(`request=${value}&consent_token=${value}&decision=${value}`))).status;
      statuses[`basic ${value}`] = (
        await send(running, '/token', {
          ...body('grant_type=refresh_token&refresh_token=x'),
          headers: { ...body('').headers, authorization: `Basic ${value}` },
        })
      ).status;
    }
    statuses['basic NUL id'] = (await send(running, '/token', form({ grant_type: 'refresh_token', refresh_token: 'x' }, basic('a\u0000b', 'x')))).status;
    statuses['basic surrogate id'] = (await send(running, '/revoke', form({ token: 'x' }, basic('a\ud800b', 'x')))).status;
    statuses['token twice'] = (await send(running, '/token', { ...form({}), body: 'grant_type=a&grant_type=b' })).status;
    statuses['token as JSON'] = (
      await send(running, '/token', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"grant_type":["x"]}' })
    ).status;
    statuses['register as a form'] = (await send(running, '/register', form({ redirect_uris: REDIRECT }))).status;
    statuses['register nested'] = (
      await send(running, '/register', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"redirect_uris":[{"a":1}]}' })
    ).status;
    statuses['register NUL name'] = (
      await send(running, '/register', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: `{"redirect_uris":["${REDIRECT}"],"client_name":"a\\u0000b"}`,
      })
    ).status;
    expect(Object.entries(statuses).filter(([, status]) => status >= 500)).toEqual([]);
  });
});
