import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/client';
import { DataSource } from 'typeorm';
import { UserDataContributors } from '@app/common';
import { bearer, signHs256, structured, TEST_JWT_SECRET, withClient } from './support/auth.js';
import { startApp, type RunningApp } from './support/test-app.js';

const ISSUER = 'https://id.example.com';
const ENV = { JWT_SECRET: TEST_JWT_SECRET, JWT_ISSUER: ISSUER, JWT_AUDIENCE: 'mirobody', MCP_ALLOWED_HOSTS: '127.0.0.1' };
const ERA = '2025-11-25' as const;

let running: RunningApp;
const tokens: Record<'alice' | 'bob', string> = { alice: '', bob: '' };
type Person = keyof typeof tokens;

async function api(method: string, path: string, who: Person | null) {
  const response = await fetch(new URL(path, running.url), { method, headers: who ? bearer(tokens[who]) : {} });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

const errorText = (result: Awaited<ReturnType<Client['callTool']>>) => (result.content as { text: string }[])[0]!.text;

beforeAll(async () => {
  running = await startApp(ENV);
  for (const who of Object.keys(tokens) as Person[]) {
    tokens[who] = await signHs256(TEST_JWT_SECRET, { iss: ISSUER, aud: 'mirobody', sub: who, email: `${who}@example.com`, name: who });
  }
});

afterAll(async () => {
  await running?.close();
});

describe('summarize_conversation and /api/conversations', () => {
  it('titles the conversation named by X-Conversation-Id, cut at 200 characters on a character boundary', async () => {
    const summary = `${'a'.repeat(199)}😀😀 and more`;
    await withClient(running.url, ERA, { ...bearer(tokens.alice), 'x-conversation-id': 'conv-1' }, async (client) => {
      expect(await structured(client, 'summarize_conversation', { summary })).toEqual({ updated: true });
      expect(await structured(client, 'summarize_conversation', { summary: 'Sleep trends' })).toEqual({ updated: true });
    });
    await withClient(running.url, ERA, { ...bearer(tokens.alice), 'x-conversation-id': 'conv-2' }, (client) =>
      structured(client, 'summarize_conversation', { summary }),
    );
    const list = await api('GET', '/api/conversations', 'alice');
    expect(list.body.items.map((item: { id: string; title: string }) => [item.id, item.title])).toEqual([
      ['conv-2', `${'a'.repeat(199)}😀`],
      ['conv-1', 'Sleep trends'],
    ]);
    const firstPage = await api('GET', '/api/conversations?limit=1', 'alice');
    expect(firstPage.body.items).toHaveLength(1);
    const secondPage = await api('GET', `/api/conversations?limit=1&cursor=${firstPage.body.nextCursor}`, 'alice');
    expect(secondPage.body).toEqual({ items: [expect.objectContaining({ id: 'conv-1' })], nextCursor: null });
  });

  it("keeps each user's conversations their own", async () => {
    expect((await api('GET', '/api/conversations', 'bob')).body).toEqual({ items: [], nextCursor: null });
    expect((await api('DELETE', '/api/conversations/conv-1', 'bob')).status).toBe(404);
    expect((await api('DELETE', '/api/conversations/conv-1', null)).status).toBe(401);
    expect((await api('DELETE', '/api/conversations/conv-1', 'alice')).status).toBe(204);
    expect((await api('DELETE', '/api/conversations/conv-1', 'alice')).status).toBe(404);
    expect((await api('GET', '/api/conversations?cursor=nonsense', 'alice')).status).toBe(400);
  });

  it('refuses an empty summary', async () => {
    await withClient(running.url, ERA, bearer(tokens.alice), async (client) => {
      expect((await client.callTool({ name: 'summarize_conversation', arguments: { summary: '   ' } })).isError).toBe(true);
      expect((await client.callTool({ name: 'summarize_conversation', arguments: {} })).isError).toBe(true);
    });
  });
});

describe('render_chart', () => {
  it('links its MCP Apps view and serves it', async () => {
    await withClient(running.url, ERA, {}, async (client) => {
      const { tools } = await client.listTools();
      const tool = tools.find((entry) => entry.name === 'render_chart')!;
      expect(tool._meta).toEqual({ ui: { resourceUri: 'ui://mirobody/render-chart.html' }, 'ui/resourceUri': 'ui://mirobody/render-chart.html' });
      const { contents } = await client.readResource({ uri: 'ui://mirobody/render-chart.html' });
      expect(contents[0]).toMatchObject({ mimeType: 'text/html;profile=mcp-app', text: expect.stringContaining('echarts') });
    });
  });

  it('confirms a valid option for anyone and refuses a bad one naming what is wrong', async () => {
    await withClient(running.url, ERA, {}, async (client) => {
      const option = { xAxis: { type: 'category', data: ['Mon', 'Tue'] }, yAxis: { type: 'value' }, series: [{ type: 'line', data: [70.1, 70.4] }] };
      expect(await structured(client, 'render_chart', { option, title: 'Weight' })).toEqual({ shown: true, series_count: 1, title: 'Weight' });
      for (const [bad, says] of [
        [{ xAxis: {} }, 'series'],
        [{ series: [] }, 'series'],
        [{ series: [{ data: [1] }] }, 'type'],
        [{ series: [{ type: 'line', data: Array.from({ length: 40_000 }, (_, i) => i * 1.5) }] }, '256 KB'],
        // What the user's chat could not draw: the model was told the chart was shown.
        [{ series: [{ type: 'line', data: [1, 2] }] }, 'option cannot be drawn by ECharts: xAxis "0" not found'],
        [{ series: [{ type: 'lines-chart', data: [1, 2] }] }, 'Unknown series lines-chart'],
      ] as const) {
        const result = await client.callTool({ name: 'render_chart', arguments: { option: bad } });
        expect(result.isError).toBe(true);
        expect(errorText(result)).toContain(says);
      }
    });
  });
});

describe('conversation titles as user data', () => {
  it('are exported and erased for their owner only', async () => {
    const contributor = running.app
      .get(UserDataContributors)
      .all()
      .find((entry) => entry.name === 'conversations')!.contributor;
    const ids = (await running.app.get(DataSource).query('SELECT id, subject FROM users WHERE issuer = $1 ORDER BY subject', [ISSUER])) as { id: string }[];
    const [alice, bob] = ids.map((row) => row.id);
    await withClient(running.url, ERA, { ...bearer(tokens.bob), 'x-conversation-id': 'bobs' }, (client) =>
      structured(client, 'summarize_conversation', { summary: 'Bob' }),
    );
    expect(await contributor.exportFor(alice!)).toEqual([expect.objectContaining({ id: 'conv-2' })]);
    await contributor.eraseFor(alice!);
    expect(await contributor.countFor(alice!)).toBe(0);
    expect(await contributor.countFor(bob!)).toBe(1);
  });

  it('are documented in OpenAPI', async () => {
    const document = (await api('GET', '/openapi.json', null)).body as {
      paths: Record<string, Record<string, unknown>>;
      components: { schemas: Record<string, unknown> };
    };
    expect(Object.keys(document.paths['/api/conversations']!)).toEqual(['get']);
    expect(Object.keys(document.paths['/api/conversations/{conversationId}']!)).toEqual(['delete']);
    expect(document.components.schemas).toHaveProperty('ConversationPageDto');
  });
});
