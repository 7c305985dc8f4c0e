#!/usr/bin/env node
// Checks tool directories on the compiled server, where Jest's module system is not there to help:
// the module hooks must map `mirobody` to the server's own API, transpile `.ts` with @swc/core
// keeping decorator metadata, treat `.js` as ES modules without a package.json, and let a `.ts`
// file import its `_`-helper as `./_x.js`. Runs `npm run cli -- tools` and the server itself.
//
// Usage: npm run build && node scripts/tool-directories-smoke.mjs   (part of `npm run test:all`)

import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import assert from 'node:assert/strict';

const root = resolve(import.meta.dirname, '..');
const work = mkdtempSync(join(tmpdir(), 'mirobody-tool-smoke-'));
const tools = join(work, 'tools');
const files = {
  '_shared.js': 'export const greet = (name) => `Hello, ${name}`;\n',
  'hello.js': `import { Arg, ConfigService, decorateToolClass, McpTool, ok } from 'mirobody';
import { greet } from './_shared.js';
export class HelloService {
  constructor(config) { this.config = config; }
  hello(name) { return ok({ text: greet(name), maxSessions: this.config.get('mcp.maxSessions') }); }
}
decorateToolClass(HelloService, { inject: [ConfigService], methods: { hello: { decorators: [McpTool({ description: 'Greets' })], params: [Arg('name', { type: 'string' })] } } });
`,
  '_util.ts': 'export const twice = (value: number): number => value * 2;\n',
  'typed.ts': `import { Arg, DataSource, Injectable, McpTool, ok } from 'mirobody';
import { twice } from './_util.js';
@Injectable()
export class TypedService {
  constructor(private readonly dataSource: DataSource) {}
  @McpTool({ description: 'Doubles, and asks the database' })
  async typedTool(@Arg('count') count: number, @Arg('label', { optional: true }) label: string) {
    const [row] = await this.dataSource.query('SELECT 1 AS one');
    return ok({ doubled: twice(count), label: label ?? null, one: row.one });
  }
}
`,
};

const env = {
  ...process.env,
  DATA_DIR: join(work, 'data'),
  MCP_TOOL_DIRS: `${tools},${join(root, 'examples/tools')}`,
  ALLOWED_TOOLS_SMOKE: 'hello,typed_tool,count_readings_above_goal',
  NO_COLOR: '1',
};

function freePort() {
  return new Promise((done) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => done(port));
    });
  });
}

async function rpc(url, method, params) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const text = await response.text();
  const json = text.startsWith('{')
    ? JSON.parse(text)
    : JSON.parse(
        text
          .split('\n')
          .find((line) => line.startsWith('data: '))
          .slice(6),
      );
  if (json.error) throw new Error(`${method}: ${json.error.message}`);
  return json.result;
}

async function serve() {
  const port = await freePort();
  const child = spawn(process.execPath, [join(root, 'dist/apps/server/src/main.js')], {
    cwd: work,
    env: { ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const url = `http://127.0.0.1:${port}/mcp?agent=smoke`;
  // Up to two minutes: the embedded database starts slowly on a busy machine.
  for (let tries = 0; ; tries++) {
    if (child.exitCode !== null) throw new Error(`server exited:\n${output}`);
    try {
      await rpc(url, 'tools/list');
      break;
    } catch {
      if (tries > 1200) throw new Error(`server never answered:\n${output}`);
      await new Promise((done) => setTimeout(done, 100));
    }
  }
  return { url, child, output: () => output };
}

mkdirSync(tools);
for (const [name, content] of Object.entries(files)) writeFileSync(join(tools, name), content);

let server;
try {
  const cli = spawnSync(process.execPath, [join(root, 'dist/apps/server/src/cli.js'), 'tools', '--agent', 'smoke', '--format', 'openai'], {
    cwd: work,
    env,
    encoding: 'utf8',
  });
  assert.equal(cli.status, 0, cli.stderr);
  const catalog = JSON.parse(cli.stdout);
  assert.deepEqual(catalog.tools.map((tool) => tool.function.name).sort(), ['count_readings_above_goal', 'hello', 'typed_tool']);
  const typed = catalog.tools.find((tool) => tool.function.name === 'typed_tool').function.parameters;
  // `count: number` reached the schema through decorator metadata emitted by the load-time transpile.
  assert.deepEqual(typed.properties.count, { type: 'number' });
  assert.deepEqual(typed.required, ['count']);
  assert.equal(catalog.origins.hello, join(tools, 'hello.js'));
  console.log(`cli: ${catalog.tools.length} tools for agent smoke, origins ${JSON.stringify(catalog.origins)}`);

  server = await serve();
  const listed = await rpc(server.url, 'tools/list');
  assert.deepEqual(listed.tools.map((tool) => tool.name).sort(), ['count_readings_above_goal', 'hello', 'typed_tool']);
  const hello = await rpc(server.url, 'tools/call', { name: 'hello', arguments: { name: 'Ada' } });
  assert.deepEqual(hello.structuredContent, { text: 'Hello, Ada', maxSessions: 10000 });
  const typedCall = await rpc(server.url, 'tools/call', { name: 'typed_tool', arguments: { count: 21 } });
  assert.deepEqual(typedCall.structuredContent, { doubled: 42, label: null, one: 1 });
  // Log lines reach stdout asynchronously, possibly after the answers.
  for (let waited = 0; !/Loaded tool: typed_tool/.test(server.output()) && waited < 5000; waited += 50) await new Promise((done) => setTimeout(done, 50));
  assert.match(server.output(), /Loaded tool: typed_tool/);
  console.log('server: directory tools listed and called for agent smoke');
  console.log('tool directories smoke test passed');
} catch (error) {
  console.error(error);
  process.exitCode = 1;
} finally {
  if (server?.child.exitCode === null) {
    server.child.kill('SIGTERM');
    await new Promise((done) => server.child.once('exit', done));
  }
  rmSync(work, { recursive: true, force: true, maxRetries: 5 });
}
