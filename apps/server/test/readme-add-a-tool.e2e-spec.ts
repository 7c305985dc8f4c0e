import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ESLint } from 'eslint';
import { GoalToolsModule } from '../../../examples/add-a-tool/goal-tools.module.js';
import { bearer, cliToken, structured, TEST_JWT_SECRET, toolError, withClient } from './support/auth.js';
import { storeHeartRate } from './support/observations.js';
import { ERAS, postRaw, startApp, type RunningApp } from './support/test-app.js';

/** The README's "Add a tool" example, imported as the README says, does what the README says. */
const readme = readFileSync(resolve(import.meta.dirname, '../../../README.md'), 'utf8');
const addATool = readme.slice(readme.indexOf('## Add a tool'), readme.indexOf('### Serve your own tools'));
const publishedSchema = JSON.parse(/^```json\n([\s\S]*?)^```$/m.exec(addATool)![1]!);

let running: RunningApp;
const env = { JWT_SECRET: TEST_JWT_SECRET };

beforeAll(async () => {
  running = await startApp(env, { imports: [GoalToolsModule] });
});

afterAll(async () => {
  await running?.close();
});

describe('README, "Add a tool"', () => {
  it('passes the lint rules in apps/, and is refused in libs/ as the README says (DataSource)', async () => {
    const root = resolve(import.meta.dirname, '../../..');
    const source = readFileSync(resolve(root, 'examples/add-a-tool/goal-tools.module.ts'), 'utf8');
    const eslint = new ESLint({ cwd: root });
    const [inApps] = await eslint.lintText(source, { filePath: resolve(root, 'apps/server/src/tools/goal-tools.module.ts') });
    expect(inApps!.messages).toEqual([]);
    const [inLibs] = await eslint.lintText(source, { filePath: resolve(root, 'libs/tools/src/goal-tools.module.ts') });
    expect(inLibs!.messages.map((message) => message.message)).toEqual([expect.stringContaining('instead of the DataSource')]);
  });

  it.each(ERAS)('publishes count_readings_above_goal with the input schema the README shows (%s)', async (era) => {
    const tools = await withClient(running.url, era, {}, async (client) => (await client.listTools()).tools);
    expect(tools.find((tool) => tool.name === 'count_readings_above_goal')?.inputSchema).toEqual(publishedSchema);
  });

  it("counts the caller's own recent readings at or above the goal, never another user's", async () => {
    const alice = await cliToken(running, env, '--sub', 'readme-alice');
    const bob = await cliToken(running, env, '--sub', 'readme-bob');
    await storeHeartRate(running.url, alice, 130, 1);
    await storeHeartRate(running.url, alice, 90, 2);
    await storeHeartRate(running.url, alice, 125, 45); // older than the default 30 days
    await storeHeartRate(running.url, bob, 180, 1);
    const count = (token: string, args: Record<string, unknown>) =>
      withClient(running.url, '2025-11-25', bearer(token), (client) => structured(client, 'count_readings_above_goal', args));
    expect(await count(alice, { indicator: '8867-4', goal: 120 })).toEqual({ indicator: '8867-4', goal: 120, readingsAboveGoal: 1 });
    expect(await count(alice, { indicator: '8867-4', goal: 120, days: 90 })).toMatchObject({ readingsAboveGoal: 2 });
    expect(await count(bob, { indicator: '8867-4', goal: 120 })).toMatchObject({ readingsAboveGoal: 1 });
    const refused = await withClient(running.url, '2025-11-25', bearer(alice), (client) =>
      toolError(client, 'count_readings_above_goal', { indicator: '8867-4', goal: 'high', user_id: 'someone' }),
    );
    expect(refused).toMatch(/unknown argument "user_id".*argument "goal" must be number|argument "goal" must be number.*unknown argument "user_id"/);
    const outsideTheUnion = await withClient(running.url, '2025-11-25', bearer(alice), (client) =>
      toolError(client, 'count_readings_above_goal', { indicator: '8867-4', goal: 120, days: 45 }),
    );
    expect(outsideTheUnion).toMatch(/argument "days" must be one of: 7, 30, 90/);
  });

  it('publishes the result type as its outputSchema, which the result meets (the official client checks it)', async () => {
    const tools = await withClient(running.url, '2025-11-25', {}, async (client) => (await client.listTools()).tools);
    expect(tools.find((tool) => tool.name === 'count_readings_above_goal')?.outputSchema).toEqual({
      type: 'object',
      properties: { indicator: { type: 'string' }, goal: { type: 'number' }, readingsAboveGoal: { type: 'number' } },
      required: ['indicator', 'goal', 'readingsAboveGoal'],
    });
  });

  it('refuses an anonymous caller with 401', async () => {
    const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'count_readings_above_goal', arguments: { indicator: '8867-4', goal: 1 } } };
    expect((await postRaw(running.url, JSON.stringify(call))).status).toBe(401);
  });
});
