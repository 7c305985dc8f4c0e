import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { LOG_LEVEL_META_KEY, type Client } from '@modelcontextprotocol/client';
import { connectClient, ERAS, startApp, type RunningApp } from './support/test-app.js';

let running: RunningApp;

beforeAll(async () => {
  running = await startApp();
});

afterAll(async () => {
  await running.close();
});

describe.each(ERAS)('MCP over Streamable HTTP with the official client, revision %s', (era) => {
  let client: Client;

  beforeAll(async () => {
    client = await connectClient(running.url, era);
  });

  afterAll(async () => {
    await client.close();
  });

  it('negotiates the requested revision', () => {
    expect(client.getProtocolEra()).toBe(era === '2026-07-28' ? 'modern' : 'legacy');
  });

  it('lists echo with its generated schema', async () => {
    const { tools } = await client.listTools();
    const echo = tools.find((tool) => tool.name === 'echo');
    expect(echo?.inputSchema).toEqual({
      type: 'object',
      properties: { text: { type: 'string', description: 'Text to echo back, e.g. "hello"' } },
      required: ['text'],
      additionalProperties: false,
    });
    expect(echo?.annotations?.readOnlyHint).toBe(true);
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['count_slowly', 'add', 'my_email']));
  });

  it('calls echo and returns data as text and structured content', async () => {
    const result = await client.callTool({ name: 'echo', arguments: { text: 'hello' } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ echo: 'hello' });
    expect(result.content).toEqual([{ type: 'text', text: '{"echo":"hello"}' }]);
  });

  it('applies defaults', async () => {
    const result = await client.callTool({ name: 'add', arguments: { a: 2 } });
    expect(result.structuredContent).toEqual({ sum: 12 });
  });

  it.each([
    [{ text: 5 }, 'argument "text" must be string'],
    [{}, 'missing required argument "text"'],
    [{ text: 'x', user_id: 'someone-else' }, 'unknown argument "user_id"'],
  ])('rejects invalid arguments %j, naming the argument', async (args, message) => {
    const result = await client.callTool({ name: 'echo', arguments: args });
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([{ type: 'text', text: expect.stringContaining(message) }]);
  });

  it('answers an unknown tool with invalid params (-32602)', async () => {
    await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toMatchObject({ code: -32602 });
  });

  it('challenges a call of an auth tool without a caller with HTTP 401', async () => {
    await expect(client.callTool({ name: 'my_email', arguments: {} })).rejects.toMatchObject({ status: 401 });
  });

  it('streams progress and log notifications before the result', async () => {
    const progress: number[] = [];
    const logs: unknown[] = [];
    client.setNotificationHandler('notifications/message', (notification) => {
      logs.push(notification.params.data);
    });
    // 2025 sets the level per session; 2026 opts in per request through the `_meta` envelope.
    if (era === '2025-11-25') await client.setLoggingLevel('debug');
    const _meta = era === '2026-07-28' ? { [LOG_LEVEL_META_KEY]: 'debug' } : undefined;
    const result = await client.callTool({ name: 'count_slowly', arguments: { steps: 3 }, _meta }, { onprogress: (update) => progress.push(update.progress) });
    expect(result.structuredContent).toEqual({ counted: 3 });
    expect(progress).toEqual([1, 2, 3]);
    expect(logs).toEqual(['step 1 of 3', 'step 2 of 3', 'step 3 of 3']);
  });
});
