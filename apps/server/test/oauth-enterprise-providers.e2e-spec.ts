import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { signInHeadless, SignInStopped } from './support/headless-browser.js';
import { startIdentityProvider, type TestIdentityProvider } from './support/identity-provider.js';
import { authorizeUrl, callTool, connectedTokens, pkce, REDIRECT, refresh, register, rolesOf, startBuiltinApp, userIdOf } from './support/oauth-client.js';
import type { RunningApp } from './support/test-app.js';

/** The users row of the caller of `accessToken`, as the identity provider's claims made it. */
async function storedUser(running: RunningApp, accessToken: string) {
  const [user] = await running.app.get(DataSource).query('SELECT email, email_verified, name, roles FROM users WHERE id = $1', [userIdOf(accessToken)]);
  return user as { email: string | null; email_verified: boolean; name: string | null; roles: string[] };
}

const ADMINS_GROUP = '5b2f1c3e-0a4d-4e8e-9c61-0d3f6a7b8c9d';

describe('sign-in through the built-in server at a provider that behaves like Microsoft Entra ID', () => {
  let idp: TestIdentityProvider;
  let running: RunningApp;
  let clientId: string;

  beforeAll(async () => {
    idp = await startIdentityProvider({ profile: 'entra' });
    running = await startBuiltinApp(idp, {
      OIDC_SCOPES: 'openid email profile offline_access',
      OIDC_ROLES_CLAIM: 'roles',
      OIDC_ADMIN_ROLES: 'Mirobody.Admin',
      ADMIN_EMAILS: 'boss@contoso.example',
    });
    clientId = (await register(running)).client_id;
  });
  afterAll(async () => {
    await running?.close();
    await idp?.close();
  });

  it('signs in although the client names a resource: the provider, which refuses one, never gets it; the GUID audience and no email_verified are taken', async () => {
    const tokens = await connectedTokens(running, idp, clientId, 'ana');
    expect((await callTool(running, tokens.access_token, 'whoami')).result).toEqual(expect.objectContaining({ authenticated: true }));
    expect(idp.authorizationRequests.length).toBeGreaterThan(0);
    expect(idp.authorizationRequests.filter((query) => query.has('resource'))).toEqual([]);
    expect(idp.env.OIDC_CLIENT_ID).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-/);
    // No email_verified: the address is kept, unverified; the name comes with it.
    expect(await storedUser(running, tokens.access_token)).toEqual({ email: 'ana@contoso.example', email_verified: false, name: 'User ana', roles: [] });
  });

  it('names a person without an email claim by their UPN (preferred_username)', async () => {
    idp.account('uma', { email: null });
    const tokens = await connectedTokens(running, idp, clientId, 'uma');
    expect(await storedUser(running, tokens.access_token)).toEqual(expect.objectContaining({ email: 'uma@contoso.example', email_verified: false }));
  });

  it('makes an admin of an app role the settings name, and ends it at the next refresh once the provider removed it', async () => {
    idp.account('ada', { roles: ['Mirobody.Reader', 'Mirobody.Admin'] });
    const first = await connectedTokens(running, idp, clientId, 'ada');
    expect(await rolesOf(running, first.access_token)).toEqual(['admin']);
    expect((await storedUser(running, first.access_token)).roles).toEqual(['admin']);
    // Still an admin at the provider: refreshed twice, through the provider's rotated refresh tokens.
    const second = (await refresh(running, clientId, first.refresh_token)).json();
    expect(await rolesOf(running, second.access_token)).toEqual(['admin']);
    idp.account('ada', { roles: ['Mirobody.Reader'] });
    const third = await refresh(running, clientId, second.refresh_token);
    expect(third.status).toBe(200);
    expect(await rolesOf(running, third.json().access_token)).toEqual([]);
    expect((await storedUser(running, third.json().access_token)).roles).toEqual([]);
  });

  it('refuses a refresh, and revokes the connection, once the provider closed the account', async () => {
    const tokens = await connectedTokens(running, idp, clientId, 'carl');
    idp.account('carl', { disabled: true });
    const refused = await refresh(running, clientId, tokens.refresh_token);
    expect([refused.status, refused.json().error]).toEqual([400, 'invalid_grant']);
    expect(refused.json().error_description).toMatch(/identity provider refused the refresh.*sign in again/);
    expect((await callTool(running, tokens.access_token, 'whoami')).status).toBe(401);
  });

  it('gives ADMIN_EMAILS nothing for an address the provider did not verify (OIDC_VERIFIED_EMAIL_DOMAINS unset)', async () => {
    const tokens = await connectedTokens(running, idp, clientId, 'boss');
    expect(await storedUser(running, tokens.access_token)).toEqual(expect.objectContaining({ email: 'boss@contoso.example', email_verified: false }));
    expect(await rolesOf(running, tokens.access_token)).toEqual([]);
  });
});

describe('an Entra ID-like provider with groups as object ids, and the tenant’s domain trusted', () => {
  let idp: TestIdentityProvider;
  let running: RunningApp;
  let clientId: string;

  beforeAll(async () => {
    idp = await startIdentityProvider({ profile: 'entra' });
    running = await startBuiltinApp(idp, {
      OIDC_ROLES_CLAIM: 'groups',
      OIDC_ADMIN_ROLES: ADMINS_GROUP,
      OIDC_VERIFIED_EMAIL_DOMAINS: 'contoso.example',
      ADMIN_EMAILS: 'boss@contoso.example',
    });
    clientId = (await register(running)).client_id;
  });
  afterAll(async () => {
    await running?.close();
    await idp?.close();
  });

  it('makes an admin of the group object id the settings name; another group grants nothing', async () => {
    idp.account('gia', { groups: ['0c1d2e3f-aaaa-bbbb-cccc-000000000001', ADMINS_GROUP] });
    idp.account('gus', { groups: ['0c1d2e3f-aaaa-bbbb-cccc-000000000001'] });
    expect(await rolesOf(running, (await connectedTokens(running, idp, clientId, 'gia')).access_token)).toEqual(['admin']);
    expect(await rolesOf(running, (await connectedTokens(running, idp, clientId, 'gus')).access_token)).toEqual([]);
  });

  it('counts an address at a trusted domain as verified, so ADMIN_EMAILS applies; one elsewhere stays unverified', async () => {
    const boss = await connectedTokens(running, idp, clientId, 'boss');
    expect(await storedUser(running, boss.access_token)).toEqual(expect.objectContaining({ email: 'boss@contoso.example', email_verified: true }));
    expect(await rolesOf(running, boss.access_token)).toEqual(['admin']);
    idp.account('guest', { email: 'guest@fabrikam.example' });
    const guest = await connectedTokens(running, idp, clientId, 'guest');
    expect(await storedUser(running, guest.access_token)).toEqual(expect.objectContaining({ email: 'guest@fabrikam.example', email_verified: false }));
  });

  it('without a refresh token from the provider (offline_access not asked for here, refused by Entra ID), keeps no roles past the first tokens', async () => {
    idp.account('ida', { groups: [ADMINS_GROUP] });
    const tokens = await connectedTokens(running, idp, clientId, 'ida');
    expect(await rolesOf(running, tokens.access_token)).toEqual(['admin']);
    await running.app.get(DataSource).query('UPDATE oauth_connections SET provider_refresh_token = NULL WHERE user_id = $1', [userIdOf(tokens.access_token)]);
    const next = await refresh(running, clientId, tokens.refresh_token);
    expect(next.status).toBe(200);
    expect(await rolesOf(running, next.json().access_token)).toEqual([]);
  });
});

describe('sign-in through the built-in server at a provider that behaves like Okta or Keycloak', () => {
  let idp: TestIdentityProvider;
  let running: RunningApp;
  let clientId: string;

  beforeAll(async () => {
    idp = await startIdentityProvider({ profile: 'okta' });
    running = await startBuiltinApp(idp, { OIDC_SCOPES: 'openid email profile groups', OIDC_ROLES_CLAIM: 'groups', OIDC_ADMIN_ROLES: 'mirobody-admins' });
    clientId = (await register(running)).client_id;
  });
  afterAll(async () => {
    await running?.close();
    await idp?.close();
  });

  it('reads the address, its verification and the groups from userinfo when the ID token is thin', async () => {
    idp.account('oli', { groups: ['Everyone', 'mirobody-admins'] });
    const tokens = await connectedTokens(running, idp, clientId, 'oli');
    expect(await storedUser(running, tokens.access_token)).toEqual({ email: 'oli@okta.example', email_verified: true, name: 'User oli', roles: ['admin'] });
    expect(await rolesOf(running, tokens.access_token)).toEqual(['admin']);
    idp.account('oli', { groups: ['Everyone'] });
    const next = (await refresh(running, clientId, tokens.refresh_token)).json();
    expect(await rolesOf(running, next.access_token)).toEqual([]);
  });

  it('a group named like a role grants nothing unless it is configured', async () => {
    idp.account('ivy', { groups: ['admin'] });
    expect(await rolesOf(running, (await connectedTokens(running, idp, clientId, 'ivy')).access_token)).toEqual([]);
  });

  it('a failing userinfo request, after the provider spent its state, is the sign-in error page (502), not a server error', async () => {
    idp.failUserinfo = true;
    try {
      const failure = await signInHeadless(idp, authorizeUrl(running, clientId, pkce().challenge), REDIRECT, { login: 'una' }).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(SignInStopped);
      expect((failure as SignInStopped).status).toBe(502);
      expect((failure as SignInStopped).html).toContain('Sign-in failed');
    } finally {
      idp.failUserinfo = false;
    }
  });

  it('a refresh while the provider is down is 503 with Retry-After, and leaves the refresh token good for later', async () => {
    const tokens = await connectedTokens(running, idp, clientId, 'rex');
    idp.down = true;
    try {
      const unavailable = await refresh(running, clientId, tokens.refresh_token);
      expect([unavailable.status, unavailable.json().error, unavailable.headers.get('retry-after')]).toEqual([503, 'temporarily_unavailable', '5']);
    } finally {
      idp.down = false;
    }
    const later = await refresh(running, clientId, tokens.refresh_token);
    expect(later.status).toBe(200);
    expect((await callTool(running, later.json().access_token, 'whoami')).status).toBe(200);
  });
});
