import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import { bearer, cliToken, structured, TEST_JWT_SECRET, withClient } from './support/auth.js';
import { storeHeartRate } from './support/observations.js';
import { EXAMPLES_DIR, writeToolDirectories, type ToolDirectories } from './support/tool-directory-fixtures.js';
import { startApp, type RunningApp } from './support/test-app.js';

let directories: ToolDirectories;
let running: RunningApp;
let env: Record<string, string>;
const logged: { level: string; message: string }[] = [];

beforeAll(async () => {
  for (const level of ['log', 'warn', 'error'] as const) {
    jest.spyOn(Logger.prototype, level).mockImplementation(function (this: unknown, message: unknown) {
      logged.push({ level, message: String(message) });
    });
  }
  directories = writeToolDirectories();
  env = { JWT_SECRET: TEST_JWT_SECRET, MCP_TOOL_DIRS: directories.env };
  running = await startApp(env);
});

afterAll(async () => {
  await running?.close();
  directories.remove();
  jest.restoreAllMocks();
});

const lines = (level: string) => logged.filter((entry) => entry.level === level).map((entry) => entry.message);
const toolNames = async (headers: Record<string, string> = {}) =>
  withClient(running.url, '2025-11-25', headers, async (client) => (await client.listTools()).tools.map((tool) => tool.name).sort());

describe('tool directories (MCP_TOOL_DIRS)', () => {
  it('publish the tools of top-level .js/.mjs/.ts files next to the packaged ones, and nothing else', async () => {
    const names = await toolNames();
    expect(names).toEqual(expect.arrayContaining(['echo', 'whoami', 'my_account', 'count_readings_above_goal']));
    // _helper.js (underscore), nested/inner.mjs (sub-directory), the disabled class and the file with a bad schema.
    for (const absent of ['helper_tool', 'nested_tool', 'optional_tool', 'tag', 'neighbour_tool']) expect(names).not.toContain(absent);
  });

  it('log every tool loaded, every file that failed to import and every disabled class, as the troubleshooting grep expects', () => {
    const grep = /Loaded tool|Error importing tool module|Skipping disabled/;
    const found = logged.map((entry) => entry.message).filter((message) => grep.test(message));
    expect(found).toEqual(
      expect.arrayContaining(['Loaded tool: my_account', 'Loaded tool: count_readings_above_goal', 'Skipping disabled tool class: OptionalIntegrationService']),
    );
    expect(lines('error')).toEqual(
      expect.arrayContaining([
        expect.stringMatching(new RegExp(`^Error importing tool module ${join(directories.first, 'broken.js')}: .+`)),
        `Error importing tool module ${join(directories.first, 'throws.js')}: no license key configured`,
      ]),
    );
    expect(found.join('\n')).not.toMatch(/notes\.txt|inner\.mjs|_helper\.js/);
  });

  it('skip a directory file whose schema cannot be built, naming the file and the parameter at error level', () => {
    const message = lines('error').find((line) => line.startsWith(`Error importing tool module ${join(directories.first, 'bad_schema.ts')}:`));
    expect(message).toMatch(/TaggingService\.tag argument "tags": it is an array without an element type/);
  });

  it('let the first directory that defines a name win, logging both origins of each override', async () => {
    const overrides = lines('warn').filter((line) => line.startsWith('Overriding tool "echo"'));
    expect(overrides).toEqual(
      expect.arrayContaining([
        `Overriding tool "echo": LoudEchoService.echo (${join(directories.first, 'echo.js')}) replaces QuietEchoService.echo (${join(directories.second, 'echo.mjs')})`,
        `Overriding tool "echo": LoudEchoService.echo (${join(directories.first, 'echo.js')}) replaces EchoService.echo (packaged)`,
      ]),
    );
    await withClient(running.url, '2025-11-25', {}, async (client) => {
      // The JavaScript tool got ConfigService injected and used the `_helper.js` it imports.
      expect(await structured(client, 'echo', { text: 'hi' })).toEqual({ echo: 'HI!', maxSessions: 10_000 });
      const tool = (await client.listTools()).tools.find((entry) => entry.name === 'echo');
      expect(tool).toMatchObject({ description: 'Echo, loudly', inputSchema: { required: ['text'] } });
      // Directory tools are validated like packaged ones.
      const refused = await client.callTool({ name: 'echo', arguments: { text: 7 } });
      expect(refused.isError).toBe(true);
      expect(refused.content).toEqual([{ type: 'text', text: 'Invalid arguments for tool "echo": argument "text" must be string' }]);
    });
  });

  it('inject app services into a TypeScript tool and hand it the caller, who sees only their own data', async () => {
    const alice = await cliToken(running, env, '--sub', 'alice', '--email', 'alice@example.com');
    const bob = await cliToken(running, env, '--sub', 'bob', '--email', 'bob@example.com');
    const asAlice = await withClient(running.url, '2026-07-28', bearer(alice), (client) => structured(client, 'my_account'));
    const asBob = await withClient(running.url, '2025-11-25', bearer(bob), (client) => structured(client, 'my_account'));
    expect(asAlice).toEqual({ email: 'alice@example.com', agent: null, injectedLogger: true });
    expect(asBob).toEqual({ email: 'bob@example.com', agent: null, injectedLogger: true });
    await withClient(running.url, '2025-11-25', {}, async (client) => {
      await expect(client.callTool({ name: 'my_account', arguments: {} })).rejects.toThrow(/Authentication required/);
    });
  });

  it("inject the memory store: a directory tool reads the caller's own memories, never another user's", async () => {
    const alice = await cliToken(running, env, '--sub', 'memory-alice', '--email', 'memory-alice@example.com');
    const bob = await cliToken(running, env, '--sub', 'memory-bob', '--email', 'memory-bob@example.com');
    await withClient(running.url, '2025-11-25', bearer(alice), (client) => structured(client, 'remember', { text: 'Alice is allergic to peanuts' }));
    const digest = (token: string) =>
      withClient(running.url, '2026-07-28', bearer(token), (client) => structured(client, 'memory_digest', { topic: 'peanuts' }));
    expect(await digest(alice)).toEqual({ texts: ['Alice is allergic to peanuts'] });
    expect(await digest(bob)).toEqual({ texts: [] });
  });

  it('publish resources and prompts of directory tools', async () => {
    await withClient(running.url, '2025-11-25', {}, async (client) => {
      expect((await client.listPrompts()).prompts.map((prompt) => prompt.name)).toContain('weekly_summary');
      const read = await client.readResource({ uri: 'mirobody://reports/latest' });
      expect(read.contents).toEqual([{ uri: 'mirobody://reports/latest', text: 'All quiet.', mimeType: 'text/plain' }]);
    });
  });
});

describe(`the worked example (${EXAMPLES_DIR})`, () => {
  it("counts the caller's own readings at or above the goal, never another user's", async () => {
    const alice = await cliToken(running, env, '--sub', 'goal-alice', '--email', 'goal-alice@example.com');
    const bob = await cliToken(running, env, '--sub', 'goal-bob', '--email', 'goal-bob@example.com');
    // Heart-rate readings stored the way users store them: FHIR Observations through the REST API.
    const readings: [string, number, number][] = [
      [alice, 120, 1],
      [alice, 95, 2],
      [alice, 101, 3],
      [alice, 150, 40], // older than the default 30 days
      [bob, 180, 1],
      [bob, 170, 2],
    ];
    for (const [token, value, daysAgo] of readings) {
      await storeHeartRate(running.url, token, value, daysAgo);
    }
    const count = (token: string, args: Record<string, unknown>) =>
      withClient(running.url, '2025-11-25', bearer(token), (client) => structured(client, 'count_readings_above_goal', args));
    expect(await count(alice, { indicator: '8867-4', goal: 100 })).toMatchObject({
      indicator: '8867-4',
      goal: 100,
      readings_examined: 3,
      readings_above_goal: 2,
    });
    expect(await count(alice, { indicator: '8867-4', goal: 100, days: 60 })).toMatchObject({ readings_examined: 4, readings_above_goal: 3 });
    expect(await count(bob, { indicator: '8867-4', goal: 100 })).toMatchObject({ readings_examined: 2, readings_above_goal: 2 });
    await withClient(running.url, '2025-11-25', bearer(alice), async (client) => {
      const refused = await client.callTool({ name: 'count_readings_above_goal', arguments: { indicator: '8867-4', goal: 100, days: 0 } });
      expect(refused.isError).toBe(true);
      expect(refused.content).toEqual([{ type: 'text', text: expect.stringMatching(/argument "days" must be >= 1/) }]);
    });
  });
});
