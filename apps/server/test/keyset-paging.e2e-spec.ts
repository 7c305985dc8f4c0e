import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { uploadFile } from './support/files.js';
import { userIdOf, walkCallers, WALK_ENV, type Caller } from './support/openapi-routes.js';
import { startApp, type RunningApp } from './support/test-app.js';

/**
 * A list pages through every row once, however close in time the rows were stored: the database
 * keeps microseconds, and a cursor cut to the millisecond of a `Date` skipped the rows stored
 * later in the same millisecond (issue 32: what a cursor encodes is what the next page's query reads).
 */
const STORED_AT = ['2026-01-01T00:00:00.123400Z', '2026-01-01T00:00:00.123900Z', '2026-01-01T00:00:00.123900Z', '2026-01-01T00:00:00.124000Z'];

let running: RunningApp;
let user: Caller;
let userId: string;
let database: DataSource;

beforeAll(async () => {
  running = await startApp({ ...WALK_ENV, FILES_OCR: 'off' });
  const callers = await walkCallers();
  user = callers.user;
  userId = await userIdOf(running, user, callers.admin);
  database = running.app.get(DataSource);
}, 60_000);

afterAll(() => running?.close());

async function post<Answer>(path: string, body: unknown): Promise<Answer> {
  const response = await fetch(new URL(path, running.url), {
    method: 'POST',
    headers: { ...user.headers, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(201);
  return (await response.json()) as Answer;
}

/** Every item's id, a page of one at a time. */
async function walk(list: string, idOf: (item: Record<string, string>) => string): Promise<string[]> {
  const seen: string[] = [];
  let cursor: string | null = null;
  do {
    const response = await fetch(new URL(`${list}?limit=1${cursor ? `&cursor=${cursor}` : ''}`, running.url), { headers: user.headers });
    expect(response.status).toBe(200);
    const page = (await response.json()) as { items: Record<string, string>[]; nextCursor: string | null };
    seen.push(...page.items.map(idOf));
    cursor = page.nextCursor;
  } while (cursor && seen.length <= STORED_AT.length);
  return seen;
}

/** Each list: how to store one row (its id in the list), and the table and column its keyset starts with. */
const LISTS: [string, (index: number) => Promise<string>, string, string, string, (item: Record<string, string>) => string][] = [
  [
    '/api/memories',
    async (index) => (await post<{ memory: { id: string } }>('/api/memories', { text: `keyset memory ${index}` })).memory.id,
    'memories',
    'created_at',
    'id',
    (item) => item.id!,
  ],
  [
    '/api/files',
    async (index) => (await uploadFile(running, user.headers.authorization!.slice(7), `keyset-${index}.txt`, `file ${index}`)).body.fileKey as string,
    'files',
    'created_at',
    'file_key',
    (item) => item.fileKey!,
  ],
  [
    '/api/conversations',
    async (index) => {
      await database.query('INSERT INTO conversations (user_id, id, title) VALUES ($1, $2, $3)', [userId, `keyset-${index}`, `Conversation ${index}`]);
      return `keyset-${index}`;
    },
    'conversations',
    'updated_at',
    'id',
    (item) => item.id!,
  ],
  [
    '/api/mcp-secrets',
    async (index) => (await post<{ id: string }>('/api/mcp-secrets', { label: `keyset ${index}` })).id,
    'mcp_secrets',
    'created_at',
    'id',
    (item) => item.id!,
  ],
];

describe('keyset pages', () => {
  it.each(LISTS)('of %s show each of four rows stored within two milliseconds once', async (list, store, table, column, key, idOf) => {
    const ids: string[] = [];
    for (const [index, at] of STORED_AT.entries()) {
      const id = await store(index);
      await database.query(`UPDATE ${table} SET ${column} = $1 WHERE ${key} = $2`, [at, id]);
      ids.push(id);
    }
    expect((await walk(list, idOf)).sort()).toEqual(ids.sort());
  });
});
