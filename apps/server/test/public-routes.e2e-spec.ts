import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import { controllerRoutes } from '../../../libs/auth/src/identity/rest/route-requirements.js';
import { UNCOUNTED_ROUTES } from '../src/health.controller.js';
import { OPENAPI_ROUTES } from '../src/openapi.js';
import { bearer, cliToken, structured, TEST_JWT_SECRET, withClient } from './support/auth.js';
import { call, uploadFile } from './support/files.js';
import { startApp, type RunningApp } from './support/test-app.js';

/**
 * Routes anyone may call (no `@Authenticated()`, no `@AdminOnly()`) count against the anonymous
 * budget of an address like every other route; the only ones that do not are listed, with why,
 * in UNCOUNTED_ROUTES. `/files/signed/:token` answered 400 forged tokens with 400 × 403.
 */
const BUDGET = 3;
const ENV = { JWT_SECRET: TEST_JWT_SECRET, RATE_LIMIT_ANONYMOUS_REQUESTS: String(BUDGET), RATE_LIMIT_WINDOW_SECONDS: '60' };

/** The statuses of requests from this machine's address with no credential, until one is 429 or `count` have gone. */
async function untilLimited(app: RunningApp, method: string, path: string, count = BUDGET + 1): Promise<number[]> {
  const statuses: number[] = [];
  while (statuses.length < count && statuses.at(-1) !== 429) statuses.push((await call(app, method, path)).status);
  return statuses;
}

describe('every route anyone may call', () => {
  let app: RunningApp;

  beforeAll(async () => {
    app = await startApp(ENV);
  });
  afterAll(async () => {
    await app?.close();
  });

  it('is counted against the address’s anonymous budget (429 past it), but for the routes UNCOUNTED_ROUTES exempts', async () => {
    const uncounted = new Set(UNCOUNTED_ROUTES.map((entry) => entry.controller));
    const publicRoutes = controllerRoutes(app.app.get(DiscoveryService), app.app.get(MetadataScanner)).filter((route) => !route.requirement);
    const counted = publicRoutes.filter((route) => !uncounted.has(route.controller));
    // The walk itself: it must find the routes this issue is about.
    expect(counted.map((route) => route.name)).toEqual(expect.arrayContaining(['SignedFileController.download', 'ProtectedResourceController.metadata']));
    const unlimited: string[] = [];
    for (const route of counted) {
      for (const path of route.paths) {
        // A path parameter gets a made-up value: a forged token, an unknown id.
        const statuses = await untilLimited(app, route.method, path.replace(/:\w+/g, 'made-up'));
        if (statuses.at(-1) !== 429) unlimited.push(`${route.method} ${path} (${route.name}): ${statuses.join(', ')}`);
      }
    }
    // The OpenAPI document and Swagger UI are Fastify routes of their own, outside the controllers.
    // So are the web console's page and files.
    for (const path of [...OPENAPI_ROUTES, '/console', '/console/users/some-user', '/console/assets/made-up.js']) {
      const statuses = await untilLimited(app, 'GET', path);
      if (statuses.at(-1) !== 429) unlimited.push(`GET ${path}: ${statuses.join(', ')}`);
    }
    expect(unlimited).toEqual([]);

    // The address's budget is spent: the exempt routes still answer.
    const exempt = publicRoutes.filter((route) => uncounted.has(route.controller));
    expect(exempt.length).toBeGreaterThan(0);
    for (const route of exempt) {
      for (const path of route.paths) expect([route.name, path, await untilLimited(app, route.method, path)]).toEqual([route.name, path, [200, 200, 200, 200]]);
    }
  });
});

describe('signed links', () => {
  let app: RunningApp;
  let alice: string;

  beforeAll(async () => {
    app = await startApp(ENV);
    alice = await cliToken(app, ENV, '--sub', 'alice');
  });
  afterAll(async () => {
    await app?.close();
  });

  it('download, genuine or forged, within the anonymous budget of an address only; its owner keeps her own budget', async () => {
    const { fileKey } = (await uploadFile(app, alice, 'scan.bin', Buffer.from([0, 1, 2, 3]))).body;
    const { url } = await withClient(app.url, '2025-11-25', bearer(alice), (client) => structured(client, 'read_file', { file_key: fileKey }));
    const link = new URL(url as string).pathname;
    const statuses = [];
    for (const path of [link, '/files/signed/forged', link, link, '/files/signed/forged']) statuses.push((await call(app, 'GET', path)).status);
    expect(statuses).toEqual([200, 403, 200, 429, 429]);
    const refused = await call(app, 'GET', link);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.body).toEqual(expect.objectContaining({ statusCode: 429, message: expect.stringMatching(/^Too many requests: try again in \d+ s$/) }));
    expect((await call(app, 'GET', `/api/files/${fileKey}/content`, alice)).status).toBe(200);
  });
});
