import { Injectable, Module } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import { MemoryModule, MemoryStore } from '@app/memory';
import { startApp, type RunningApp } from './support/test-app.js';

@Injectable()
class RecallProbeService {
  constructor(readonly store: MemoryStore) {}
}

/** A deployment's module that uses the memory store, importing the lib's module as any Nest module would. */
@Module({ imports: [MemoryModule], providers: [RecallProbeService] })
class RecallProbeModule {}

const globalModules = (running: RunningApp) =>
  [...running.app.get(ModulesContainer).values()]
    .filter((module) => module.isGlobal)
    .map((module) => module.metatype.name)
    .sort();

describe('the composition root', () => {
  let running: RunningApp;

  beforeAll(async () => {
    running = await startApp({}, { imports: [RecallProbeModule] });
  });
  afterAll(() => running.close());

  it('makes global only what Nest needs global: common, config and the database (and the core and logger modules of Nest and nestjs-pino)', () => {
    expect(globalModules(running)).toEqual(
      ['CommonModule', 'ConfigHostModule', 'ConfigModule', 'InternalCoreModule', 'LoggerModule', 'TypeOrmCoreModule'].sort(),
    );
  });

  it('holds one instance of a feature module however many modules import it', () => {
    const memoryModules = [...running.app.get(ModulesContainer).values()].filter((module) => module.metatype === MemoryModule);
    expect(memoryModules).toHaveLength(1);
    expect(running.app.get(RecallProbeService).store).toBe(running.app.get(MemoryStore));
  });
});
