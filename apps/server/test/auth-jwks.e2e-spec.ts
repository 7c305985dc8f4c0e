import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { DataSource } from 'typeorm';
import { AdminProbeModule } from './support/admin-probe.module.js';
import { bearer, cliToken, signHs256, structured, withClient } from './support/auth.js';
import { ERAS, JSON_HEADERS, postRaw, startApp, type RunningApp } from './support/test-app.js';

const ISSUER = 'https://login.example.com/';
const AUDIENCE = 'api://mirobody';
const whoami = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } });

/** The identity provider's side: key pairs, and a JWKS endpoint publishing the public halves. */
interface IdentityProvider {
  url: string;
  published: JWK[];
  server: Server;
}

type SigningKey = { kid: string; alg: 'RS256' | 'ES256'; privateKey: CryptoKey; jwk: JWK };

async function keyPair(kid: string, alg: SigningKey['alg']): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg);
  return { kid, alg, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

async function serveJwks(published: JWK[]): Promise<IdentityProvider> {
  const server = createServer((request, response) => {
    if (request.url !== '/.well-known/jwks.json') return void response.writeHead(404).end();
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: published }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/.well-known/jwks.json`, published, server };
}

function sign(key: SigningKey, claims: Record<string, unknown> = {}, audience = AUDIENCE): Promise<string> {
  return new SignJWT({ email: 'jo@example.com', ...claims })
    .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT' })
    .setSubject('jo')
    .setIssuer(ISSUER)
    .setAudience(audience)
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(key.privateKey);
}

let idp: IdentityProvider;
let running: RunningApp;
let rsa: SigningKey;
let ec: SigningKey;
let env: Record<string, string>;

beforeAll(async () => {
  [rsa, ec] = await Promise.all([keyPair('rsa-1', 'RS256'), keyPair('ec-1', 'ES256')]);
  idp = await serveJwks([rsa.jwk, ec.jwk]);
  env = { JWKS_URL: idp.url, JWT_ISSUER: ISSUER, JWT_AUDIENCE: AUDIENCE, JWT_ROLES_CLAIM: 'realm_access.roles' };
  running = await startApp(env, { imports: [AdminProbeModule] });
});

afterAll(async () => {
  await running.close();
  await new Promise((resolve) => idp.server.close(resolve));
});

describe('JWTs verified against the identity provider JWKS', () => {
  it.each(ERAS)('accepts RS256 and ES256 tokens, revision %s', async (era) => {
    for (const key of [rsa, ec]) {
      const result = await withClient(running.url, era, bearer(await sign(key)), (client) => structured(client, 'my_email'));
      expect(result).toEqual({ email: 'jo@example.com' });
    }
  });

  it('refuses a wrong audience, a key the provider does not publish, and an HS256 token', async () => {
    const stranger = await keyPair('rsa-1', 'RS256');
    const tokens = [
      await sign(rsa, {}, 'api://other'),
      await sign(stranger),
      // An HS256 token keyed with the public key text: the classic algorithm-confusion forgery.
      await signHs256(JSON.stringify(rsa.jwk), { sub: 'jo', iss: ISSUER, aud: AUDIENCE }, { alg: 'HS256' }),
    ];
    for (const token of tokens) expect((await postRaw(running.url, whoami, { ...JSON_HEADERS, ...bearer(token) })).status).toBe(401);
  });

  it('reads roles from the configured nested claim', async () => {
    const admin = new URL('/admin/ping', running.url);
    expect((await fetch(admin, { headers: bearer(await sign(ec, { realm_access: { roles: ['admin'] } })) })).status).toBe(200);
    expect((await fetch(admin, { headers: bearer(await sign(ec, { roles: ['admin'] })) })).status).toBe(403);
  });

  it('keys users by issuer and subject', async () => {
    expect(await running.app.get(DataSource).query('SELECT issuer, subject, email FROM users')).toEqual([
      { issuer: ISSUER, subject: 'jo', email: 'jo@example.com' },
    ]);
  });

  it('has the CLI refuse to sign', async () => {
    await expect(cliToken(running, env, '--sub', 'x')).rejects.toThrow(/JWKS_URL is set/);
  });
});

describe('an unreachable identity provider', () => {
  it('answers 503, not 401: the token may well be good', async () => {
    const gone = await serveJwks([]);
    await new Promise((resolve) => gone.server.close(resolve));
    const stranded = await startApp({ ...env, JWKS_URL: gone.url });
    try {
      const response = await postRaw(stranded.url, whoami, { ...JSON_HEADERS, ...bearer(await sign(rsa)) });
      expect(response.status).toBe(503);
    } finally {
      await stranded.close();
    }
  });
});
