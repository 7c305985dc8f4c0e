import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { seedEmbeddedDatabase } from './support/pglite-template.js';
import { startProcess, stopGroup } from './support/processes.js';
import { compileProject, copyProject } from './support/project-copy.js';

/** Whole processes, as a developer or an operator runs them, in a copy of the project (see copyProject). */
let project: string;

beforeAll(() => {
  project = copyProject('mirobody-processes-');
}, 60_000);

afterAll(() => rmSync(project, { recursive: true, force: true }));

const start = (command: string, args: string[], env: Record<string, string>) => startProcess(project, command, args, env);

async function toolDescription(url: string, name: string): Promise<string | undefined> {
  const answer = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  const { result } = (await answer.json()) as { result: { tools: { name: string; description: string }[] } };
  return result.tools.find((tool) => tool.name === name)?.description;
}

const edit = (file: string, change: (text: string) => string) => writeFileSync(join(project, file), change(readFileSync(join(project, file), 'utf8')));

describe('npm run start:dev', () => {
  it('reloads the server on an edit in libs/ and in apps/', async () => {
    const dataDir = join(project, 'dev-data');
    seedEmbeddedDatabase(dataDir);
    const dev = start('npm', ['run', 'start:dev'], { DATA_DIR: dataDir });
    try {
      const first = await dev.announcement(1);
      expect(await toolDescription(first, 'echo')).toContain('Echo back the provided text');

      edit('libs/tools/src/echo.service.ts', (text) => text.replace('Echo back the provided text.', 'Echo back the text, edited while running.'));
      const second = await dev.announcement(2);
      expect(await toolDescription(second, 'echo')).toContain('Echo back the text, edited while running.');

      edit('apps/server/src/bootstrap.ts', (text) => text.replace('MCP endpoint listening on', 'MCP endpoint (reloaded) listening on'));
      await dev.announcement(3);
      expect(dev.output()).toContain('MCP endpoint (reloaded) listening on');
    } finally {
      await stopGroup(dev);
    }
  }, 180_000);
});

describe('one data directory, one process', () => {
  const server = (dataDir: string) => start(process.execPath, ['dist/apps/server/src/main.js'], { DATA_DIR: dataDir });

  beforeAll(() => compileProject(project), 120_000);

  it('refuses a second process on the same DATA_DIR, naming the directory and the holder, and takes over after a SIGKILL', async () => {
    const dataDir = join(project, 'shared-data');
    seedEmbeddedDatabase(dataDir);
    const first = server(dataDir);
    try {
      await first.announcement(1);
      const second = server(dataDir);
      expect(await second.exited).toBe(1);
      expect(second.output()).toContain(`The embedded database in ${join(dataDir, 'pg')} is in use by another process (pid ${first.child.pid})`);
      expect(second.output()).not.toMatch(/\n\s+at /);
    } finally {
      await stopGroup(first, 'SIGKILL');
    }
    // The killed process left its lock behind; it does not block the next start.
    expect(existsSync(join(dataDir, 'pg.lock'))).toBe(true);
    const third = server(dataDir);
    try {
      await third.announcement(1);
    } finally {
      expect(await stopGroup(third, 'SIGTERM')).toBe(0);
    }
    expect(third.output()).toMatch(/SIGTERM: shutting down/);
    expect(third.output()).toMatch(/Stopped \(exit code 0\)/);
    expect(existsSync(join(dataDir, 'pg.lock'))).toBe(false);
  }, 180_000);

  it('says in one line that the port is in use', async () => {
    for (const name of ['port-data-1', 'port-data-2']) seedEmbeddedDatabase(join(project, name));
    const blocker = server(join(project, 'port-data-1'));
    try {
      const port = new URL(await blocker.announcement(1)).port;
      const clash = start(process.execPath, ['dist/apps/server/src/main.js'], { DATA_DIR: join(project, 'port-data-2'), PORT: port });
      expect(await clash.exited).toBe(1);
      expect(clash.output()).toContain(`port ${port} is in use on 127.0.0.1 (set PORT to another one)`);
      expect(clash.output()).not.toMatch(/\n\s+at /);
    } finally {
      await stopGroup(blocker);
    }
  }, 180_000);

  it.each([
    // TEST-NET-1 (RFC 5737): no machine has it; `.invalid` (RFC 6761) never resolves.
    ['192.0.2.1', 'HOST 192.0.2.1 is no address of this machine'],
    ['nowhere.invalid', 'HOST nowhere.invalid is no name this machine can resolve'],
  ])(
    'says in one line that HOST=%s cannot be listened on (it crashed with a stack trace)',
    async (host, refusal) => {
      seedEmbeddedDatabase(join(project, `host-data-${host}`));
      const refused = start(process.execPath, ['dist/apps/server/src/main.js'], { DATA_DIR: join(project, `host-data-${host}`), HOST: host, PORT: '0' });
      expect(await refused.exited).toBe(1);
      expect(refused.output()).toContain(refusal);
      expect(refused.output()).not.toMatch(/\n\s+at /);
    },
    180_000,
  );
});
