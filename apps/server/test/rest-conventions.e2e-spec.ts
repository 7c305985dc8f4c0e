import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { compileErrors, validate } from '@readme/openapi-parser';
import { Controller, Get, Module } from '@nestjs/common';
import { bearer, signHs256, TEST_JWT_SECRET } from './support/auth.js';
import { startApp, type RunningApp } from './support/test-app.js';

const ENV = { JWT_SECRET: TEST_JWT_SECRET, RATE_LIMIT_REQUESTS: '4', RATE_LIMIT_ANONYMOUS_REQUESTS: '100' };

/** Every /api and /admin route of the app, as `METHOD /path` with OpenAPI's `{param}`. */
const ROUTES = [
  'post /api/mcp-secrets',
  'get /api/mcp-secrets',
  'delete /api/mcp-secrets/{id}',
  'get /api/me/connections',
  'delete /api/me/connections/{id}',
  'get /api/me/export',
  'delete /api/me',
  'get /admin/users',
  'get /admin/users/{id}',
  'post /admin/users/{id}/disable',
  'post /admin/users/{id}/enable',
  'delete /admin/users/{id}',
  'get /admin/users/{id}/connections',
  'delete /admin/users/{id}/connections/{connectionId}',
  'get /admin/users/{id}/mcp-secrets',
  'delete /admin/users/{id}/mcp-secrets/{secretId}',
  'get /admin/users/{id}/export',
  'get /admin/connections',
  'get /admin/approvals',
  'get /admin/approvals/{id}',
  'get /admin/audit',
  'get /admin/audit/export',
  'post /api/files',
  'post /api/files/raw',
  'get /api/files',
  'get /api/files/{key}',
  'get /api/files/{key}/content',
  'get /api/files/{key}/text',
  'post /api/files/{key}/extraction',
  'delete /api/files/{key}',
  'get /admin/users/{userId}/files',
  'get /admin/users/{userId}/files/{key}',
  'get /admin/users/{userId}/files/{key}/content',
  'get /admin/users/{userId}/files/{key}/text',
  'post /admin/users/{userId}/files/{key}/extraction',
  'get /admin/files',
  'delete /admin/users/{userId}/files',
  'delete /admin/users/{userId}/files/{key}',

  // Care circles, FHIR and conversations (libs/health, libs/conversations).
  'post /api/circles',
  'get /api/circles',
  'patch /api/circles/{circleId}',
  'delete /api/circles/{circleId}',
  'post /api/circles/{circleId}/invitations',
  'post /api/invitations/accept',
  'post /api/invitations/decline',
  'get /api/invitations',
  'post /api/invitations/{invitationId}/accept',
  'post /api/invitations/{invitationId}/decline',
  'get /api/circles/{circleId}/members',
  'patch /api/circles/{circleId}/members/me',
  'patch /api/circles/{circleId}/members/{memberId}',
  'delete /api/circles/{circleId}/members/{memberId}',
  'post /api/circles/{circleId}/leave',
  'post /api/fhir',
  'post /api/fhir/Observation',
  'get /api/fhir/Observation',
  'get /api/fhir/Observation/{id}',
  'get /api/fhir/Observation/{id}/_history/{versionId}',
  'delete /api/fhir/Observation/{id}',
  'get /api/conversations',
  'delete /api/conversations/{conversationId}',
  // Long-term memory (libs/memory).
  'get /api/memories',
  'post /api/memories',
  'get /api/memories/export',
  'get /api/memories/{id}',
  'get /api/memories/{id}/history',
  'patch /api/memories/{id}',
  'delete /api/memories/{id}',
  'get /admin/users/{userId}/memories',
  'get /admin/users/{userId}/memories/{id}',
  'get /admin/users/{userId}/memories/{id}/history',
  'patch /admin/users/{userId}/memories/{id}',
  'delete /admin/users/{userId}/memories',
  'delete /admin/users/{userId}/memories/{id}',
  // The tool catalog (apps/server).
  'get /admin/tools',
  // Backups (apps/server) and the storage check (libs/files).
  'post /admin/backup',
  'get /admin/files/check',
  // The console's overview, tasks and tools (apps/server).
  'get /admin/overview',
  'get /api/tasks',
  'post /api/tasks/{id}/cancel',
  'get /admin/tasks',
  'post /admin/approvals/{id}/approve',
  'post /admin/approvals/{id}/decline',
  'post /admin/tasks/{id}/cancel',
  'get /api/tools',
  'post /api/tools/{name}/call',
  // The web console's session (libs/auth).
  'get /api/console/session',
  'delete /api/console/session',
];

let running: RunningApp;

beforeAll(async () => {
  running = await startApp(ENV);
}, 120_000);

afterAll(() => running?.close());

describe('the OpenAPI document', () => {
  it('validates as OpenAPI 3 and names every /api and /admin route with its security', async () => {
    const response = await fetch(new URL('/openapi.json', running.url));
    expect(response.status).toBe(200);
    const document = (await response.json()) as {
      openapi: string;
      paths: Record<string, Record<string, { security?: unknown[] }>>;
      components: { securitySchemes: Record<string, unknown> };
    };
    const result = await validate(structuredClone(document) as never);
    expect(result.valid ? '' : compileErrors(result)).toBe('');
    expect(document.openapi).toMatch(/^3\./);
    const documented = Object.entries(document.paths).flatMap(([path, operations]) => Object.keys(operations).map((method) => `${method} ${path}`));
    expect(documented.filter((route) => / \/(api|admin)\//.test(route)).sort()).toEqual([...ROUTES].sort());
    for (const route of ROUTES) {
      const [method, path] = route.split(' ') as [string, string];
      expect(document.paths[path]![method]!.security).toEqual(expect.arrayContaining([{ jwt: [] }]));
    }
    expect(Object.keys(document.components.securitySchemes).sort()).toEqual(['jwt', 'mcp-secret']);
  });

  it('is browsable at /docs', async () => {
    const page = await fetch(new URL('/docs', running.url));
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await page.text()).toContain('/openapi.json');
    const bundle = await fetch(new URL('/docs/swagger-ui-bundle.js', running.url));
    expect(bundle.status).toBe(200);
  });
});

describe('request bodies', () => {
  it('answer 400 naming each bad field', async () => {
    const token = await signHs256(TEST_JWT_SECRET, { sub: 'validator' });
    const response = await fetch(new URL('/api/mcp-secrets', running.url), {
      method: 'POST',
      headers: { ...bearer(token), 'content-type': 'application/json' },
      body: JSON.stringify({ label: '', agent: 7, expiresAt: 'tomorrow', owner: 'someone-else' }),
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { statusCode: number; error: string; message: string; fields: Record<string, string> };
    expect(body).toMatchObject({ statusCode: 400, error: 'Bad Request' });
    expect(Object.keys(body.fields).sort()).toEqual(['agent', 'expiresAt', 'label', 'owner']);
    expect(body.fields.owner).toMatch(/should not exist/);
    expect(body.message).toContain('label');
  });

  it('answer 400 for a body that is not a JSON object', async () => {
    const token = await signHs256(TEST_JWT_SECRET, { sub: 'validator' });
    for (const body of ['[]', '"text"', 'null']) {
      const response = await fetch(new URL('/api/mcp-secrets', running.url), {
        method: 'POST',
        headers: { ...bearer(token), 'content-type': 'application/json' },
        body,
      });
      expect(response.status).toBe(400);
    }
  });
});

describe('rate limits', () => {
  it('apply to /admin routes as to /api ones', async () => {
    const token = await signHs256(TEST_JWT_SECRET, { sub: 'busy-admin', roles: ['admin'] });
    const statuses: number[] = [];
    // A credential's first request counts against the client address (it is not yet verified); its own budget of 4 starts after it.
    for (let index = 0; index < 6; index++) statuses.push((await fetch(new URL('/admin/audit', running.url), { headers: bearer(token) })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
  });
});

@Controller('api/open')
class OpenController {
  @Get()
  everyone() {
    return 'anyone may';
  }
}

@Module({ controllers: [OpenController] })
class OpenModule {}

describe('a route under /api that does not say who may call it', () => {
  it('stops start-up, named', async () => {
    await expect(startApp(ENV, { imports: [OpenModule] })).rejects.toThrow('missing on OpenController.everyone (/api/open)');
  }, 120_000);
});
