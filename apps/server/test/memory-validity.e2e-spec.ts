import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { bearer, structured, TEST_JWT_SECRET, toolError, withClient } from './support/auth.js';
import { jsonCall } from './support/json-call.js';
import { partyOf, type Party } from './support/parties.js';
import { connectClient, ERAS, startApp, type Era, type RunningApp } from './support/test-app.js';

/** Facts that change, over the official MCP client: remember with replaces or key, recall by validity, forget_memory. */
const ENV = { JWT_SECRET: TEST_JWT_SECRET, RATE_LIMIT_REQUESTS: '0' };

let running: RunningApp;

beforeAll(async () => {
  running = await startApp(ENV);
}, 120_000);

afterAll(() => running?.close());

type Memory = { id: string; text: string; valid_from: string; valid_to: string | null; superseded_by: string | null };
const recall = async (client: Client, args: Record<string, unknown>) => (await structured(client, 'recall_memory', args)).memories as Memory[];
const textsOf = (memories: { text: string }[]) => memories.map((memory) => memory.text);

/** What the user answers when forget_memory asks them to confirm, and the forms they were shown. */
interface Confirmer {
  answer: (offered: string[]) => { action: 'accept' | 'decline' | 'cancel'; content?: { forget: string[] } };
  asked: { message: string; offered: string[] }[];
}

/** An official client that declares form elicitation and answers forms as `confirmer` says (in a 2025 session or in-band on 2026-07-28). */
async function withConfirmingClient<T>(era: Era, party: Party, confirmer: Confirmer, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client(
    { name: 'e2e-confirming', version: '1.0.0' },
    { capabilities: { elicitation: { form: {} } }, ...(era === '2026-07-28' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {}) },
  );
  client.setRequestHandler('elicitation/create', async (request) => {
    const schema = request.params as unknown as { message: string; requestedSchema: { properties: { forget: { items: { anyOf: { const: string }[] } } } } };
    const offered = schema.requestedSchema.properties.forget.items.anyOf.map((option) => option.const);
    confirmer.asked.push({ message: schema.message, offered });
    return confirmer.answer(offered);
  });
  await client.connect(new StreamableHTTPClientTransport(running.url, { requestInit: { headers: bearer(party.token) } }));
  try {
    return await work(client);
  } finally {
    await client.close();
  }
}

describe.each(ERAS)('facts that change, over MCP (revision %s)', (era) => {
  let alice: Party;
  let bob: Party;

  beforeAll(async () => {
    [alice, bob] = await Promise.all([partyOf(running, `alice-${era}`), partyOf(running, `bob-${era}`)]);
  });

  it('Paris, then Berlin: recall answers Berlin only; as of before the move, Paris; with history, both', async () => {
    await withClient(running.url, era, bearer(alice.token), async (client) => {
      const paris = await structured(client, 'remember', { text: 'I live in Paris', valid_from: '2021-04-01' });
      expect(paris).toEqual({ id: expect.any(String), stored: true, superseded: [], related: [] });
      const [found] = await recall(client, { query: 'where do I live' });
      expect(found).toEqual({
        id: paris.id,
        text: 'I live in Paris',
        kind: 'fact',
        key: null,
        score: expect.any(Number),
        created_at: expect.any(String),
        valid_from: '2021-04-01T00:00:00.000Z',
        valid_to: null,
        superseded_by: null,
      });
      const berlin = await structured(client, 'remember', { text: 'I moved to Berlin', valid_from: '2025-02-01', replaces: [paris.id] });
      expect(berlin).toEqual({ id: expect.any(String), stored: true, superseded: [{ id: paris.id, text: 'I live in Paris', key: null }], related: [] });

      expect(textsOf(await recall(client, { query: 'where do I live' }))).toEqual(['I moved to Berlin']);
      const before = await recall(client, { query: 'where do I live', as_of: '2023-06-01' });
      expect(before).toEqual([
        expect.objectContaining({ id: paris.id, valid_from: '2021-04-01T00:00:00.000Z', valid_to: '2025-02-01T00:00:00.000Z', superseded_by: berlin.id }),
      ]);
      const history = await recall(client, { query: 'where do I live', include_history: true });
      expect(history.map((memory) => [memory.text, memory.superseded_by])).toEqual([
        ['I moved to Berlin', null],
        ['I live in Paris', berlin.id],
      ]);
      const rest = await jsonCall(running, 'GET', `/api/memories/${paris.id}/history`, alice.token);
      expect(rest.body.items.map((memory: { id: string }) => memory.id)).toEqual([berlin.id, paris.id]);
    });
  });

  it('supersedes by key: the newest memory of a slot is the current one, and the old stays readable', async () => {
    await withClient(running.url, era, bearer(alice.token), async (client) => {
      const okafor = await structured(client, 'remember', { text: 'My doctor is Dr. Okafor', key: 'doctor' });
      const smith = await structured(client, 'remember', { text: 'Dr. Smith is my doctor now', key: 'Doctor' });
      expect(smith.superseded).toEqual([{ id: okafor.id, text: 'My doctor is Dr. Okafor', key: 'doctor' }]);
      expect(textsOf(await recall(client, { query: 'who is my doctor' }))).toEqual(['Dr. Smith is my doctor now']);
      expect((await jsonCall(running, 'GET', `/api/memories/${okafor.id}`, alice.token)).body).toMatchObject({ supersededBy: smith.id, key: 'doctor' });
    });
  });

  it("refuses another user's memory in replaces, naming it, and changes nothing of either", async () => {
    const rome = await withClient(running.url, era, bearer(bob.token), (client) => structured(client, 'remember', { text: 'Bob lives in Rome' }));
    await withClient(running.url, era, bearer(alice.token), async (client) => {
      const error = await toolError(client, 'remember', { text: 'Alice lives in Naples', replaces: [rome.id] });
      expect(error).toContain(`${rome.id} is not a memory of yours`);
      expect(await recall(client, { query: 'Naples' })).toEqual([]);
      expect(await toolError(client, 'remember', { text: 'x', valid_from: 'last spring' })).toMatch(/^valid_from must be an ISO 8601 date/);
      expect(await toolError(client, 'recall_memory', { query: 'x', as_of: '2024-01-01', include_history: true })).toMatch(/as_of and include_history/);
    });
    expect((await jsonCall(running, 'GET', `/api/memories/${rome.id}`, bob.token)).body).toMatchObject({ validTo: null, supersededBy: null });
  });

  it('keeps one consistent chain when several remembers replace the same memory at once', async () => {
    await withClient(running.url, era, bearer(alice.token), async (client) => {
      const oslo = await structured(client, 'remember', { text: 'Alice lives in Oslo' });
      const answers = await Promise.all(
        ['Copenhagen', 'Stockholm', 'Helsinki'].map((city) =>
          client.callTool({ name: 'remember', arguments: { text: `Alice moved to ${city}`, replaces: [oslo.id] } }),
        ),
      );
      const stored = answers.filter((answer) => !answer.isError).map((answer) => answer.structuredContent as { id: string });
      expect(stored).toHaveLength(1);
      for (const refused of answers.filter((answer) => answer.isError)) {
        expect((refused.content as { text: string }[])[0]!.text).toContain(`${oslo.id} was already superseded by ${stored[0]!.id}`);
      }
      const history = await jsonCall(running, 'GET', `/api/memories/${oslo.id}/history`, alice.token);
      expect(history.body.items.map((memory: { id: string }) => memory.id)).toEqual([stored[0]!.id, oslo.id]);
    });
  });

  it('forget_memory by ids forgets at once; ids that are not the caller’s are refused by name, nothing forgotten', async () => {
    const bobs = await withClient(running.url, era, bearer(bob.token), (client) => structured(client, 'remember', { text: 'Bob collects stamps' }));
    await withClient(running.url, era, bearer(alice.token), async (client) => {
      const stamps = await structured(client, 'remember', { text: 'Alice collects stamps' });
      expect(await toolError(client, 'forget_memory', { ids: [stamps.id, bobs.id] })).toContain(`ids must name memories of yours: ${bobs.id} is not`);
      expect(textsOf(await recall(client, { query: 'stamps' }))).toEqual(['Alice collects stamps']);
      expect(await structured(client, 'forget_memory', { ids: [stamps.id] })).toEqual({
        forgotten: [{ id: stamps.id, text: 'Alice collects stamps', key: null }],
      });
      expect(await recall(client, { query: 'stamps' })).toEqual([]);
      expect(await toolError(client, 'forget_memory', { ids: [stamps.id] })).toContain(stamps.id);
      expect(await toolError(client, 'forget_memory', {})).toBe('forget_memory takes either ids or a query');
    });
    expect((await jsonCall(running, 'GET', `/api/memories/${bobs.id}`, bob.token)).status).toBe(200);
  });

  it('forget_memory by query, without elicitation: answers the matches and forgets nothing until called with their ids', async () => {
    await withClient(running.url, era, bearer(alice.token), async (client) => {
      const piano = await structured(client, 'remember', { text: 'Alice plays the piano on Sundays' });
      const answer = await structured(client, 'forget_memory', { query: 'piano' });
      expect(answer).toEqual({
        forgotten: [],
        matches: [expect.objectContaining({ id: piano.id, text: 'Alice plays the piano on Sundays' })],
        note: expect.any(String),
      });
      expect(textsOf(await recall(client, { query: 'piano' }))).toEqual(['Alice plays the piano on Sundays']);
      expect((await structured(client, 'forget_memory', { ids: [piano.id] })).forgotten).toHaveLength(1);
      expect(await recall(client, { query: 'piano' })).toEqual([]);
    });
  });

  it('forget_memory by query, with elicitation: the user confirms in a form and only what they tick is forgotten', async () => {
    const confirmer: Confirmer = { asked: [], answer: () => ({ action: 'decline' }) };
    await withConfirmingClient(era, alice, confirmer, async (client) => {
      const old = await structured(client, 'remember', { text: 'Alice swims at the Riverside pool' });
      const current = await structured(client, 'remember', { text: 'Alice swims at the Harbour pool', replaces: [old.id] });
      const other = await structured(client, 'remember', { text: 'Alice swims in the sea in summer' });

      // Declined: nothing is forgotten.
      expect(await structured(client, 'forget_memory', { query: 'swims pool' })).toMatchObject({ forgotten: [], note: expect.stringContaining('decline') });
      expect(confirmer.asked[0]!.offered.sort()).toEqual([old.id, current.id, other.id].sort());
      expect(confirmer.asked[0]!.message).toMatch(/^Forget these 3 memories\?/);

      // Accepted with the sea unticked: the pool's two versions go, the sea stays.
      confirmer.answer = (offered) => ({ action: 'accept', content: { forget: offered.filter((id) => id !== other.id) } });
      const answer = await structured(client, 'forget_memory', { query: 'swims pool' });
      expect((answer.forgotten as { id: string }[]).map((memory) => memory.id).sort()).toEqual([old.id, current.id].sort());
      expect(textsOf(await recall(client, { query: 'swims', include_history: true }))).toEqual(['Alice swims in the sea in summer']);
    });
  });
});

describe('forget_memory, remember and recall_memory', () => {
  it('refuse the anonymous caller', async () => {
    const anonymous = await connectClient(running.url, '2025-11-25');
    try {
      await expect(anonymous.callTool({ name: 'forget_memory', arguments: { query: 'x' } })).rejects.toThrow('Authentication required');
    } finally {
      await anonymous.close();
    }
  });
});
