import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { structured, withClient } from './support/auth.js';
import { seedEmbeddedDatabase } from './support/pglite-template.js';
import { startProcess, stopGroup } from './support/processes.js';
import { copyProject } from './support/project-copy.js';
import { ERAS } from './support/test-app.js';
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from './support/test-database.js';

/**
 * An entry file of your own, as the README's "Serve your own tools" has it: examples/my-server.ts at
 * apps/server/src/my-server.ts in a copy of the project (see copyProject), run through npm's scripts
 * with SERVER_ENTRY, a config.yaml and a .env in the working directory, and a tool directory
 * holding a TypeScript tool.
 */
const root = resolve(import.meta.dirname, '../../..');
const EXAMPLE = readFileSync(join(root, 'examples/my-server.ts'), 'utf8');
const ENTRY = 'apps/server/src/my-server.ts';

/** Its `value: number` reaches the schema only through the decorator metadata of the load-time transpile. */
const DOUBLING_TOOL = `import { Arg, Injectable, McpTool, ok } from 'mirobody';

@Injectable()
export class DoublingService {
  @McpTool({ description: 'Doubles a number' })
  double(@Arg('value', { description: 'A number, e.g. 21' }) value: number) {
    return ok({ doubled: value * 2 });
  }
}
`;

let project: string;
const databases: TestDatabase[] = [];

beforeAll(() => {
  project = copyProject('mirobody-own-entry-');
  writeFileSync(join(project, ENTRY), EXAMPLE);
  mkdirSync(join(project, 'tools'));
  writeFileSync(join(project, 'tools', 'doubling.ts'), DOUBLING_TOOL);
  // Read from the working directory, as main.ts reads them: config.yaml names the tool directory, .env the grace period.
  writeFileSync(join(project, 'config.yaml'), 'MCP_TOOL_DIRS:\n  - ./tools\n');
  writeFileSync(join(project, '.env'), 'SHUTDOWN_GRACE_SECONDS=7\n');
}, 60_000);

afterAll(async () => {
  await Promise.all(databases.map((database) => database.drop()));
  rmSync(project, { recursive: true, force: true });
});

/** A database of the process's own: a new one on TEST_DATABASE_URL's server, or an embedded one in its DATA_DIR. */
async function databaseEnv(name: string): Promise<Record<string, string>> {
  const dataDir = join(project, name);
  if (!TEST_DATABASE_URL) {
    seedEmbeddedDatabase(dataDir);
    return { DATA_DIR: dataDir };
  }
  const database = await createTestDatabase(TEST_DATABASE_URL);
  databases.push(database);
  return { DATA_DIR: dataDir, DATABASE_URL: database.url };
}

/** Both tools, the entry file's module's and the tool directory's, listed and called over HTTP on both protocol eras. */
async function expectBothTools(url: string): Promise<void> {
  for (const era of ERAS) {
    await withClient(new URL(url), era, {}, async (client) => {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['echo', 'greet', 'double']));
      expect(tools.find((tool) => tool.name === 'double')?.inputSchema).toMatchObject({ properties: { value: { type: 'number' } }, required: ['value'] });
      expect(await structured(client, 'greet', { name: 'Ada' })).toEqual({ greeting: 'Hello, Ada' });
      expect(await structured(client, 'double', { value: 21 })).toEqual({ doubled: 42 });
    });
  }
}

describe('the README', () => {
  it('shows examples/my-server.ts as it is', () => {
    const section = readFileSync(join(root, 'README.md'), 'utf8').split('### Serve your own tools')[1]!.split('\n## ')[0]!;
    expect(/^```ts\n([\s\S]*?)^```$/m.exec(section)?.[1]).toBe(EXAMPLE);
  });
});

// First, while nothing is compiled: start:prod then says so in one line rather than failing to import.
describe('a SERVER_ENTRY that names no entry file', () => {
  const run = (script: string, entry?: string) => {
    const result = spawnSync(process.execPath, [script], {
      cwd: project,
      env: { PATH: process.env.PATH, ...(entry === undefined ? {} : { SERVER_ENTRY: entry }) },
      encoding: 'utf8',
      // A script that took the value would start a server: stopped (SIGTERM, which dev.mjs passes on) rather than waited for.
      timeout: 10_000,
    });
    return [result.status, result.stderr];
  };

  it.each(['scripts/start.mjs', 'scripts/dev.mjs'])('stops %s with one line naming it', (script) => {
    for (const entry of ['apps/server/src/my-server.js', 'examples/my-server.ts', '../elsewhere/apps/server.ts']) {
      expect(run(script, entry)).toEqual([
        1,
        `SERVER_ENTRY must name a .ts file under apps/ or libs/ (what the build compiles), such as apps/server/src/my-server.ts; got "${entry}"\n`,
      ]);
    }
  });

  it('stops npm run start:dev when the file is not there, before compiling', () => {
    expect(run('scripts/dev.mjs', 'apps/server/src/my-servr.ts')).toEqual([1, 'SERVER_ENTRY names apps/server/src/my-servr.ts, which does not exist\n']);
  });

  it('stops npm run start:prod when the entry, main.ts without SERVER_ENTRY, is not compiled', () => {
    expect(run('scripts/start.mjs')).toEqual([
      1,
      'dist/apps/server/src/main.js does not exist: build apps/server/src/main.ts first (npm run build; npm start builds, then starts)\n',
    ]);
    expect(run('scripts/start.mjs', ENTRY)).toEqual([
      1,
      'dist/apps/server/src/my-server.js does not exist: build apps/server/src/my-server.ts first (npm run build; npm start builds, then starts)\n',
    ]);
  });
});

describe('SERVER_ENTRY=apps/server/src/my-server.ts', () => {
  it('npm run start:dev compiles and runs it, with its tools and the tool directory config.yaml names', async () => {
    const dev = startProcess(project, 'npm', ['run', 'start:dev'], { SERVER_ENTRY: ENTRY, ...(await databaseEnv('dev-data')) });
    try {
      await expectBothTools(await dev.announcement(1));
    } finally {
      await stopGroup(dev);
    }
  }, 180_000);

  it('npm start builds it and runs it as start:prod does: the start-up line, both tools, .env read, and on SIGTERM a graceful stop with exit 0', async () => {
    const server = startProcess(project, 'npm', ['start'], { SERVER_ENTRY: ENTRY, ...(await databaseEnv('prod-data')) });
    try {
      const url = await server.announcement(1);
      const startUpLine = server
        .output()
        .split('\n')
        .find((line) => line.includes(`MCP endpoint listening on ${url}`));
      expect(startUpLine).toContain(`database: ${TEST_DATABASE_URL ? 'PostgreSQL at' : 'embedded PostgreSQL'}`);
      await expectBothTools(url);
      // To the server alone (its pid is on its log lines), as a supervisor stops it; npm then exits with its code.
      process.kill((JSON.parse(startUpLine!) as { pid: number }).pid, 'SIGTERM');
      expect(await server.exited).toBe(0);
    } finally {
      await stopGroup(server);
    }
    expect(server.output()).toContain('SIGTERM: shutting down (calls in flight get up to 7 s)');
    expect(server.output()).toContain('Stopped (exit code 0)');
  }, 180_000);
});
