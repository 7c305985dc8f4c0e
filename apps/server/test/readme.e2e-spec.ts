import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { seedEmbeddedDatabase } from './support/pglite-template.js';
import { copyProject } from './support/project-copy.js';

/**
 * The README's `bash` blocks, run as written and in order against a live server, in one shell (so a
 * variable set in one block serves the next), stopping at the first failing command. The first
 * block (install and start, install and test) is what starts the server and runs this test: the
 * server is started here the way `npm start` starts it, on a free PORT, which the blocks read.
 */
const readmeBlocks = (readme: string) => [...readme.matchAll(/^```bash\n([\s\S]*?)^```$/gm)].map((match) => match[1]!);

const freePort = () =>
  new Promise<number>((done) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => done(port));
    });
  });

describe('README.md', () => {
  let project: string;
  let server: ChildProcess;
  let env: Record<string, string>;

  beforeAll(async () => {
    project = copyProject('mirobody-readme-', { build: true });
    seedEmbeddedDatabase(join(project, 'data'));
    env = { PATH: process.env.PATH!, HOME: process.env.HOME!, PORT: String(await freePort()), LOG_FORMAT: 'json' };
    server = spawn(process.execPath, ['dist/apps/server/src/main.js'], { cwd: project, env, stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    await new Promise<void>((done, fail) => {
      server.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('listening on')) done();
      });
      server.on('exit', (code) => fail(new Error(`the server exited with ${code}:\n${output}`)));
    });
  }, 120_000);

  afterAll(() => {
    server?.kill('SIGTERM');
    rmSync(project, { recursive: true, force: true });
  });

  it('starts with the two commands, install and start, install and test', () => {
    const [first] = readmeBlocks(readFileSync(join(project, 'README.md'), 'utf8'));
    const commands = first!
      .split('\n')
      .map((line) => line.replace(/#.*$/, '').trim())
      .filter(Boolean);
    expect(commands).toEqual(['npm ci && npm start', 'npm ci && npm run test:all']);
  });

  it('runs every other command block as written, in order', () => {
    const blocks = readmeBlocks(readFileSync(join(project, 'README.md'), 'utf8')).slice(1);
    expect(blocks.length).toBeGreaterThanOrEqual(4);
    const script = blocks.map((block, index) => `echo "--- README block ${index + 2}"\n${block}`).join('\n');
    const run = spawnSync('bash', ['-euo', 'pipefail', '-c', script], {
      cwd: project,
      env,
      encoding: 'utf8',
      timeout: 120_000,
      // A socket on stdin (Node's default pipe) makes bash think sshd started it and source bashrc.
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const transcript = `${run.stdout}\n${run.stderr}`;
    expect([run.status, transcript]).toEqual([0, transcript]);
    // What the blocks print is what the README says they print.
    expect(run.stdout).toContain(
      '{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\\"echo\\":\\"hi\\"}"}],"structuredContent":{"echo":"hi"}}}',
    );
    expect(run.stdout).toMatch(/"secret":"mrb_sk_/);
    expect(run.stdout).toContain(`http://127.0.0.1:${env.PORT}/console/sign-in/link#`);
  }, 150_000);
});
