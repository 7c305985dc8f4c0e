import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { requestJwtAuthorizationGrant } from '@modelcontextprotocol/client';
import { startIdentityProvider, type TestIdentityProvider } from './support/identity-provider.js';
import { basic, form, REDIRECT, register, send, startBuiltinApp } from './support/oauth-client.js';
import { describeWithRedis, TEST_REDIS_URL } from './support/redis.js';
import { describeNeeding } from './support/services.js';
import { createTestDatabase, postgresService, SHARED_DATABASE_SERVER_URL, type TestDatabase } from './support/test-database.js';
import type { RunningApp } from './support/test-app.js';

const describeRedis = await describeWithRedis(TEST_REDIS_URL);
const describeWithPostgres = await describeNeeding(postgresService(SHARED_DATABASE_SERVER_URL));

/** The registration counters alone: other tests' counters, on a Redis they may share, stay. */
async function forgetRegistrationCounters(): Promise<void> {
  const redis = new Redis(TEST_REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    const keys = await redis.keys('mirobody:rate:oauth-register*');
    if (keys.length) await redis.del(...keys);
  } finally {
    redis.disconnect();
  }
}

describeRedis('the built-in authorization server on two instances sharing REDIS_URL', () => {
  let idp: TestIdentityProvider;
  let first: RunningApp;
  let second: RunningApp;

  beforeAll(async () => {
    await forgetRegistrationCounters();
    idp = await startIdentityProvider({ profile: 'okta' });
    const env = { REDIS_URL: TEST_REDIS_URL, OAUTH_REGISTRATIONS_PER_HOUR: '3' };
    first = await startBuiltinApp(idp, env);
    second = await startBuiltinApp(idp, env);
  });

  afterAll(async () => {
    await first?.close();
    await second?.close();
    await idp?.close();
    await forgetRegistrationCounters();
  });

  const registerAt = (running: RunningApp) =>
    send(running, '/register', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' }),
    });

  it('counts an address’s registrations on one budget: a flood spread over the instances gets 429 with Retry-After', async () => {
    const statuses = [];
    for (const running of [first, second, first, second, first]) statuses.push((await registerAt(running)).status);
    expect(statuses).toEqual([201, 201, 201, 429, 429]);
    const refused = await registerAt(second);
    expect([refused.status, refused.json().error]).toEqual([429, 'too_many_requests']);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describeWithPostgres('the built-in authorization server on two instances sharing a database', () => {
  let idp: TestIdentityProvider;
  let database: TestDatabase;
  let first: RunningApp;
  let second: RunningApp;

  beforeAll(async () => {
    idp = await startIdentityProvider({ profile: 'okta' });
    database = await createTestDatabase(SHARED_DATABASE_SERVER_URL);
    // One public address, as behind a load balancer: an ID-JAG names the issuer, not an instance.
    first = await startBuiltinApp(idp, { DATABASE_URL: database.url });
    const issuer = first.url.origin;
    second = await startBuiltinApp(idp, { DATABASE_URL: database.url, PUBLIC_BASE_URL: issuer });
  });

  afterAll(async () => {
    await first?.close();
    await second?.close();
    await database?.drop();
    await idp?.close();
  });

  it('refuses on the second instance an ID-JAG the first one took (its jti is spent in the database)', async () => {
    const agent = await register(first, { token_endpoint_auth_method: 'client_secret_basic', grant_types: ['urn:ietf:params:oauth:grant-type:jwt-bearer'] });
    idp.mapAgentTo(agent.client_id);
    const { jwtAuthGrant } = await requestJwtAuthorizationGrant({
      tokenEndpoint: new URL('/token', idp.issuer),
      audience: first.url.origin,
      resource: `${first.url.origin}/mcp`,
      idToken: await idp.agentIdToken('rita'),
      clientId: idp.agent.clientId,
      clientSecret: idp.agent.clientSecret,
    });
    const present = (running: RunningApp) =>
      send(
        running,
        '/token',
        form({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: jwtAuthGrant }, basic(agent.client_id, agent.client_secret!)),
      );
    expect((await present(first)).status).toBe(200);
    const replayed = await present(second);
    expect([replayed.status, replayed.json().error_description]).toEqual([400, 'The assertion is refused: its jti was used before: an assertion is good once']);
  });
});
