import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  Injectable,
  Module,
  ServiceUnavailableException,
  type CallHandler,
  type CanActivate,
  type ExecutionContext,
  type NestInterceptor,
} from '@nestjs/common';
import { APP_GUARD, APP_INTERCEPTOR } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { bearer, cliToken, TEST_JWT_SECRET, withClient } from './support/auth.js';
import { rawRequest } from './support/raw-http.js';
import { ERAS, JSON_HEADERS, postRaw, startApp, type RunningApp } from './support/test-app.js';

/** A company's own policy for every route: requests marked for maintenance are turned away with a Retry-After. */
@Injectable()
class MaintenanceGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    if (request.headers['x-maintenance'] !== 'on') return true;
    context.switchToHttp().getResponse<FastifyReply>().header('retry-after', '30');
    throw new ServiceUnavailableException('Down for maintenance');
  }
}

const seenPaths: string[] = [];

/** And one that watches every HTTP request. */
@Injectable()
class AuditInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler) {
    if (context.getType() === 'http') seenPaths.push(context.switchToHttp().getRequest<FastifyRequest>().url);
    return next.handle();
  }
}

@Module({
  providers: [
    { provide: APP_GUARD, useClass: MaintenanceGuard },
    { provide: APP_INTERCEPTOR, useClass: AuditInterceptor },
  ],
})
class CompanyPolicyModule {}

const ENV = { JWT_SECRET: TEST_JWT_SECRET, RATE_LIMIT_ANONYMOUS_REQUESTS: '5', RATE_LIMIT_WINDOW_SECONDS: '60' };
const echo = JSON.stringify({ jsonrpc: '2.0', id: 'e-1', method: 'tools/call', params: { name: 'echo', arguments: { text: 'x' } } });
const MAINTENANCE = { ...JSON_HEADERS, 'x-maintenance': 'on' };

describe('the application’s global guards and interceptors around /mcp', () => {
  let running: RunningApp;
  let token: string;

  beforeAll(async () => {
    running = await startApp(ENV, { imports: [CompanyPolicyModule] });
    token = await cliToken(running, ENV, '--sub', 'policy-user');
  });

  afterAll(async () => {
    await running.close();
  });

  it('refuse /mcp as a whole, for anonymous callers and users alike, as a JSON-RPC error with the guard’s status and headers', async () => {
    for (const headers of [MAINTENANCE, { ...MAINTENANCE, ...bearer(token) }]) {
      const refused = await postRaw(running.url, echo, headers);
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('30');
      expect(refused.json()).toEqual({ jsonrpc: '2.0', error: { code: -32000, message: 'Down for maintenance' }, id: 'e-1' });
    }
  });

  it('refuse however the target is spelled, the secret URL included', async () => {
    for (const target of ['/mc%70', '/%6dcp', `http://127.0.0.1:${running.url.port}/mcp`, '/mcp/mrb_sk_not-a-real-secret']) {
      expect([target, (await rawRequest(running.url, target, { headers: MAINTENANCE, body: echo })).status]).toEqual([target, 503]);
    }
  });

  it('refuse the REST routes the same way', async () => {
    const listed = await fetch(new URL('/api/mcp-secrets', running.url), { headers: { ...bearer(token), 'x-maintenance': 'on' } });
    expect(listed.status).toBe(503);
  });

  it('let everything else through to the tools, with the interceptor seeing each /mcp request', async () => {
    for (const era of ERAS) {
      const before = seenPaths.filter((path) => path === '/mcp').length;
      const result = await withClient(running.url, era, bearer(token), (client) => client.callTool({ name: 'whoami', arguments: {} }));
      expect(result.structuredContent).toMatchObject({ authenticated: true });
      expect(seenPaths.filter((path) => path === '/mcp').length).toBeGreaterThan(before);
    }
  });

  it('still count the rate limit of /mcp behind them', async () => {
    // Requests the guard turned away above were never counted: the address has its whole budget of 5.
    const statuses: number[] = [];
    for (let call = 0; call < 7; call++) statuses.push((await postRaw(running.url, echo)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
  });
});
