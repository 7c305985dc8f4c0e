import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client, CrossAppAccessProvider, requestJwtAuthorizationGrant, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { signHs256, structured, TEST_JWT_SECRET } from './support/auth.js';
import { startIdentityProvider, type TestIdentityProvider } from './support/identity-provider.js';
import { basic, callTool, connectedTokens, form, register, send, startBuiltinApp, userIdOf } from './support/oauth-client.js';
import type { RunningApp } from './support/test-app.js';

/**
 * Enterprise-managed authorization: the company's identity provider grants an employee's agent
 * access by an identity assertion grant (ID-JAG) it issues by token exchange (RFC 8693), which the
 * agent presents at `/token` (RFC 7523) for an access token, with no consent page.
 */
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

let idp: TestIdentityProvider;
let running: RunningApp;
let agent: { client_id: string; client_secret: string };
let issuer: string;
let resource: string;

beforeAll(async () => {
  idp = await startIdentityProvider({ profile: 'okta' });
  running = await startBuiltinApp(idp, { JWT_SECRET: TEST_JWT_SECRET, ADMIN_EMAILS: 'root@example.com' });
  issuer = running.url.origin;
  resource = `${issuer}/mcp`;
  agent = (await register(running, {
    client_name: 'Acme Agent',
    token_endpoint_auth_method: 'client_secret_basic',
    grant_types: [JWT_BEARER],
  })) as typeof agent;
  idp.mapAgentTo(agent.client_id);
});

afterAll(async () => {
  await running?.close();
  await idp?.close();
});

/** The ID-JAG the provider issues the agent for `login`, by token exchange of the agent's ID token. */
async function idJag(login: string, overrides: { audience?: string; resource?: string; scope?: string } = {}): Promise<string> {
  const { jwtAuthGrant } = await requestJwtAuthorizationGrant({
    tokenEndpoint: new URL('/token', idp.issuer),
    audience: overrides.audience ?? issuer,
    resource: overrides.resource ?? resource,
    idToken: await idp.agentIdToken(login),
    clientId: idp.agent.clientId,
    clientSecret: idp.agent.clientSecret,
    ...(overrides.scope ? { scope: overrides.scope } : {}),
  });
  return jwtAuthGrant;
}

const present = (assertion: string, client: { client_id: string; client_secret?: string } = agent, extra: Record<string, string> = {}) =>
  send(running, '/token', form({ grant_type: JWT_BEARER, assertion, ...extra }, client.client_secret ? basic(client.client_id, client.client_secret) : {}));

const refusal = async (answer: ReturnType<typeof present>) => {
  const { status, json } = await answer;
  return [status, json().error, json().error_description] as const;
};

/** A hand-made assertion of the test provider's key, good but for what `changes` alter. */
async function forged(login: string, changes: Record<string, unknown> = {}, typ = 'oauth-id-jag+jwt'): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return idp.sign(
    {
      iss: idp.issuer,
      sub: idp.subjectOf(login),
      aud: issuer,
      client_id: agent.client_id,
      jti: crypto.randomUUID(),
      iat: now,
      exp: now + 300,
      resource,
      ...changes,
    },
    { typ },
  );
}

describe('the JWT-bearer grant with an ID-JAG', () => {
  it('is advertised in the metadata', async () => {
    const metadata = (await send(running, '/.well-known/oauth-authorization-server')).json();
    expect(metadata.grant_types_supported).toEqual(['authorization_code', 'refresh_token', JWT_BEARER]);
    expect(metadata.authorization_grant_profiles_supported).toEqual(['urn:ietf:params:oauth:grant-profile:id-jag']);
  });

  it('connects the official SDK client (CrossAppAccessProvider) with no consent click: whoami answers for the user a sign-in of that provider makes', async () => {
    const provider = new CrossAppAccessProvider({
      assertion: async (context) =>
        (
          await requestJwtAuthorizationGrant({
            tokenEndpoint: new URL('/token', idp.issuer),
            audience: context.authorizationServerUrl,
            resource: context.resourceUrl,
            idToken: await idp.agentIdToken('erin'),
            clientId: idp.agent.clientId,
            clientSecret: idp.agent.clientSecret,
            ...(context.scope ? { scope: context.scope } : {}),
            fetchFn: context.fetchFn,
          })
        ).jwtAuthGrant,
      clientId: agent.client_id,
      clientSecret: agent.client_secret,
      expectedIssuer: issuer,
    });
    // Challenged (401), the SDK's auth() runs the grant and connects with its token: no browser, no redirect.
    const connected = new Client({ name: 'e2e-id-jag', version: '1.0.0' });
    await connected.connect(new StreamableHTTPClientTransport(running.url, { authProvider: provider }));
    try {
      expect((await structured(connected, 'whoami')).authenticated).toBe(true);
      expect(provider.tokens()).toEqual(expect.objectContaining({ token_type: 'Bearer' }));
      expect(provider.tokens()!.refresh_token).toBeUndefined();
      const signedIn = await connectedTokens(running, idp, (await register(running)).client_id, 'erin');
      expect(userIdOf(provider.tokens()!.access_token)).toBe(userIdOf(signedIn.access_token));
    } finally {
      await connected.close();
    }
  });

  it('gives an access token for the assertion’s scopes, no refresh token, and takes up the same connection at the next assertion', async () => {
    const first = await present(await idJag('finn', { scope: 'memory:read files:read' }));
    expect(first.status).toBe(200);
    expect(first.json()).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 600, scope: 'files:read memory:read' });
    expect((await callTool(running, first.json().access_token, 'whoami')).status).toBe(200);
    const narrower = await present(await idJag('finn', { scope: 'memory:read files:read' }), agent, { scope: 'memory:read' });
    expect(narrower.json().scope).toBe('memory:read');
    const again = await present(await idJag('finn', { scope: 'memory:read files:read' }));
    const claims = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString());
    expect(claims(again.json().access_token).cid).toBe(claims(first.json().access_token).cid);
  });

  it('is listed among the user’s connections as granted by the provider, and revoking it ends its token', async () => {
    const tokens = (await present(await idJag('gwen'))).json();
    const root = await signHs256(TEST_JWT_SECRET, { sub: 'root', email: 'root@example.com', email_verified: true });
    const listed = (await send(running, `/admin/users/${userIdOf(tokens.access_token)}/connections`, { headers: { authorization: `Bearer ${root}` } })).json();
    const connection = listed.connections.find((entry: { granted_by: string | null }) => entry.granted_by === idp.issuer);
    expect(connection).toEqual(expect.objectContaining({ client_id: agent.client_id, client_name: 'Acme Agent', granted_by: idp.issuer, revoked_at: null }));
    expect(
      (
        await send(running, `/admin/users/${userIdOf(tokens.access_token)}/connections/${connection.id}`, {
          method: 'DELETE',
          headers: { authorization: `Bearer ${root}` },
        })
      ).status,
    ).toBe(204);
    expect((await callTool(running, tokens.access_token, 'whoami')).status).toBe(401);
  });
});

describe('attacks on the ID-JAG grant', () => {
  it('an assertion for another audience is refused', async () => {
    expect(await refusal(present(await idJag('hal', { audience: 'https://elsewhere.example.com' })))).toEqual([
      400,
      'invalid_grant',
      expect.stringContaining('unexpected "aud" claim value'),
    ]);
  });

  it('an assertion for another resource is refused, as is a request naming one', async () => {
    expect(await refusal(present(await idJag('hal', { resource: 'https://elsewhere.example.com/mcp' })))).toEqual([
      400,
      'invalid_grant',
      `The assertion is refused: it is for https://elsewhere.example.com/mcp, not ${resource}`,
    ]);
    expect(await refusal(present(await idJag('hal'), agent, { resource: 'https://elsewhere.example.com/mcp' }))).toEqual([
      400,
      'invalid_target',
      expect.any(String),
    ]);
  });

  it('an assertion presented twice is refused the second time (its jti is spent, in the database)', async () => {
    const assertion = await idJag('ivo');
    expect((await present(assertion)).status).toBe(200);
    expect(await refusal(present(assertion))).toEqual([400, 'invalid_grant', 'The assertion is refused: its jti was used before: an assertion is good once']);
  });

  it('an assertion of an issuer this server does not trust is refused, and so is one signed with another key in a trusted issuer’s name', async () => {
    const stranger = await startIdentityProvider({ profile: 'certified', headless: true });
    try {
      stranger.admit('http://127.0.0.1:1/unused');
      stranger.mapAgentTo(agent.client_id);
      const now = Math.floor(Date.now() / 1000);
      const theirs = await stranger.sign(
        { iss: stranger.issuer, sub: 'x', aud: issuer, client_id: agent.client_id, jti: crypto.randomUUID(), iat: now, exp: now + 300 },
        { typ: 'oauth-id-jag+jwt' },
      );
      expect(await refusal(present(theirs))).toEqual([400, 'invalid_grant', expect.stringContaining('is not one this server trusts (OAUTH_ID_JAG_ISSUERS)')]);
      const impersonating = await stranger.sign(
        { iss: idp.issuer, sub: 'x', aud: issuer, client_id: agent.client_id, jti: crypto.randomUUID(), iat: now, exp: now + 300 },
        { typ: 'oauth-id-jag+jwt' },
      );
      expect(await refusal(present(impersonating))).toEqual([400, 'invalid_grant', expect.stringContaining('The assertion is refused')]);
    } finally {
      await stranger.close();
    }
  });

  it('an expired assertion, one issued for too long, and a JWT of another type are refused', async () => {
    const now = Math.floor(Date.now() / 1000);
    expect(await refusal(present(await forged('jo', { iat: now - 500, exp: now - 200 })))).toEqual([
      400,
      'invalid_grant',
      expect.stringContaining('"exp" claim timestamp check failed'),
    ]);
    expect(await refusal(present(await forged('jo', { exp: now + 3600 })))).toEqual([
      400,
      'invalid_grant',
      'The assertion is refused: it is issued for 3600 s, more than 300 s',
    ]);
    expect(await refusal(present(await forged('jo', {}, 'JWT')))).toEqual([400, 'invalid_grant', expect.stringContaining('"typ" JWT header value')]);
    expect((await present(await forged('jo'))).status).toBe(200);
  });

  it('another client’s assertion is refused; a public client may not use the grant at all', async () => {
    const other = await register(running, { token_endpoint_auth_method: 'client_secret_post', grant_types: [JWT_BEARER] });
    const assertion = await idJag('kai');
    const answer = await send(running, '/token', form({ grant_type: JWT_BEARER, assertion, client_id: other.client_id, client_secret: other.client_secret! }));
    expect([answer.status, answer.json().error, answer.json().error_description]).toEqual([
      400,
      'invalid_grant',
      `The assertion is refused: it was issued for client "${agent.client_id}", not ${other.client_id}`,
    ]);
    const publicClient = await register(running);
    const asPublic = await send(running, '/token', form({ grant_type: JWT_BEARER, assertion, client_id: publicClient.client_id }));
    expect([asPublic.status, asPublic.json().error]).toEqual([400, 'unauthorized_client']);
    expect((await present(assertion)).status).toBe(200);
  });

  it('scopes beyond the tools’ scopes, or beyond the assertion’s, are refused', async () => {
    expect(await refusal(present(await idJag('lea', { scope: 'memory:read admin:everything' })))).toEqual([
      400,
      'invalid_scope',
      expect.stringContaining('admin:everything'),
    ]);
    expect(await refusal(present(await idJag('lea', { scope: 'memory:read' }), agent, { scope: 'memory:write' }))).toEqual([
      400,
      'invalid_scope',
      'The assertion does not grant memory:write',
    ]);
  });

  it('a disabled user’s assertion gets no token', async () => {
    const first = (await present(await idJag('mo'))).json();
    const root = await signHs256(TEST_JWT_SECRET, { sub: 'root', email: 'root@example.com', email_verified: true });
    expect(
      (await send(running, `/admin/users/${userIdOf(first.access_token)}/disable`, { method: 'POST', headers: { authorization: `Bearer ${root}` } })).status,
    ).toBeLessThan(300);
    expect(await refusal(present(await idJag('mo')))).toEqual([400, 'invalid_grant', 'The account is disabled: ask an administrator']);
  });

  it('a user the provider closed gets no assertion to begin with', async () => {
    const idToken = await idp.agentIdToken('ned');
    idp.account('ned', { disabled: true });
    await expect(
      requestJwtAuthorizationGrant({
        tokenEndpoint: new URL('/token', idp.issuer),
        audience: issuer,
        resource,
        idToken,
        clientId: idp.agent.clientId,
        clientSecret: idp.agent.clientSecret,
      }),
    ).rejects.toThrow(/invalid_grant/);
  });
});

describe('with OAUTH_ID_JAG_ISSUERS=none', () => {
  it('neither offers nor takes the grant', async () => {
    const other = await startIdentityProvider({ profile: 'okta' });
    const closed = await startBuiltinApp(other, { OAUTH_ID_JAG_ISSUERS: 'none' });
    try {
      const metadata = (await send(closed, '/.well-known/oauth-authorization-server')).json();
      expect(metadata.grant_types_supported).toEqual(['authorization_code', 'refresh_token']);
      expect(metadata).not.toHaveProperty('authorization_grant_profiles_supported');
      const client = await register(closed, { token_endpoint_auth_method: 'client_secret_basic' });
      const answer = await send(closed, '/token', form({ grant_type: JWT_BEARER, assertion: 'x.y.z' }, basic(client.client_id, client.client_secret!)));
      expect([answer.status, answer.json().error]).toEqual([400, 'unsupported_grant_type']);
    } finally {
      await closed.close();
      await other.close();
    }
  });
});
