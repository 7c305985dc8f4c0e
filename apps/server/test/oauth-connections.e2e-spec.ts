import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { exportJWK, generateKeyPair, importJWK, SignJWT, type JWK } from 'jose';
import { ConnectionsService, InvalidGrantError, type IssuedTokens } from '@app/auth';
import { bearer, signHs256, structured, TEST_JWT_SECRET, withClient } from './support/auth.js';
import { ERAS, JSON_HEADERS, postRaw, startApp, type RunningApp } from './support/test-app.js';

const ENV = { JWT_SECRET: TEST_JWT_SECRET, ADMIN_EMAILS: 'root@example.com' };
const CLAUDE = 'https://claude.ai/oauth/mcp-oauth-client-metadata';

let running: RunningApp;
let connections: ConnectionsService;
let issuer: string;
let resource: string;
const jwt = (sub: string) => signHs256(TEST_JWT_SECRET, { sub, email: `${sub}@example.com`, email_verified: true });

async function rest(method: string, path: string, credential?: string) {
  const response = await fetch(new URL(path, running.url), { method, headers: credential ? bearer(credential) : {} });
  const text = await response.text();
  return { status: response.status, json: text ? JSON.parse(text) : undefined };
}

/** Makes the user exist (their first valid token) and returns their id, as their export names it. */
async function userId(token: string): Promise<string> {
  return (await rest('GET', '/api/me/export', token)).json.userId;
}

/** A connection's first tokens, as the code exchange issues them (always with a refresh token). */
const connect = async (owner: string, scopes: string[] = ['memory:read'], clientId = CLAUDE): Promise<Required<IssuedTokens>> =>
  (await connections.connect({ userId: owner, clientId, clientName: 'Claude', clientVerified: true, scopes, resource, issuer }))
    .tokens as Required<IssuedTokens>;

const whoamiStatus = async (accessToken: string) =>
  (
    await postRaw(running.url, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } }), {
      ...JSON_HEADERS,
      ...bearer(accessToken),
    })
  ).status;

beforeAll(async () => {
  running = await startApp(ENV);
  connections = running.app.get(ConnectionsService);
  issuer = running.url.origin;
  resource = `${issuer}/mcp`;
});

afterAll(() => running.close());

describe.each(ERAS)("a connection's access token on /mcp, revision %s", (era) => {
  it("calls tools as its user, limited to the connection's scopes (without JWT_SCOPES_CLAIM)", async () => {
    const alice = await userId(await jwt(`alice-${era}`));
    const tokens = await connect(alice);
    expect(tokens).toEqual({
      access_token: expect.any(String),
      token_type: 'Bearer',
      expires_in: 600,
      refresh_token: expect.stringMatching(/^mrb_rt_/),
      scope: 'memory:read',
    });
    await withClient(running.url, era, bearer(tokens.access_token), async (client) => {
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect(names).toEqual(expect.arrayContaining(['whoami', 'recall_memory']));
      expect(names).not.toContain('remember');
      expect((await structured(client, 'whoami')).authenticated).toBe(true);
      await expect(client.callTool({ name: 'remember', arguments: { text: 'x' } })).rejects.toThrow(/Insufficient scope/);
    });
  });
});

describe('what binds an access token', () => {
  it('opens /mcp alone: REST refuses it with 401, naming the resource it is for', async () => {
    const tokens = await connect(await userId(await jwt('bea')));
    const refused = await rest('GET', '/api/me/export', tokens.access_token);
    expect(refused.status).toBe(401);
    expect(refused.json.message).toBe(`Invalid token: it is for ${resource} alone`);
  });

  it('refuses a token of this issuer for another audience, or signed with a key the server does not hold', async () => {
    const cora = await userId(await jwt('cora'));
    const { access_token } = await connect(cora);
    const claims = JSON.parse(Buffer.from(access_token.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
    const keys = JSON.parse(readFileSync(join(running.dataDir, 'oauth-signing-keys.json'), 'utf8')) as { keys: JWK[] };
    const serverKey = await importJWK(keys.keys[0]!, 'ES256');
    const otherAudience = await new SignJWT({ ...claims, aud: 'https://elsewhere.example.com/mcp' })
      .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: keys.keys[0]!.kid! })
      .sign(serverKey);
    expect(await whoamiStatus(otherAudience)).toBe(401);
    const { privateKey } = await generateKeyPair('ES256');
    const forged = await new SignJWT(claims).setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: keys.keys[0]!.kid! }).sign(privateKey);
    expect(await whoamiStatus(forged)).toBe(401);
    expect(await whoamiStatus(access_token)).toBe(200);
  });
});

describe('refresh tokens', () => {
  it('are single-use: each refresh gives the next pair, and a reused one revokes the connection', async () => {
    const dan = await userId(await jwt('dan'));
    const first = await connect(dan);
    const second = await connections.refresh(first.refresh_token, CLAUDE, issuer);
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(await whoamiStatus(second.access_token)).toBe(200);
    await expect(connections.refresh(first.refresh_token, CLAUDE, issuer)).rejects.toThrow(
      new InvalidGrantError('The refresh token was used before: the connection is revoked, sign in again'),
    );
    expect(await whoamiStatus(second.access_token)).toBe(401);
    await expect(connections.refresh(second.refresh_token!, CLAUDE, issuer)).rejects.toThrow(InvalidGrantError);
  });

  it('are refused for another client, which does not spend them', async () => {
    const eve = await userId(await jwt('eve'));
    const tokens = await connect(eve);
    await expect(connections.refresh(tokens.refresh_token, 'https://other.example.com/client.json', issuer)).rejects.toThrow(
      'The refresh token is not valid for this client',
    );
    await expect(connections.refresh(tokens.refresh_token, CLAUDE, issuer)).resolves.toEqual(expect.objectContaining({ token_type: 'Bearer' }));
  });

  it('RFC 7009: revoking a refresh or access token of the client ends the connection; another client cannot', async () => {
    const fay = await userId(await jwt('fay'));
    const byRefresh = await connect(fay);
    await connections.revokeToken(byRefresh.refresh_token, 'https://other.example.com/client.json');
    expect(await whoamiStatus(byRefresh.access_token)).toBe(200);
    await connections.revokeToken(byRefresh.refresh_token, CLAUDE);
    expect(await whoamiStatus(byRefresh.access_token)).toBe(401);
    const byAccess = await connect(fay);
    // A token naming the connection but not signed by the server revokes nothing.
    const [header, payload] = byAccess.access_token.split('.');
    await connections.revokeToken(`${header}.${payload}.${'A'.repeat(86)}`, CLAUDE);
    expect(await whoamiStatus(byAccess.access_token)).toBe(200);
    await connections.revokeToken(byAccess.access_token, CLAUDE);
    expect(await whoamiStatus(byAccess.access_token)).toBe(401);
    await expect(connections.revokeToken('not-a-token', CLAUDE)).resolves.toBeUndefined();
  });
});

describe('/api/me/connections and /admin/users/:id/connections', () => {
  it('lists and revokes the caller’s own connections only; a revoked one stops working at once', async () => {
    const gusToken = await jwt('gus');
    const hanToken = await jwt('han');
    const gus = await userId(gusToken);
    await userId(hanToken);
    const tokens = await connect(gus, ['files:read', 'memory:read']);
    const listed = await rest('GET', '/api/me/connections', gusToken);
    expect(listed.status).toBe(200);
    expect(listed.json.connections).toEqual([
      expect.objectContaining({ client_id: CLAUDE, client_name: 'Claude', client_verified: true, scopes: ['files:read', 'memory:read'], revoked_at: null }),
    ]);
    expect(JSON.stringify(listed.json)).not.toContain(tokens.refresh_token);
    const id = listed.json.connections[0].id as string;

    expect((await rest('GET', '/api/me/connections', hanToken)).json).toEqual({ connections: [] });
    expect((await rest('GET', '/api/me/connections')).status).toBe(401);
    expect((await rest('GET', '/api/me/connections', tokens.access_token)).status).toBe(401);
    expect((await rest('DELETE', `/api/me/connections/${id}`, hanToken)).status).toBe(404);
    expect((await rest('DELETE', `/api/me/connections/${id}`)).status).toBe(401);
    const malformed = await rest('DELETE', '/api/me/connections/not-a-uuid', gusToken);
    expect([malformed.status, malformed.json.fields]).toEqual([400, { id: 'must be a UUID' }]);
    expect(await whoamiStatus(tokens.access_token)).toBe(200);

    expect((await rest('DELETE', `/api/me/connections/${id.toUpperCase()}`, gusToken)).status).toBe(204);
    expect(await whoamiStatus(tokens.access_token)).toBe(401);
    expect((await rest('GET', '/api/me/connections', gusToken)).json.connections[0].revoked_at).toEqual(expect.any(String));
  });

  it('an admin lists and revokes any user’s, on the audit trail; nobody else may', async () => {
    const rootToken = await jwt('root');
    const ida = await userId(await jwt('ida'));
    const tokens = await connect(ida);
    const [{ id }] = await connections.list(ida);
    expect((await rest('GET', `/admin/users/${ida}/connections`, await jwt('ida'))).status).toBe(403);
    const listed = await rest('GET', `/admin/users/${ida}/connections`, rootToken);
    expect([listed.status, listed.json.connections.map((connection: { id: string }) => connection.id)]).toEqual([200, [id]]);
    expect((await rest('DELETE', `/admin/users/${ida}/connections/${id}`, rootToken)).status).toBe(204);
    expect(await whoamiStatus(tokens.access_token)).toBe(401);
    const audit = (await rest('GET', '/admin/audit', rootToken)).json.items as { action: string; targetUserId: string }[];
    expect(audit.filter((entry) => entry.targetUserId === ida).map((entry) => entry.action)).toEqual(['connection.revoke', 'connections.list']);
  });

  it("is part of the user's export, without a token or its hash, and goes with the account", async () => {
    const jayToken = await jwt('jay');
    const jay = await userId(jayToken);
    const tokens = await connect(jay);
    const exported = await rest('GET', '/api/me/export', jayToken);
    const text = JSON.stringify(exported.json);
    expect(text).toContain(CLAUDE);
    expect(text).not.toContain(tokens.refresh_token);
    expect((await rest('DELETE', '/api/me', jayToken)).status).toBe(204);
    expect(await whoamiStatus(tokens.access_token)).toBe(401);
  });
});

describe('signing keys', () => {
  it('publishes public keys only, and rotates by configuration: the first key signs, the others still verify', async () => {
    expect(JSON.stringify(await connections.publicKeys())).not.toContain('"d"');
    const keyFile = join(running.dataDir, 'rotated-keys.json');
    const fresh = { ...(await exportJWK((await generateKeyPair('ES256', { extractable: true })).privateKey)), kid: 'new-key' };
    const old = JSON.parse(readFileSync(join(running.dataDir, 'oauth-signing-keys.json'), 'utf8')).keys[0] as JWK;
    writeFileSync(keyFile, JSON.stringify({ keys: [fresh, old] }));
    const rotated = await startApp({ ...ENV, OAUTH_SIGNING_KEYS_FILE: keyFile });
    try {
      const rotatedConnections = rotated.app.get(ConnectionsService);
      expect((await rotatedConnections.publicKeys()).keys.map((key) => key.kid)).toEqual(['new-key', old.kid]);
      const kim = (await (await fetch(new URL('/api/me/export', rotated.url), { headers: bearer(await jwt('kim')) })).json()).userId as string;
      const { tokens: issued } = await rotatedConnections.connect({
        userId: kim,
        clientId: CLAUDE,
        clientName: 'Claude',
        clientVerified: true,
        scopes: [],
        resource: `${rotated.url.origin}/mcp`,
        issuer: rotated.url.origin,
      });
      const [header, payload] = issued.access_token
        .split('.')
        .slice(0, 2)
        .map((part) => JSON.parse(Buffer.from(part, 'base64url').toString()));
      expect(header.kid).toBe('new-key');
      const byOldKey = await new SignJWT(payload).setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: old.kid! }).sign(await importJWK(old, 'ES256'));
      const call = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } });
      expect((await postRaw(rotated.url, call, { ...JSON_HEADERS, ...bearer(byOldKey) })).status).toBe(200);
    } finally {
      await rotated.close();
    }
  });
});
