import 'reflect-metadata';
import { afterAll, beforeAll, beforeEach, describe, expect, it, jest } from '@jest/globals';
import {
  ForbiddenException,
  Injectable,
  Logger,
  UseGuards,
  UseInterceptors,
  type CallHandler,
  type CanActivate,
  type ExecutionContext,
  type NestInterceptor,
} from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { ProtocolError, type CallToolResult, type ServerContext } from '@modelcontextprotocol/server';
import { map, type Observable } from 'rxjs';
import { toAuthInfo, type UserInfo } from '../caller.js';
import { McpToolContext } from '../context/mcp-tool-context.js';
import { McpTool } from '../decorators/mcp-tool.decorator.js';
import { Arg, CurrentUser, ToolContext } from '../decorators/tool-parameter.decorators.js';
import { McpModule } from '../mcp.module.js';
import { AUTHENTICATION_REQUIRED, UnavailableError } from '@app/common';
import { McpRegistry } from './mcp-registry.js';
import { MCP_CONTEXT_TYPE } from './tool-invoker.js';
import { fail, ok } from './tool-result.js';

/** What each enhancer saw, so a test can tell it ran. */
const seen: { guards: string[]; interceptors: string[] } = { guards: [], interceptors: [] };
/** Every tool method that actually ran. */
const invoked: string[] = [];

@Injectable()
class DenyGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    seen.guards.push(`deny:${context.getType()}`);
    return false;
  }
}

@Injectable()
class AdminOnlyGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    seen.guards.push(`admin:${context.getType()}`);
    const user = context.getArgs().find((arg): arg is UserInfo => typeof arg === 'object' && arg !== null && 'userId' in arg);
    return user?.roles?.includes('admin') ?? false;
  }
}

@Injectable()
class ShoutInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    seen.interceptors.push(`shout:${context.getType()}`);
    return next.handle().pipe(map((value) => (typeof value === 'string' ? value.toUpperCase() : value)));
  }
}

@Injectable()
class GlucoseService {
  @McpTool({ description: 'Count readings above a goal' })
  countReadingsAboveGoal(
    @Arg('goal', { type: 'integer', description: 'Goal in mg/dL' }) goal: number,
    @Arg('days', { type: 'integer', default: 7 }) days: number,
    @Arg('unit', { enum: ['mg/dL', 'mmol/L'], default: 'mg/dL' }) unit: string,
  ) {
    invoked.push('count_readings_above_goal');
    return ok({ goal, days, unit });
  }

  @McpTool({ description: 'Echo after a tick' })
  async slowEcho(@Arg('text') text: string) {
    await new Promise((resolve) => setTimeout(resolve, 1));
    return ok({ text });
  }

  @McpTool({ description: 'Echo at once' })
  fastEcho(@Arg('text') text: string) {
    return ok({ text });
  }

  @McpTool({ description: 'Who is calling' })
  whoAmI(@CurrentUser() user: UserInfo) {
    invoked.push('who_am_i');
    return ok({ userId: user.userId, sessionId: user.sessionId });
  }

  @McpTool({ description: 'Session of the call' })
  sessionOf(@ToolContext() context: McpToolContext) {
    return ok({ isContext: context instanceof McpToolContext, sessionId: context.sessionId });
  }

  @McpTool({ description: 'Always fails' })
  explode(): never {
    throw new Error('sensor offline');
  }

  @McpTool({ description: 'Rejects with a domain error' })
  async rejectLater(): Promise<never> {
    throw new UnavailableError('upstream timed out');
  }

  @McpTool({ description: 'Rejects with an HTTP exception' })
  async refuseLater(): Promise<never> {
    throw new ForbiddenException('not your reading');
  }

  @McpTool({ description: 'Reports a failure' })
  noReadings() {
    return fail('No readings in range');
  }

  @McpTool({ description: 'Greets' })
  greet() {
    return 'hello';
  }

  @McpTool({
    name: 'search',
    title: 'Search readings',
    description: 'Search with a hand-written schema',
    inputSchema: { type: 'object', properties: { q: { type: 'string', minLength: 2 } }, required: ['q'], additionalProperties: false },
    outputSchema: { type: 'object', properties: { hits: { type: 'integer' } }, required: ['hits'] },
    annotations: { readOnlyHint: true, openWorldHint: false },
    meta: { 'mirobody/category': 'readings' },
  })
  searchReadings(@Arg('q') q: string) {
    return ok({ hits: q.length });
  }
}

@Injectable()
class GuardedService {
  @McpTool({ description: 'Denied by a method guard' })
  @UseGuards(DenyGuard)
  denied() {
    invoked.push('denied');
    return 'secret';
  }

  @McpTool({ description: 'Shouted by a method interceptor' })
  @UseInterceptors(ShoutInterceptor)
  shout(@Arg('text') text: string) {
    return text;
  }
}

@Injectable()
@UseGuards(AdminOnlyGuard)
@UseInterceptors(ShoutInterceptor)
class AdminService {
  @McpTool({ description: 'Admin greeting' })
  adminGreeting(@CurrentUser() user: UserInfo) {
    invoked.push('admin_greeting');
    return `welcome ${user.userId}`;
  }
}

/** The minimal `ServerContext` the registry reads; the caller travels in `http.authInfo.extra.caller`. */
function sdkContext(caller?: UserInfo, sessionId = 'session-1'): ServerContext {
  return {
    sessionId,
    mcpReq: { signal: new AbortController().signal, _meta: {}, notify: jest.fn(), log: jest.fn() },
    http: { authInfo: caller ? toAuthInfo(caller) : undefined },
  } as unknown as ServerContext;
}

const alice: UserInfo = { userId: 'user-alice', roles: ['patient'] };
const admin: UserInfo = { userId: 'user-admin', roles: ['admin'] };

function text(result: unknown): string {
  const { content } = result as CallToolResult;
  expect(content).toHaveLength(1);
  expect(content[0].type).toBe('text');
  return (content[0] as { text: string }).text;
}

describe('McpRegistry', () => {
  let moduleRef: TestingModule;
  let registry: McpRegistry;

  beforeAll(async () => {
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    moduleRef = await Test.createTestingModule({
      imports: [McpModule.forRoot({ serverInfo: { name: 't', version: '1' } })],
      providers: [GlucoseService, GuardedService, AdminService, DenyGuard, AdminOnlyGuard, ShoutInterceptor],
    }).compile();
    await moduleRef.init();
    registry = moduleRef.get(McpRegistry);
  });

  afterAll(async () => {
    await moduleRef?.close();
    jest.restoreAllMocks();
  });

  beforeEach(() => {
    invoked.length = 0;
    seen.guards.length = 0;
    seen.interceptors.length = 0;
  });

  it('warns at start-up about a name in an agent list that matches no tool, prompt or resource', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const withLists = await Test.createTestingModule({
      imports: [
        McpModule.forRoot({ serverInfo: { name: 't', version: '1' }, agentTools: { allowed: { KIOSK: ['fast_echo'] }, disallowed: { KIOSK: ['slow_ecoh'] } } }),
      ],
      providers: [GlucoseService],
    }).compile();
    await withLists.init();
    expect(warn).toHaveBeenCalledWith(
      'DISALLOWED_TOOLS_KIOSK names "slow_ecoh", which is no tool, prompt or resource of this server (did you mean "slow_echo"?): it matches nothing',
    );
    expect(warn.mock.calls.flat().join('\n')).not.toContain('fast_echo"');
    await withLists.close();
  });

  describe('argument validation', () => {
    it.each<[string, Record<string, unknown> | undefined, string]>([
      ['wrong type', { goal: 'high' }, 'argument "goal" must be integer'],
      ['missing required', {}, 'missing required argument "goal"'],
      ['no arguments at all', undefined, 'missing required argument "goal"'],
      ['unknown argument', { goal: 180, colour: 'red' }, 'unknown argument "colour"'],
      ['value outside the enum', { goal: 180, unit: 'kg' }, 'argument "unit" must be one of: "mg/dL", "mmol/L"'],
    ])('rejects %s without running the tool', async (_label, args, message) => {
      const result = (await registry.callTool('count_readings_above_goal', args, sdkContext())) as CallToolResult;
      expect(result.isError).toBe(true);
      expect(text(result)).toBe(`Invalid arguments for tool "count_readings_above_goal": ${message}`);
      expect(invoked).toEqual([]);
    });

    it('applies defaults before calling the tool', async () => {
      const result = (await registry.callTool('count_readings_above_goal', { goal: 180 }, sdkContext())) as CallToolResult;
      expect(result.isError).toBeUndefined();
      expect(result.structuredContent).toEqual({ goal: 180, days: 7, unit: 'mg/dL' });
    });

    it('validates against a hand-written inputSchema', async () => {
      const result = (await registry.callTool('search', { q: 'a' }, sdkContext())) as CallToolResult;
      expect(result.isError).toBe(true);
      expect(text(result)).toContain('argument "q" must NOT have fewer than 2 characters');
    });
  });

  describe('calling', () => {
    it.each([
      ['a sync method', 'fast_echo'],
      ['an async method', 'slow_echo'],
    ])('runs %s', async (_label, name) => {
      const result = (await registry.callTool(name, { text: 'hi' }, sdkContext())) as CallToolResult;
      expect(result).toEqual({ content: [{ type: 'text', text: '{"text":"hi"}' }], structuredContent: { text: 'hi' } });
    });

    it('throws a protocol error for an unknown tool', async () => {
      const attempt = registry.callTool('no_such_tool', {}, sdkContext());
      await expect(attempt).rejects.toBeInstanceOf(ProtocolError);
      await expect(attempt).rejects.toThrow('Unknown tool: no_such_tool');
    });

    it('hands @ToolContext() an McpToolContext for the call', async () => {
      const result = (await registry.callTool('session_of', {}, sdkContext(undefined, 'session-42'))) as CallToolResult;
      expect(result.structuredContent).toEqual({ isContext: true, sessionId: 'session-42' });
    });
  });

  describe('the caller', () => {
    it('answers "Authentication required" for a @CurrentUser tool called without a caller', async () => {
      const result = (await registry.callTool('who_am_i', {}, sdkContext())) as CallToolResult;
      expect(result.isError).toBe(true);
      expect(text(result)).toBe(AUTHENTICATION_REQUIRED);
      expect(text(result)).toMatch(/^Authentication required/);
      expect(invoked).toEqual([]);
    });

    it('hands the caller, with the session id, to @CurrentUser()', async () => {
      const result = (await registry.callTool('who_am_i', {}, sdkContext(alice, 'session-7'))) as CallToolResult;
      expect(result.structuredContent).toEqual({ userId: 'user-alice', sessionId: 'session-7' });
    });

    it('lets a tool without @CurrentUser run anonymously', async () => {
      const result = (await registry.callTool('greet', {}, sdkContext())) as CallToolResult;
      expect(text(result)).toBe('hello');
    });
  });

  describe('results', () => {
    it.each<[string, CallToolResult]>([
      ['no_readings', { content: [{ type: 'text', text: 'No readings in range' }], isError: true }],
      ['greet', { content: [{ type: 'text', text: 'hello' }] }],
      ['reject_later', { content: [{ type: 'text', text: 'upstream timed out' }], isError: true }],
      ['refuse_later', { content: [{ type: 'text', text: 'not your reading' }], isError: true }],
    ])('%s', async (name, expected) => {
      expect(await registry.callTool(name, {}, sdkContext())).toEqual(expected);
    });

    it('hides an unexpected error behind the request id and logs its stack with that id', async () => {
      const error = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
      error.mockClear();
      const result = await registry.callTool('explode', {}, {
        ...sdkContext(alice),
        http: { authInfo: toAuthInfo(alice, { requestId: 'req-42' }) },
      } as ServerContext);
      expect(result).toEqual({ content: [{ type: 'text', text: 'Internal error (request id req-42)' }], isError: true });
      expect(error).toHaveBeenCalledWith(
        'Tool explode failed (request id req-42): Error: sensor offline',
        expect.stringMatching(/^\s+at GlucoseService.explode /),
      );
    });

    it('makes up a request id for an anonymous call, and logs the same one', async () => {
      const error = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
      error.mockClear();
      const result = (await registry.callTool('explode', {}, sdkContext())) as CallToolResult;
      const id = /^Internal error \(request id ([0-9a-f-]{36})\)$/.exec(text(result))?.[1];
      expect(id).toBeDefined();
      expect(String(error.mock.calls[0]![0])).toContain(`request id ${id}`);
    });
  });

  describe('guards and interceptors', () => {
    it('applies a guard on the method', async () => {
      const result = (await registry.callTool('denied', {}, sdkContext())) as CallToolResult;
      expect(result.isError).toBe(true);
      expect(text(result)).toBe('Forbidden resource');
      expect(seen.guards).toEqual([`deny:${MCP_CONTEXT_TYPE}`]);
      expect(invoked).toEqual([]);
    });

    it('applies an interceptor on the method', async () => {
      const result = await registry.callTool('shout', { text: 'quiet please' }, sdkContext());
      expect(text(result)).toBe('QUIET PLEASE');
      expect(seen.interceptors).toEqual([`shout:${MCP_CONTEXT_TYPE}`]);
    });

    it.each<[string, UserInfo, boolean, string]>([
      ['lets an admin through the class guard and the class interceptor', admin, false, 'WELCOME USER-ADMIN'],
      ['stops a non-admin at the class guard', alice, true, 'Forbidden resource'],
    ])('%s', async (_label, caller, isError, expected) => {
      const result = (await registry.callTool('admin_greeting', {}, sdkContext(caller))) as CallToolResult;
      expect(Boolean(result.isError)).toBe(isError);
      expect(text(result)).toBe(expected);
      expect(seen.guards).toEqual([`admin:${MCP_CONTEXT_TYPE}`]);
      expect(invoked).toEqual(isError ? [] : ['admin_greeting']);
    });

    it('runs no enhancer for a tool that declares none', async () => {
      await registry.callTool('greet', {}, sdkContext());
      expect(seen).toEqual({ guards: [], interceptors: [] });
    });
  });

  describe('tools/list', () => {
    it('publishes every tool once', () => {
      const names = registry.listTools().tools.map((tool) => tool.name);
      expect(names).toEqual(expect.arrayContaining(['count_readings_above_goal', 'slow_echo', 'who_am_i', 'search', 'denied', 'admin_greeting']));
      expect(new Set(names).size).toBe(names.length);
      expect(registry.size).toBe(names.length);
    });

    it('keeps @CurrentUser() out of the published schema', () => {
      expect(registry.getTool('who_am_i')?.definition.inputSchema).toEqual({ type: 'object', properties: {}, additionalProperties: false });
    });

    it('publishes a hand-written inputSchema verbatim, meta as _meta, annotations, title and outputSchema', () => {
      expect(registry.getTool('search')?.definition).toEqual({
        name: 'search',
        title: 'Search readings',
        description: 'Search with a hand-written schema',
        inputSchema: { type: 'object', properties: { q: { type: 'string', minLength: 2 } }, required: ['q'], additionalProperties: false },
        outputSchema: { type: 'object', properties: { hits: { type: 'integer' } }, required: ['hits'] },
        annotations: { readOnlyHint: true, openWorldHint: false },
        _meta: { 'mirobody/category': 'readings' },
      });
    });

    it('leaves out the options a tool does not set', () => {
      expect(registry.getTool('greet')?.definition).toEqual({
        name: 'greet',
        description: 'Greets',
        inputSchema: { type: 'object', properties: {}, additionalProperties: false },
      });
    });
  });

  describe('LLM function descriptors', () => {
    const countSchema = {
      type: 'object',
      properties: {
        goal: { type: 'integer', description: 'Goal in mg/dL' },
        days: { type: 'integer', default: 7 },
        unit: { type: 'string', enum: ['mg/dL', 'mmol/L'], default: 'mg/dL' },
      },
      required: ['goal'],
      additionalProperties: false,
    };

    it('OpenAI Chat Completions', () => {
      expect(registry.toOpenAiChatTools()).toContainEqual({
        type: 'function',
        function: { name: 'count_readings_above_goal', description: 'Count readings above a goal', parameters: countSchema },
      });
    });

    it('OpenAI Responses', () => {
      expect(registry.toOpenAiResponsesTools()).toContainEqual({
        type: 'function',
        name: 'count_readings_above_goal',
        description: 'Count readings above a goal',
        parameters: countSchema,
      });
    });

    it('Gemini, without additionalProperties', () => {
      const { additionalProperties: _dropped, ...geminiSchema } = countSchema;
      expect(registry.toGeminiFunctionDeclarations()).toContainEqual({
        name: 'count_readings_above_goal',
        description: 'Count readings above a goal',
        parameters: geminiSchema,
      });
    });

    it.each([
      ['toOpenAiChatTools', () => registry.toOpenAiChatTools()],
      ['toOpenAiResponsesTools', () => registry.toOpenAiResponsesTools()],
      ['toGeminiFunctionDeclarations', () => registry.toGeminiFunctionDeclarations()],
    ])('%s describes every listed tool', (_name, describeTools) => {
      expect(describeTools()).toHaveLength(registry.listTools().tools.length);
    });
  });
});

@Injectable()
class ScopedNotesService {
  @McpTool({ description: 'Reads notes', scopes: ['notes:read'] })
  readNotes(@CurrentUser() user: UserInfo) {
    return ok({ reader: user.userId });
  }

  @McpTool({ description: 'Writes notes', scopes: ['notes:read', 'notes:write'] })
  writeNotes() {
    return ok({ written: true });
  }

  @McpTool({ description: 'Open to every caller' })
  openNotes() {
    return ok({ open: true });
  }
}

describe('McpRegistry and scopes', () => {
  let moduleRef: TestingModule;
  let registry: McpRegistry;
  const names = (scopes?: readonly string[]) => registry.listTools(undefined, scopes).tools.map((tool) => tool.name);

  beforeAll(async () => {
    moduleRef = await Test.createTestingModule({
      imports: [McpModule.forRoot({ serverInfo: { name: 't', version: '1' } })],
      providers: [ScopedNotesService],
    }).compile();
    await moduleRef.init();
    registry = moduleRef.get(McpRegistry);
  });

  afterAll(() => moduleRef?.close());

  it('lists everything to a caller not limited by scopes, and to a scoped one only what all its scopes allow', () => {
    expect(names()).toEqual(['read_notes', 'write_notes', 'open_notes']);
    expect(names([])).toEqual(['open_notes']);
    expect(names(['notes:read', 'openid'])).toEqual(['read_notes', 'open_notes']);
    expect(names(['notes:write'])).toEqual(['open_notes']);
    expect(names(['notes:write', 'notes:read'])).toEqual(['read_notes', 'write_notes', 'open_notes']);
  });

  it('builds one list per combination of the scopes tools use, whatever else a token carries', () => {
    expect(registry.listTools(undefined, ['notes:read', 'openid'])).toBe(registry.listTools(undefined, ['profile', 'notes:read']));
  });

  it('refuses a call whose scopes the caller lacks before the tool runs, naming them', async () => {
    const limited: UserInfo = { userId: 'u1', scopes: ['notes:read'] };
    const refused = (await registry.call('write_notes', {}, limited)) as CallToolResult;
    expect(refused.isError).toBe(true);
    expect(text(refused)).toBe('Insufficient scope: tool "write_notes" needs "notes:write", which your token does not grant');
    expect(((await registry.call('read_notes', {}, limited)) as CallToolResult).structuredContent).toEqual({ reader: 'u1' });
    expect(((await registry.call('write_notes', {}, { userId: 'u2' })) as CallToolResult).structuredContent).toEqual({ written: true });
  });

  it('asks anonymous callers of a scoped tool to authenticate, even when the method takes no caller', async () => {
    expect(text((await registry.call('write_notes', {}, undefined)) as CallToolResult)).toBe(AUTHENTICATION_REQUIRED);
  });
});
