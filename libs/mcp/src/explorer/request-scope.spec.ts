import 'reflect-metadata';
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { Inject, Injectable, Logger, Scope } from '@nestjs/common';
import { REQUEST } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { McpTool } from '../decorators/mcp-tool.decorator.js';
import { McpModule } from '../mcp.module.js';
import { McpRegistry } from '../registry/mcp-registry.js';

@Injectable({ scope: Scope.REQUEST })
class PerRequestClock {
  now() {
    return 1;
  }
}

@Injectable()
class ClockReader {
  constructor(readonly clock: PerRequestClock) {}
}

@Injectable()
class DirectlyScopedService {
  constructor(private readonly clock: PerRequestClock) {}

  @McpTool({ description: 'Reads a request-scoped clock' })
  tick() {
    return this.clock.now();
  }
}

@Injectable()
class IndirectlyScopedService {
  constructor(private readonly reader: ClockReader) {}

  @McpTool({ description: 'Reads it through a singleton-looking provider' })
  tock() {
    return this.reader.clock.now();
  }
}

@Injectable()
class RequestInjectingService {
  constructor(@Inject(REQUEST) private readonly request: unknown) {}

  @McpTool({ description: 'Reads the HTTP request' })
  peek() {
    return String(this.request);
  }
}

@Injectable()
class SingletonService {
  @McpTool({ description: 'Needs nothing per request' })
  plain() {
    return 'ok';
  }
}

async function boot(...providers: unknown[]) {
  const moduleRef = await Test.createTestingModule({
    imports: [McpModule.forRoot({ serverInfo: { name: 't', version: '1' } })],
    providers: providers as never[],
  }).compile();
  await moduleRef.init();
  return moduleRef;
}

describe('a tool class whose dependency tree is not static', () => {
  afterEach(() => {
    jest.restoreAllMocks();
  });

  it.each([
    [
      'injects a request-scoped provider',
      [PerRequestClock, DirectlyScopedService],
      /^DirectlyScopedService: is not a singleton: PerRequestClock is request- or transient-scoped/,
    ],
    [
      'reaches one through another provider',
      [PerRequestClock, ClockReader, IndirectlyScopedService],
      /^IndirectlyScopedService: is not a singleton: PerRequestClock is request- or transient-scoped/,
    ],
    ['injects the request', [RequestInjectingService], /^RequestInjectingService: is not a singleton: REQUEST is request- or transient-scoped/],
  ])('stops start-up when it %s, naming the class and the dependency', async (_case, providers, message) => {
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    await expect(boot(...providers)).rejects.toThrow(message);
  });

  it('is not what a singleton tool class is', async () => {
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    const moduleRef = await boot(SingletonService);
    expect(moduleRef.get(McpRegistry).getTool('plain')).toBeDefined();
    await moduleRef.close();
  });
});
