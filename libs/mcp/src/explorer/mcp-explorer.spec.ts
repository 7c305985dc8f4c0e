import 'reflect-metadata';
import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { Injectable, Logger, type DynamicModule, type Provider } from '@nestjs/common';
import { ConfigModule, ConfigService } from '@nestjs/config';
import { INJECTABLE_WATERMARK } from '@nestjs/common/constants.js';
import { DiscoveryModule } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { McpTool } from '../decorators/mcp-tool.decorator.js';
import { McpTools } from '../decorators/mcp-tools.decorator.js';
import { Arg } from '../decorators/tool-parameter.decorators.js';
import { McpModule } from '../mcp.module.js';
import { ToolDefinitionError } from '../schema/tool-definition.error.js';
import type { DiscoveredCapabilities } from './descriptors.js';
import { McpExplorer } from './mcp-explorer.service.js';

@Injectable()
class ReadingsService {
  @McpTool({ description: 'Count readings above a goal' })
  countReadingsAboveGoal(@Arg('goal') goal: number) {
    return goal;
  }

  @McpTool({ name: 'latest', description: 'Latest reading' })
  getLatestReading() {}

  @McpTool({ description: 'Never published' })
  _recompute() {}

  helper() {}
}

class BaseReportService {
  @McpTool({ description: 'Inherited, not published' })
  inheritedReport() {}
}

@Injectable()
class WeeklyReportService extends BaseReportService {
  @McpTool({ description: 'Weekly report' })
  weeklyReport() {}
}

@Injectable()
class ReadingsRepository {
  @McpTool({ description: 'On a class not named *Service' })
  misplaced() {}
}

/** Marked as a tool class, so its name does not matter. */
@McpTools()
class GlucoseTools {
  @McpTool({ description: 'Latest glucose reading' })
  latestGlucose() {
    return 5.4;
  }
}

@Injectable()
class AlphaService {
  @McpTool({ name: 'lookup', description: 'Alpha lookup' })
  find() {}
}

@Injectable()
class BetaService {
  @McpTool({ description: 'Beta lookup' })
  lookup() {}
}

@Injectable()
class TagsService {
  @McpTool({ description: 'Tag readings' })
  tag(@Arg('tags') tags: string[]) {
    return tags;
  }
}

@Injectable()
class SloppyService {
  @McpTool()
  lookupUser(@Arg('userId') userId: string) {
    return userId;
  }
}

@Injectable()
class DisabledService {
  static enabled(): boolean {
    return false;
  }

  @McpTool({ description: 'Hidden' })
  hiddenTool() {}
}

@Injectable()
class ThrowingService {
  static enabled(): boolean {
    throw new Error('WEATHER_API_KEY is not set');
  }

  @McpTool({ description: 'Broken' })
  brokenTool() {}
}

@Injectable()
class FeatureService {
  static enabled(config: ConfigService | undefined): boolean {
    return config?.get('FEATURE_X') === 'on';
  }

  @McpTool({ description: 'Behind a feature flag' })
  featureTool() {}
}

const featureOn = (): Promise<DynamicModule> => ConfigModule.forRoot({ ignoreEnvFile: true, load: [() => ({ FEATURE_X: 'on' })] });

async function explore(providers: Provider[], imports: (DynamicModule | Promise<DynamicModule>)[] = []): Promise<DiscoveredCapabilities> {
  const moduleRef = await Test.createTestingModule({ imports: [DiscoveryModule, ...imports], providers: [McpExplorer, ...providers] }).compile();
  try {
    return moduleRef.get(McpExplorer).explore();
  } finally {
    await moduleRef.close();
  }
}

const toolNames = (found: DiscoveredCapabilities): string[] => found.tools.map((tool) => tool.name);

describe('McpExplorer', () => {
  let warnings: string[];
  let logs: string[];

  beforeEach(() => {
    warnings = [];
    logs = [];
    jest.spyOn(Logger.prototype, 'warn').mockImplementation((message: unknown) => void warnings.push(String(message)));
    jest.spyOn(Logger.prototype, 'log').mockImplementation((message: unknown) => void logs.push(String(message)));
  });

  afterEach(() => {
    jest.restoreAllMocks();
  });

  describe('discovery', () => {
    it('publishes the own public @McpTool methods of *Service providers', async () => {
      const found = await explore([ReadingsService, WeeklyReportService]);
      expect(toolNames(found)).toEqual(['count_readings_above_goal', 'latest', 'weekly_report']);
      expect(found.tools.map((tool) => `${tool.className}.${tool.methodName}`)).toEqual([
        'ReadingsService.countReadingsAboveGoal',
        'ReadingsService.getLatestReading',
        'WeeklyReportService.weeklyReport',
      ]);
    });

    it.each([
      ['a method starting with _', '_recompute'],
      ['an undecorated public method', 'helper'],
      ['a method inherited from a base class', 'inherited_report'],
    ])('does not publish %s', async (_label, name) => {
      expect(toolNames(await explore([ReadingsService, WeeklyReportService]))).not.toContain(name);
    });

    it('ignores @McpTool on a class not named *Service and warns naming it', async () => {
      const found = await explore([ReadingsRepository, ReadingsService]);
      expect(toolNames(found)).not.toContain('misplaced');
      expect(warnings).toContainEqual(expect.stringContaining('ReadingsRepository'));
    });

    it('explores a class marked @McpTools() whatever its name, and makes it injectable', async () => {
      const found = await explore([GlucoseTools]);
      expect(toolNames(found)).toEqual(['latest_glucose']);
      expect(warnings).toEqual([]);
      expect(Reflect.getMetadata(INJECTABLE_WATERMARK, GlucoseTools)).toBe(true);
    });

    it('describes a provider registered under two tokens once', async () => {
      const found = await explore([ReadingsService, { provide: 'READINGS_ALIAS', useExisting: ReadingsService }]);
      expect(toolNames(found)).toEqual(['count_readings_above_goal', 'latest']);
    });

    it('logs "Loaded tool: <name>" for each tool', async () => {
      await explore([ReadingsService, WeeklyReportService]);
      expect(logs.filter((message) => message.startsWith('Loaded tool: '))).toEqual([
        'Loaded tool: count_readings_above_goal',
        'Loaded tool: latest',
        'Loaded tool: weekly_report',
      ]);
    });
  });

  describe('names', () => {
    it('refuses two tools with one name, naming both classes', async () => {
      const attempt = explore([AlphaService, BetaService]);
      await expect(attempt).rejects.toThrow(ToolDefinitionError);
      await expect(attempt).rejects.toThrow(
        /tool "lookup": declared by both (AlphaService\.find and BetaService\.lookup|BetaService\.lookup and AlphaService\.find)/,
      );
    });
  });

  describe('warnings', () => {
    it('warns about a missing description and a user id argument', async () => {
      const found = await explore([SloppyService]);
      expect(toolNames(found)).toEqual(['lookup_user']);
      expect(warnings).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^SloppyService\.lookupUser: tool has no description/),
          expect.stringMatching(/^SloppyService\.lookupUser: argument "userId"/),
        ]),
      );
    });

    it('does not warn about a described tool without caller-like arguments', async () => {
      await explore([ReadingsService]);
      expect(warnings).toEqual([]);
    });
  });

  describe('static enabled(config)', () => {
    it('skips a class whose enabled() returns false and logs it', async () => {
      const found = await explore([DisabledService, ReadingsService]);
      expect(toolNames(found)).toEqual(['count_readings_above_goal', 'latest']);
      expect(logs).toContain('Skipping disabled tool class: DisabledService');
      expect(logs).not.toContain('Loaded tool: hidden_tool');
    });

    it('skips a class whose enabled() throws, with a warning', async () => {
      const found = await explore([ThrowingService, ReadingsService]);
      expect(toolNames(found)).toEqual(['count_readings_above_goal', 'latest']);
      expect(warnings).toContainEqual(expect.stringContaining('Skipping disabled tool class: ThrowingService'));
      expect(warnings).toContainEqual(expect.stringContaining('WEATHER_API_KEY is not set'));
    });

    it.each<[string, (DynamicModule | Promise<DynamicModule>)[], string[]]>([
      ['loads the class when enabled(config) is true', [featureOn()], ['feature_tool']],
      ['skips it when there is no ConfigService', [], []],
    ])('%s', async (_label, imports, expected) => {
      expect(toolNames(await explore([FeatureService], imports))).toEqual(expected);
    });
  });

  describe('at start-up', () => {
    it.each<[string, Provider[], RegExp]>([
      ['two tools with one name', [AlphaService, BetaService], /tool "lookup": declared by both .*(AlphaService|BetaService).*(AlphaService|BetaService)/],
      ['an array argument without items', [TagsService], /TagsService\.tag argument "tags": it is an array without an element type\. Fix: add items/],
    ])('stops the application on %s', async (_label, providers, message) => {
      const moduleRef = await Test.createTestingModule({
        imports: [McpModule.forRoot({ serverInfo: { name: 't', version: '1' } })],
        providers,
      }).compile();
      try {
        await expect(moduleRef.init()).rejects.toThrow(message);
      } finally {
        await moduleRef.close().catch(() => undefined);
      }
    });
  });
});
