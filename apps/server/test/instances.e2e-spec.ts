import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { AppConfig } from '../src/config.js';
import { bearer, cliToken, TEST_JWT_SECRET } from './support/auth.js';
import { eventually } from './support/files.js';
import { redisService, relayTo, TEST_REDIS_URL, type RedisRelay } from './support/redis.js';
import { describeNeeding } from './support/services.js';
import { connectClient, JSON_HEADERS, postRaw, startApp, type RunningApp } from './support/test-app.js';
import { createTestDatabase, postgresService, SHARED_DATABASE_SERVER_URL, type TestDatabase } from './support/test-database.js';

/**
 * Two instances of the app on one PostgreSQL database with the same secrets, as behind a load
 * balancer without affinity: what one of them does to state each keeps in memory (a 2025 session
 * DELETEd, a user erased) reaches the other through Redis (REDIS_URL), and without Redis stays
 * within the limits the README states.
 */
const ENV = {
  JWT_SECRET: TEST_JWT_SECRET,
  SIGNING_SECRET: 'a-session-signing-key-of-at-least-32-chars',
  RATE_LIMIT_REQUESTS: '0',
  RATE_LIMIT_ANONYMOUS_REQUESTS: '0',
};
const PROTOCOL = { 'mcp-protocol-version': '2025-11-25' };
const ECHO = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'x' } } });
/** Far below the 60 s an instance trusts a user id by default, and the 24 h a session id lives. */
const AT_ONCE_MS = 2000;

const describeWithPostgres = await describeNeeding(postgresService(SHARED_DATABASE_SERVER_URL));
const describeWithPostgresAndRedis = await describeNeeding(postgresService(SHARED_DATABASE_SERVER_URL), redisService(TEST_REDIS_URL));

type Party = Record<string, string>;

interface Instances {
  first: RunningApp;
  second: RunningApp;
  /** Users A and B, and an anonymous caller. */
  parties: Record<'alice' | 'bob' | 'anonymous', Party>;
}

/**
 * Starts two instances on a new database for the enclosing `describe`, with `env` (evaluated then)
 * added to each one's; stops them after it.
 */
function instancesFor(env: () => { first?: Party; second?: Party } = () => ({}), adjust?: (config: AppConfig) => AppConfig): Instances {
  const instances = { parties: { anonymous: {} } } as Instances;
  let database: TestDatabase | undefined;
  beforeAll(async () => {
    database = await createTestDatabase(SHARED_DATABASE_SERVER_URL);
    const extra = env();
    // One after the other: the first applies the migrations.
    instances.first = await startApp({ ...ENV, ...extra.first, DATABASE_URL: database.url }, {}, adjust);
    instances.second = await startApp({ ...ENV, ...extra.second, DATABASE_URL: database.url }, {}, adjust);
    instances.parties.alice = bearer(await cliToken(instances.first, ENV, '--sub', 'alice'));
    instances.parties.bob = bearer(await cliToken(instances.first, ENV, '--sub', 'bob'));
  });
  afterAll(async () => {
    await Promise.all([instances.first?.close(), instances.second?.close()]);
    await database?.drop();
  });
  return instances;
}

/** A 2025-11-25 session opened on `app` by the official client: the client, the session's id, and its DELETE. */
async function openSession(app: RunningApp, party: Party): Promise<{ client: Client; id: string; terminate(): Promise<void> }> {
  const client = await connectClient(app.url, '2025-11-25', party);
  const transport = client.transport as StreamableHTTPClientTransport;
  expect(transport.sessionId).toBeTruthy();
  return { client, id: transport.sessionId!, terminate: () => transport.terminateSession() };
}

/** The status of a tools/call in session `id` from `party`, sent to `app`. */
async function statusIn(app: RunningApp, id: string, party: Party): Promise<number> {
  return (await postRaw(app.url, ECHO, { ...JSON_HEADERS, ...PROTOCOL, ...party, 'mcp-session-id': id })).status;
}

/** DELETE of session `id` from `party`, sent to `app`. */
async function deleteOn(app: RunningApp, id: string, party: Party): Promise<number> {
  return (await fetch(app.url, { method: 'DELETE', headers: { ...PROTOCOL, ...party, 'mcp-session-id': id } })).status;
}

/** The user id `app` acts for with `token`, as its data export names it. */
async function actingFor(app: RunningApp, token: Party): Promise<string> {
  const response = await fetch(new URL('/api/me/export', app.url), { headers: token });
  expect(response.status).toBe(200);
  return ((await response.json()) as { userId: string }).userId;
}

async function erase(app: RunningApp, token: Party): Promise<void> {
  expect((await fetch(new URL('/api/me', app.url), { method: 'DELETE', headers: token })).status).toBe(204);
}

/** A session DELETEd on `from` is refused by `to` within a second. */
async function deletionReaches(from: RunningApp, to: RunningApp): Promise<void> {
  const session = await openSession(from, {});
  try {
    expect(await statusIn(to, session.id, {})).toBe(200);
    await session.terminate();
    await eventually(async () => expect(await statusIn(to, session.id, {})).toBe(404), 1000);
  } finally {
    await session.client.close();
  }
}

describeWithPostgresAndRedis('with Redis, a DELETE reaches every instance', () => {
  const instances = instancesFor(() => ({ first: { REDIS_URL: TEST_REDIS_URL }, second: { REDIS_URL: TEST_REDIS_URL } }));

  it.each(['alice', 'anonymous'] as const)('a session %s DELETEs on one instance is refused by the other at once (404)', async (name) => {
    const { first, second, parties } = instances;
    const session = await openSession(first, parties[name]);
    try {
      expect(await session.client.callTool({ name: 'echo', arguments: { text: 'hi' } })).toMatchObject({ structuredContent: { echo: 'hi' } });
      expect(await statusIn(second, session.id, parties[name])).toBe(200);
      await session.terminate();
      expect(await statusIn(first, session.id, parties[name])).toBe(404);
      await eventually(async () => expect(await statusIn(second, session.id, parties[name])).toBe(404), AT_ONCE_MS);
    } finally {
      await session.client.close();
    }
  });

  it('a DELETE sent to the instance that does not hold the session ends it where it lives; nobody else’s DELETE does', async () => {
    const { first, second, parties } = instances;
    const session = await openSession(first, parties.alice);
    try {
      for (const party of [parties.bob, parties.anonymous]) expect(await deleteOn(second, session.id, party)).toBe(404);
      expect(await session.client.callTool({ name: 'echo', arguments: { text: 'still mine' } })).toMatchObject({ structuredContent: { echo: 'still mine' } });
      expect(await statusIn(second, session.id, parties.alice)).toBe(200);

      expect(await deleteOn(second, session.id, parties.alice)).toBe(200);
      expect(await statusIn(second, session.id, parties.alice)).toBe(404);
      await eventually(async () => expect(await statusIn(first, session.id, parties.alice)).toBe(404), AT_ONCE_MS);
      await expect(session.client.callTool({ name: 'echo', arguments: { text: 'gone' } })).rejects.toThrow();
    } finally {
      await session.client.close();
    }
  });

  it('a user erased on one instance is forgotten by the other at once: its next request makes the new user', async () => {
    const { first, second } = instances;
    const erin = bearer(await cliToken(first, ENV, '--sub', 'erin'));
    const erased = await actingFor(second, erin);
    await erase(first, erin);
    await eventually(async () => expect(await actingFor(second, erin)).not.toBe(erased), AT_ONCE_MS);
    expect(await actingFor(second, erin)).toBe(await actingFor(first, erin));
  });
});

describeWithPostgresAndRedis('with Redis away, then back', () => {
  let relay: RedisRelay;

  beforeAll(async () => {
    // The second instance's way to Redis, cut before it starts.
    relay = await relayTo(TEST_REDIS_URL);
    relay.goAway();
  });

  afterAll(() => relay?.close());

  const instances = instancesFor(() => ({ first: { REDIS_URL: TEST_REDIS_URL }, second: { REDIS_URL: relay.url } }));

  it('an instance started while Redis is away serves on its own, hears of DELETEs once Redis is back, and again after losing it', async () => {
    const { first, second } = instances;
    const own = await openSession(second, {});
    await own.terminate();
    expect(await statusIn(second, own.id, {})).toBe(404);
    await own.client.close();
    // Told while away, the second instance never hears of it: the id stays usable there until it expires.
    const missed = await openSession(first, {});
    await missed.terminate();
    await missed.client.close();
    expect(await statusIn(second, missed.id, {})).toBe(200);

    relay.comeBack();
    await eventually(() => deletionReaches(first, second), 15_000);
    relay.goAway();
    relay.comeBack();
    await eventually(() => deletionReaches(first, second), 15_000);
  });
});

describeWithPostgres('without Redis, within the stated limits', () => {
  const TRUST_WINDOW_MS = 2000;
  const instances = instancesFor(undefined, (config) => ({ ...config, auth: { ...config.auth, knownUserTtlMs: TRUST_WINDOW_MS } }));

  it('a session DELETEd on one instance is refused there, and served by the other until its id expires', async () => {
    const { first, second, parties } = instances;
    const session = await openSession(first, parties.alice);
    try {
      // The other instance cannot end it: the client is told it is not there, and the session goes on.
      expect(await deleteOn(second, session.id, parties.alice)).toBe(404);
      expect(await statusIn(first, session.id, parties.alice)).toBe(200);
      await session.terminate();
      expect(await statusIn(first, session.id, parties.alice)).toBe(404);
      expect(await statusIn(second, session.id, parties.alice)).toBe(200);
    } finally {
      await session.client.close();
    }
  });

  it('a user erased on one instance is trusted by the other no longer than its trust window (knownUserTtlMs)', async () => {
    const { first, second } = instances;
    const frank = bearer(await cliToken(first, ENV, '--sub', 'frank'));
    const erased = await actingFor(second, frank);
    await erase(first, frank);
    await eventually(async () => expect(await actingFor(second, frank)).not.toBe(erased), TRUST_WINDOW_MS + AT_ONCE_MS);
    expect(await actingFor(second, frank)).toBe(await actingFor(first, frank));
  });
});

describe('with Redis away the whole time', () => {
  let relay: RedisRelay;
  let running: RunningApp | undefined;

  beforeAll(async () => {
    // Nothing is ever relayed: no Redis server is needed.
    relay = await relayTo(TEST_REDIS_URL);
    relay.goAway();
    running = await startApp({ ...ENV, REDIS_URL: relay.url });
  });

  afterAll(async () => {
    await running?.close();
    await relay.close();
  });

  it('serves, deletes sessions and erases users on its own, and shuts down without waiting for Redis', async () => {
    const app = running!;
    const session = await openSession(app, {});
    await session.terminate();
    expect(await statusIn(app, session.id, {})).toBe(404);
    await session.client.close();
    const gina = bearer(await cliToken(app, ENV, '--sub', 'gina'));
    const erased = await actingFor(app, gina);
    await erase(app, gina);
    expect(await actingFor(app, gina)).not.toBe(erased);
    // A close that waited for Redis would never end: the test would time out.
    running = undefined;
    await app.close();
  });
});
