import 'reflect-metadata';
import { describe, expect, it } from '@jest/globals';
import { McpTool } from '../decorators/mcp-tool.decorator.js';
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
