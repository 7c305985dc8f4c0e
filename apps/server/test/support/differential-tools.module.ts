import { Injectable, Module } from '@nestjs/common';
import { inputRequired } from '@modelcontextprotocol/server';
import { Arg, CurrentUser, McpTool, McpToolContext, fail, ok, ToolContext, type UserInfo } from '@app/mcp';

class Point {
  constructor(
    readonly x: number,
    readonly y: number,
  ) {}
}

/** How often each tool ran, per app: a result handed from the fast lane to the SDK must not run the tool twice. */
export const invocations = new Map<string, number>();
const counted = <T>(name: string, value: T): T => {
  invocations.set(name, (invocations.get(name) ?? 0) + 1);
  return value;
};

/** Every result shape a tool can produce, for the fast lane's differential test. */
@Injectable()
export class DifferentialToolsService {
  @McpTool({ description: 'Returns a string.' })
  diffString(@Arg('text', { description: 'Text to return' }) text: string) {
    return counted('diff_string', `said: ${text}`);
  }

  @McpTool({ description: 'Returns an array.' })
  diffArray() {
    return counted('diff_array', ok([1, 2, 3]));
  }

  @McpTool({ description: 'Returns a number.' })
  diffNumber() {
    return counted('diff_number', ok(42));
  }

  @McpTool({ description: 'Returns nothing.' })
  diffNothing(): undefined {
    counted('diff_nothing', undefined);
    return undefined;
  }

  @McpTool({ description: 'Returns full content, with a key the SDK drops.' })
  diffContent() {
    return counted('diff_content', {
      content: [
        { type: 'text', text: 'a', extra: 'dropped?' },
        { type: 'text', text: 'b' },
      ],
      isError: false,
    });
  }

  @McpTool({ description: 'Returns a class instance as data.' })
  diffInstance() {
    return counted('diff_instance', new Point(1, 2));
  }

  @McpTool({ description: 'Returns data with an own __proto__ key.' })
  diffProto() {
    return counted('diff_proto', ok(JSON.parse('{"a":1,"__proto__":{"polluted":true}}')));
  }

  @McpTool({ description: 'Returns a date.' })
  diffDate() {
    return counted('diff_date', ok({ at: new Date(0) }));
  }

  @McpTool({ description: 'Returns a big unicode result.' })
  diffBig(@Arg('size', { description: 'Repetitions', type: 'integer', schema: { minimum: 1, maximum: 20000 } }) size: number) {
    return counted(
      'diff_big',
      ok({ text: 'héllo 世界 🌍 \u2028 "quoted" \\ '.repeat(size), nested: { list: Array.from({ length: 50 }, (_, index) => ({ index })) } }),
    );
  }

  @McpTool({ description: 'Fails in the engine convention.' })
  diffFail() {
    return counted('diff_fail', fail('it went wrong'));
  }

  @McpTool({ description: 'Throws.' })
  diffThrow(): never {
    counted('diff_throw', undefined);
    throw new Error('thrown on purpose');
  }

  @McpTool({ description: 'Echoes its arguments.' })
  diffArgs(
    @Arg('count', { description: 'An integer', type: 'integer', schema: { minimum: 0 } }) count: number,
    @Arg('label', { description: 'A label', optional: true }) label?: string,
  ) {
    return counted('diff_args', ok({ count, label: label ?? null }));
  }

  @McpTool({ description: 'Tells the caller who they are.' })
  diffWho(@CurrentUser() user: UserInfo) {
    return counted('diff_who', ok({ userId: typeof user.userId, email: user.email ?? null, sessionId: user.sessionId ?? null }));
  }

  @McpTool({ description: 'Asks for input without taking a tool context.' })
  diffAsk() {
    return counted(
      'diff_ask',
      inputRequired({
        inputRequests: { user_name: inputRequired.elicit({ message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } }) },
      }),
    );
  }

  @McpTool({ description: 'Takes a tool context (the SDK path only).' })
  async diffContext(@ToolContext() context: McpToolContext) {
    await context.log('info', 'hello');
    return counted('diff_context', ok({ done: true }));
  }
}

@Module({ providers: [DifferentialToolsService] })
export class DifferentialToolsModule {}

/** A tool with a non-object output schema: the SDK's 2025 codec rewrites it in `tools/list` and its results. */
@Injectable()
export class TypedArrayService {
  @McpTool({ description: 'Returns an array under an array output schema.', outputSchema: { type: 'array', items: { type: 'integer' } } })
  diffTypedArray() {
    return counted('diff_typed_array', ok([1]));
  }
}

@Module({ providers: [TypedArrayService] })
export class TypedArrayToolModule {}
