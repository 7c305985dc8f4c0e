import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { bearer, signHs256, TEST_JWT_SECRET } from './support/auth.js';
import { seedEmbeddedDatabase } from './support/pglite-template.js';
import { startProcess, stopGroup } from './support/processes.js';
import { copyProject } from './support/project-copy.js';

/**
 * The types plugin on a compiled server, as an operator runs one: a tool directory's `.ts` file in
 * the plain style (no @Arg) is read from its signature and doc comments when it loads.
 */
const PLAIN = resolve(import.meta.dirname, 'support/plain-style-tools');
const REFUSED = resolve(import.meta.dirname, 'support/refused-type-tools');
let project: string;

beforeAll(() => {
  project = copyProject('mirobody-types-plugin-', { build: true });
}, 120_000);

afterAll(() => rmSync(project, { recursive: true, force: true }));

const server = (name: string, directories: string) => {
  const dataDir = join(project, name);
  seedEmbeddedDatabase(dataDir);
  return startProcess(project, process.execPath, ['dist/apps/server/src/main.js'], {
    DATA_DIR: dataDir,
    MCP_TOOL_DIRS: directories,
    JWT_SECRET: TEST_JWT_SECRET,
  });
};

describe('a plain-style tool file in a tool directory, on the compiled server', () => {
  it('is listed with the schema its types give, called with the official client, refuses "kelvin", and its result meets its outputSchema', async () => {
    const started = server('plain-data', PLAIN);
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
      expect(JSON.stringify(refused.content)).toContain('unit');
      expect((await client.callTool({ name: 'to_kelvin', arguments: { value: 0, unit: 'celsius' } })).structuredContent).toEqual({ kelvin: 273.15 });

      const cost = /Read the tool types of 1 TypeScript file\(s\) in (\d+) ms/.exec(started.output());
      expect(cost).not.toBeNull();
      process.stdout.write(`Types plugin: reading one tool file's types at start-up took ${cost![1]} ms\n`);
    } finally {
      await client.close();
      await stopGroup(started);
    }
  }, 120_000);

  it('refuses a type it cannot describe, naming the tool, the parameter and the fix; the file is skipped as any broken tool file is', async () => {
    const started = server('refused-data', REFUSED);
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
