import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { bearer, signHs256, TEST_JWT_SECRET } from './support/auth.js';
import { seedEmbeddedDatabase } from './support/pglite-template.js';
import { startProcess, stopGroup, type Started } from './support/processes.js';
import { copyProject } from './support/project-copy.js';

/**
 * The types plugin as an operator and a developer meet it: a tool in the plain style (no @Arg) is
 * read from its signature and doc comments, whether it is a tool directory's `.ts` file (read when
 * it loads) or packaged code built with `npm run build` (SWC and metadata.ts), with
 * `nest build --type-check` (the Nest CLI writes metadata.ts) or with `nest build -b tsc` (the
 * plugin's transformer); each server is listed and called over HTTP with the official client.
 */
const PLAIN = resolve(import.meta.dirname, 'support/plain-style-tools');
const REFUSED = resolve(import.meta.dirname, 'support/refused-type-tools');
let project: string;

beforeAll(() => {
  project = copyProject('mirobody-types-plugin-', { build: true });
}, 120_000);

afterAll(() => rmSync(project, { recursive: true, force: true }));

const server = (cwd: string, name: string, entry: string, env: Record<string, string> = {}) => {
  const dataDir = join(cwd, name);
  seedEmbeddedDatabase(dataDir);
  return startProcess(cwd, process.execPath, [entry], { DATA_DIR: dataDir, JWT_SECRET: TEST_JWT_SECRET, ...env });
};

/** Lists and calls the plain-style tools of support/plain-style-tools on a started server, as a client would. */
async function expectPlainStyleTools(started: Started): Promise<void> {
  const client = new Client({ name: 'types-plugin-e2e', version: '1.0.0' });
  try {
    const url = new URL(await started.announcement(1));
    const token = await signHs256(TEST_JWT_SECRET, { sub: 'ann', email: 'ann@example.com', email_verified: true });
    await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: bearer(token) } }));
    const { tools } = await client.listTools();
    const goal = tools.find((tool) => tool.name === 'count_readings_above_goal')!;
    expect(goal.description).toBe("Count how many of the caller's recent readings reached a goal value.");
    expect(goal.inputSchema).toEqual({
      type: 'object',
      properties: {
        indicator: { type: 'string', description: 'Exact indicator name, e.g. "heart_rate"' },
        goal: { type: 'number', description: "Value a reading must reach, in the indicator's unit" },
        unit: { type: 'string', enum: ['mmol/L', 'mg/dL'], default: 'mmol/L' },
        days: { type: 'number', default: 30 },
      },
      required: ['indicator', 'goal'],
      additionalProperties: false,
    });
    expect(goal.outputSchema).toEqual({
      type: 'object',
      properties: {
        count: { type: 'number', description: 'Readings at or above the goal' },
        unit: { type: 'string', enum: ['mmol/L', 'mg/dL'] },
        days: { type: 'number' },
        caller: { type: 'string', description: 'Who asked, echoed to show the caller is filled by the server' },
      },
      required: ['count', 'unit', 'days', 'caller'],
    });
    // The SDK client checks structuredContent against the outputSchema and throws if it does not match.
    const counted = await client.callTool({ name: 'count_readings_above_goal', arguments: { indicator: 'heart_rate', goal: 100 } });
    expect(counted.structuredContent).toEqual({ count: 110, unit: 'mmol/L', days: 30, caller: 'ann@example.com' });

    const kelvin = tools.find((tool) => tool.name === 'to_kelvin')!;
    expect(kelvin.inputSchema.properties).toEqual({
      value: { type: 'number', description: 'The temperature to convert' },
      unit: { type: 'string', enum: ['celsius', 'fahrenheit'], description: 'The scale it is in' },
    });
    const refused = await client.callTool({ name: 'to_kelvin', arguments: { value: 10, unit: 'kelvin' } });
    expect(refused.isError).toBe(true);
    expect(refused.content).toEqual([
      { type: 'text', text: 'Invalid arguments for tool "to_kelvin": argument "unit" must be one of: "celsius", "fahrenheit"' },
    ]);
    expect((await client.callTool({ name: 'to_kelvin', arguments: { value: 0, unit: 'celsius' } })).structuredContent).toEqual({ kelvin: 273.15 });

    // A built-in tool in the plain style publishes what it published with @Arg.
    expect(tools.find((tool) => tool.name === 'echo')).toMatchObject({
      description: 'Echo back the provided text. Use it to check that the MCP connection works.',
      inputSchema: { properties: { text: { type: 'string', description: 'Text to echo back, e.g. "hello"' } }, required: ['text'] },
    });
  } finally {
    await client.close();
  }
}

describe('a plain-style tool file in a tool directory, on the compiled server', () => {
  it('is listed with the schema its types give, called with the official client, refuses "kelvin", and its result meets its outputSchema', async () => {
    const started = server(project, 'plain-data', 'dist/apps/server/src/main.js', { MCP_TOOL_DIRS: PLAIN });
    try {
      await expectPlainStyleTools(started);
      const cost = /Read the tool types of 1 TypeScript file\(s\) in (\d+) ms/.exec(started.output());
      expect(cost).not.toBeNull();
      process.stdout.write(`Types plugin: reading one tool file's types at start-up took ${cost![1]} ms\n`);
    } finally {
      await stopGroup(started);
    }
  }, 120_000);

  it('refuses a type it cannot describe, naming the tool, the parameter and the fix; the file is skipped as any broken tool file is', async () => {
    const started = server(project, 'refused-data', 'dist/apps/server/src/main.js', { MCP_TOOL_DIRS: REFUSED });
    try {
      const url = await started.announcement(1);
      expect(started.output()).toContain(
        `Error importing tool module ${join(REFUSED, 'when.service.ts')}: WhenService.dayOf argument \\"when\\": its type string | number is a union of different kinds`,
      );
      expect(started.output()).toContain("Fix: use a literal union ('a' | 'b'), an enum, or one object type with optional fields");
      const listed = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      const names = ((await listed.json()) as { result: { tools: { name: string }[] } }).result.tools.map((tool) => tool.name);
      expect(names).toContain('echo');
      expect(names).not.toContain('day_of');
    } finally {
      await stopGroup(started);
    }
  }, 120_000);
});

/** An entry file of the developer's own (README, "Serve your own tools") serving the plain-style tools as packaged code. */
const PLAIN_SERVER = `import { Module } from '@nestjs/common';
import { bootstrap } from 'mirobody';
import { GoalReadingsService } from './goal-readings.service.js';

@Module({ providers: [GoalReadingsService] })
class PlainToolsModule {}

await bootstrap({ imports: [PlainToolsModule] });
`;

describe('a plain-style tool in the packaged code', () => {
  let packaged: string;

  beforeAll(() => {
    packaged = copyProject('mirobody-types-plugin-packaged-');
    cpSync(join(PLAIN, 'goal-readings.service.ts'), join(packaged, 'apps/server/src/goal-readings.service.ts'));
    writeFileSync(join(packaged, 'apps/server/src/plain-server.ts'), PLAIN_SERVER);
  });

  afterAll(() => rmSync(packaged, { recursive: true, force: true }));

  const build = (command: string, args: string[]) => {
    rmSync(join(packaged, 'dist'), { recursive: true, force: true });
    rmSync(join(packaged, 'metadata.ts'), { force: true });
    execFileSync(command, args, { cwd: packaged, stdio: 'pipe' });
  };

  it.each([
    ['npm run build (SWC; the plugin types in metadata.ts)', 'npm', ['run', 'build'], true],
    [
      'nest build --type-check (SWC; the Nest CLI runs the plugin visitor after its type check)',
      process.execPath,
      ['node_modules/@nestjs/cli/bin/nest.js', 'build', 'server', '--type-check'],
      true,
    ],
    [
      'nest build -b tsc (the plugin transformer in nest-cli.json; no metadata file)',
      process.execPath,
      ['node_modules/@nestjs/cli/bin/nest.js', 'build', 'server', '-b', 'tsc'],
      false,
    ],
  ])(
    'built with %s: listed, called, "kelvin" refused, result meets its outputSchema',
    async (_build, command, args, withMetadataFile) => {
      build(command as string, args as string[]);
      expect(existsSync(join(packaged, 'dist/metadata.js'))).toBe(withMetadataFile);
      const started = server(packaged, `data${args.at(-1)}`, 'dist/apps/server/src/plain-server.js');
      try {
        await expectPlainStyleTools(started);
      } finally {
        await stopGroup(started);
      }
    },
    180_000,
  );
});
