import 'reflect-metadata';
import { describe, expect, it } from '@jest/globals';
import { McpTool } from '../decorators/mcp-tool.decorator.js';
import { McpTools } from '../decorators/mcp-tools.decorator.js';
import { Arg, CurrentUser } from '../decorators/tool-parameter.decorators.js';
import type { UserInfo } from '../caller.js';
import { describeProvider, hasMcpMetadata, ownPublicMethodNames, toSnakeCase } from './describe-provider.js';

describe('toSnakeCase', () => {
  it.each([
    ['countReadingsAboveGoal', 'count_readings_above_goal'],
    ['echo', 'echo'],
    ['getHTTPStatus', 'get_http_status'],
    ['parseURL', 'parse_url'],
    ['sum2Values', 'sum2_values'],
    ['already_snake', 'already_snake'],
    ['HbA1cTrend', 'hb_a1c_trend'],
  ])('%s → %s', (input, expected) => {
    expect(toSnakeCase(input)).toBe(expected);
  });
});

class BaseService {
  @McpTool({ description: 'inherited' })
  inherited() {}
}

class ChildService extends BaseService {
  @McpTool({ description: 'own' })
  own() {}

  @McpTool({ description: 'private' })
  _private() {}

  plain() {}

  get computed(): number {
    return 1;
  }

  static factory() {}
}

class UndecoratedService {
  run() {}
}

describe('ownPublicMethodNames', () => {
  it('lists only methods the class declares itself, skipping _names, accessors and statics', () => {
    expect(ownPublicMethodNames(ChildService.prototype)).toEqual(['own', 'plain']);
  });
});

describe('hasMcpMetadata', () => {
  it.each<[string, object, boolean]>([
    ['own decorated method', ChildService.prototype, true],
    ['only an inherited decorated method', Object.create(BaseService.prototype), true],
    ['no decorated method', UndecoratedService.prototype, false],
  ])('%s → %s', (_label, prototype, expected) => {
    expect(hasMcpMetadata(prototype)).toBe(expected);
  });
});

describe('describeProvider', () => {
  it('makes tools of own public decorated methods only', () => {
    const { tools } = describeProvider(new ChildService(), 'ChildService');
    expect(tools.map((tool) => [tool.name, tool.methodName])).toEqual([['own', 'own']]);
  });

  it('names the tool after the method in snake_case unless a name is given', () => {
    class NamingService {
      @McpTool({ description: 'd' })
      countReadingsAboveGoal(@Arg('goal') goal: number) {
        return goal;
      }

      @McpTool({ name: 'latest_reading', description: 'd' })
      getLatest() {}
    }
    const { tools } = describeProvider(new NamingService(), 'NamingService');
    expect(tools.map((tool) => tool.name)).toEqual(['count_readings_above_goal', 'latest_reading']);
  });

  it('warns about a tool without a description', () => {
    class VagueService {
      @McpTool()
      doSomething() {}
    }
    const [tool] = describeProvider(new VagueService(), 'VagueService').tools;
    expect(tool.warnings).toEqual(['VagueService.doSomething: tool has no description; models decide whether to call a tool from it']);
  });

  it('marks the tools that take the caller', () => {
    class MixedService {
      @McpTool({ description: 'd' })
      anonymous(@Arg('q') q: string) {
        return q;
      }

      @McpTool({ description: 'd' })
      personal(@CurrentUser() user: UserInfo) {
        return user.userId;
      }
    }
    const { tools } = describeProvider(new MixedService(), 'MixedService');
    expect(tools.map((tool) => [tool.name, tool.requiresCaller])).toEqual([
      ['anonymous', false],
      ['personal', true],
    ]);
  });
});

describe('scopes', () => {
  @McpTools({ scopes: ['files:read'] })
  class ScopedTools {
    @McpTool({ description: 'class scope only' })
    listThings() {}

    @McpTool({ description: 'class and own scopes', scopes: ['files:write', 'files:read'] })
    writeThing() {}
  }

  class OpenService {
    @McpTool({ description: 'no scopes' })
    open(@CurrentUser() _user: UserInfo) {}

    @McpTool({ description: 'own scope, no caller parameter', scopes: ['charts:render'] })
    chart() {}
  }

  const tools = (instance: object) => Object.fromEntries(describeProvider(instance, instance.constructor.name).tools.map((tool) => [tool.name, tool]));

  it("are the class's and the method's, each once, sorted", () => {
    const found = tools(new ScopedTools());
    expect(found.list_things!.scopes).toEqual(['files:read']);
    expect(found.write_thing!.scopes).toEqual(['files:read', 'files:write']);
  });

  it('make a tool require a caller, even one that takes no @CurrentUser()', () => {
    const found = tools(new OpenService());
    expect(found.open!).toMatchObject({ scopes: [], requiresCaller: true });
    expect(found.chart!).toMatchObject({ scopes: ['charts:render'], requiresCaller: true });
  });

  it.each([['files read'], ['files"read'], ['files\\read'], [''], ['fïles:read']])('refuse %j, which is no OAuth scope token, naming the tool', (scope) => {
    class BadScopeService {
      @McpTool({ description: 'bad', scopes: [scope] })
      bad() {}
    }
    expect(() => describeProvider(new BadScopeService(), 'BadScopeService')).toThrow(
      `BadScopeService.bad: the scope ${JSON.stringify(scope)} is not an OAuth scope token. Fix: use printable ASCII without spaces, quotes or backslashes, e.g. "files:read"`,
    );
  });
});
