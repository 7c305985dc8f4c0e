import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Global, Injectable, Module, UnauthorizedException } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyRequest } from 'fastify';
import { CALLER_RESOLVER, type CallerResolver } from '@app/common';
import { MCP_CALL_OBSERVER, type McpCallObserver, type ToolCallEvent, type UserInfo } from '../caller.js';
import { Arg, CurrentUser } from '../decorators/tool-parameter.decorators.js';
import { McpTool } from '../decorators/mcp-tool.decorator.js';
import { McpModule } from '../mcp.module.js';
import { registerMcpBodyParsers } from './mcp-body-parsers.js';

/** Stands in for the auth module: `x-test-user: <id>` is a valid credential, `revoked` an invalid one, `crash` a failing store. */
@Injectable()
class HeaderCallerResolver implements CallerResolver {
  async resolve(request: FastifyRequest): Promise<UserInfo | undefined> {
    const user = request.headers['x-test-user'] as string | undefined;
    if (user === 'revoked') throw new UnauthorizedException('Credential revoked');
    if (user === 'crash') throw new Error('user store unreachable');
    return user ? { userId: user, email: `${user}@example.com` } : undefined;
  }
}

@Injectable()
class RecordingObserver implements McpCallObserver {
  readonly events: ToolCallEvent[] = [];
  toolCalled(event: ToolCallEvent): void {
    this.events.push(event);
  }
}

@Injectable()
class ProfileService {
  @McpTool({ description: 'Who is calling' })
  whoIsCalling(@CurrentUser() user: UserInfo, @Arg('note', { optional: true }) note?: string) {
    return { userId: user.userId, note };
  }
}

@Global()
@Module({
  providers: [
    ProfileService,
    RecordingObserver,
    { provide: CALLER_RESOLVER, useClass: HeaderCallerResolver },
    { provide: MCP_CALL_OBSERVER, useExisting: RecordingObserver },
  ],
  exports: [CALLER_RESOLVER, MCP_CALL_OBSERVER],
})
class TestAuthModule {}

const METADATA_URL = 'https://mcp.example.com/.well-known/oauth-protected-resource';
let app: NestFastifyApplication;
let url: string;

beforeAll(async () => {
  const adapter = new FastifyAdapter();
  registerMcpBodyParsers(adapter.getInstance());
  const root = {
    module: class Root {},
    imports: [TestAuthModule, McpModule.forRoot({ serverInfo: { name: 't', version: '1' }, resourceMetadataUrl: METADATA_URL })],
  };
  app = await NestFactory.create<NestFastifyApplication>(root, adapter, { logger: false, bodyParser: false });
  await app.listen(0, '127.0.0.1');
  url = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}/mcp`;
});

afterAll(() => app.close());

const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
async function callWhoIsCalling(extraHeaders: Record<string, string>, args: Record<string, unknown> = {}, path = '') {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'who_is_calling', arguments: args } });
  const response = await fetch(url + path, { method: 'POST', headers: { ...headers, ...extraHeaders }, body });
  return { status: response.status, challenge: response.headers.get('www-authenticate'), body: await response.json() };
}

describe('the caller reaches tools only through the resolver', () => {
  it('hands the resolved caller to @CurrentUser and reports the call to the observer', async () => {
    const observer = app.get(RecordingObserver);
    const answer = await callWhoIsCalling({ 'x-test-user': 'alice' });
    expect(answer.body.result.structuredContent).toEqual({ userId: 'alice' });
    expect(observer.events.at(-1)).toMatchObject({ tool: 'who_is_calling', success: true, caller: { userId: 'alice' } });
  });

  it('challenges an anonymous call of an auth tool with 401 naming the resource metadata', async () => {
    const answer = await callWhoIsCalling({});
    expect(answer.status).toBe(401);
    expect(answer.challenge).toBe(`Bearer resource_metadata="${METADATA_URL}"`);
    expect(answer.body.id).toBe(1);
  });

  it('names the request id in a 401 and a 406 when the body could be read, and null when it could not', async () => {
    const post = (extraHeaders: Record<string, string>, body: string) =>
      fetch(url, { method: 'POST', headers: { ...headers, ...extraHeaders }, body }).then(async (response) => ({
        status: response.status,
        body: await response.json(),
      }));
    const call = (id: unknown) => JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'who_is_calling', arguments: {} } });
    expect(await post({ 'x-test-user': 'revoked' }, call('abc'))).toMatchObject({ status: 401, body: { id: 'abc' } });
    expect(await post({}, call(7))).toMatchObject({ status: 401, body: { id: 7 } });
    expect(await post({ accept: 'text/html', 'x-test-user': 'alice' }, call(8))).toMatchObject({
      status: 406,
      body: { id: 8, error: { code: -32000 } },
    });
    expect(await post({ accept: 'text/event-stream', 'x-test-user': 'alice' }, call('x'))).toMatchObject({ status: 406, body: { id: 'x' } });
    expect(await post({ 'x-test-user': 'revoked' }, '[1, 2')).toMatchObject({ status: 401, body: { id: null } });
    expect(await post({ 'x-test-user': 'revoked' }, `[${call(9)}]`)).toMatchObject({ status: 401, body: { id: null } });
  });

  it('answers 401 to an invalid credential on any request', async () => {
    const answer = await callWhoIsCalling({ 'x-test-user': 'revoked' });
    expect(answer.status).toBe(401);
    expect(answer.body.error.message).toBe('Credential revoked');
  });

  it('answers 500 when resolving the caller fails unexpectedly, and keeps serving', async () => {
    const failed = await callWhoIsCalling({ 'x-test-user': 'crash' });
    expect(failed.status).toBe(500);
    expect(failed.body.error.code).toBe(-32603);
    expect((await callWhoIsCalling({ 'x-test-user': 'dave' })).body.result.structuredContent).toEqual({ userId: 'dave' });
  });

  it('refuses a user id smuggled in as an argument, and the caller stays who they are', async () => {
    const answer = await callWhoIsCalling({ 'x-test-user': 'alice' }, { user_id: 'bob', userId: 'bob' });
    expect(answer.body.result.isError).toBe(true);
    expect(answer.body.result.content[0].text).toContain('unknown argument "user_id"');
  });

  it('keeps concurrent callers apart', async () => {
    const users = Array.from({ length: 30 }, (_, index) => `user-${index}`);
    const answers = await Promise.all(users.map((user) => callWhoIsCalling({ 'x-test-user': user }, { note: user })));
    for (const [index, answer] of answers.entries()) {
      expect(answer.body.result.structuredContent).toEqual({ userId: users[index], note: users[index] });
    }
  });

  it('serves the /mcp/<secret> form of the endpoint', async () => {
    const answer = await callWhoIsCalling({ 'x-test-user': 'carol' }, {}, '/some-secret');
    expect(answer.body.result.structuredContent).toEqual({ userId: 'carol' });
  });
});
