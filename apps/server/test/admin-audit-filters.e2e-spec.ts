import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { expectAdminOnly, parseCsv, refusedFields, restCall, sql, userIdOf, type Answer } from './support/admin-calls.js';
import { signHs256, TEST_JWT_SECRET } from './support/auth.js';
import { startApp, type RunningApp } from './support/test-app.js';

/** The console's Audit page: the trail filtered by who, what, on whom and when, a page at a time or as CSV. */

interface Entry {
  id: string;
  at: string;
  actorId: string;
  actorEmail: string | null;
  actorAddress: string | null;
  action: string;
  targetUserId: string | null;
  targetEmail: string | null;
  detail: Record<string, unknown> | null;
}

const CSV_HEADER = ['id', 'at', 'actorId', 'actorEmail', 'action', 'targetUserId', 'targetEmail', 'detail', 'actorAddress'];
/** More entries than the export reads per query, so that it goes on from page to page. */
const BULK_ENTRIES = 2_500;

let running: RunningApp;
let root: string;
let ops: string;
let user: string;
let rootId: string;
let opsId: string;
let bobId: string;
let ginaId: string;
const token = (sub: string, extra: Record<string, unknown> = {}) => signHs256(TEST_JWT_SECRET, { sub, email: `${sub}@example.com`, ...extra });
const call = (method: string, path: string, credential = root) => restCall(running, method, path, credential);

/** Every entry a filter selects, page after page of `limit`. */
async function everyPage(query: string, limit = 200): Promise<Entry[]> {
  const entries: Entry[] = [];
  let cursor: string | null = '';
  while (cursor !== null) {
    const page: Answer = await call('GET', `/admin/audit?${query}&limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
    expect(page.status).toBe(200);
    entries.push(...page.json.items);
    cursor = page.json.nextCursor;
  }
  return entries;
}

const actions = async (query: string) => (await everyPage(query)).map((entry) => entry.action);

beforeAll(async () => {
  running = await startApp({ JWT_SECRET: TEST_JWT_SECRET });
  root = await token('root', { roles: ['admin'] });
  ops = await token('ops', { roles: ['admin'] });
  user = await token('plain');
  rootId = await userIdOf(running, root);
  opsId = await userIdOf(running, ops);
  await userIdOf(running, user);
  bobId = await userIdOf(running, await token('bob'));
  ginaId = await userIdOf(running, await token('gina'));
  expect((await call('GET', `/admin/users/${bobId}`)).status).toBe(200);
  expect((await call('POST', `/admin/users/${bobId}/disable`)).status).toBe(200);
  expect((await call('POST', `/admin/users/${bobId}/enable`)).status).toBe(200);
  expect((await call('GET', `/admin/users/${bobId}/memories`, ops)).status).toBe(200);
  expect((await call('GET', `/admin/users/${ginaId}`, ops)).status).toBe(200);
  expect((await call('DELETE', `/admin/users/${ginaId}`, ops)).status).toBe(204);
  // What no route writes: old entries, and an actor and a detail that a spreadsheet would run or a CSV writer could break on.
  await sql(
    running,
    `INSERT INTO admin_audit (actor_id, actor_email, action, target_user_id, detail, at) VALUES
       ($1, 'root@example.com', 'legacy.import', NULL, NULL, '2020-01-01T00:00:00Z'),
       ($1, 'root@example.com', 'legacy.import', NULL, NULL, '2020-01-02T00:00:00Z'),
       ($1, 'root@example.com', 'legacy.import', NULL, NULL, '2020-01-03T00:00:00Z'),
       ($1, '=HYPERLINK("http://evil.example","x")@evil.example', 'legacy.hostile', $2, '{"note": "a, \\"quoted\\"\\r\\nline"}', '2020-01-04T00:00:00Z')`,
    [rootId, bobId],
  );
}, 120_000);

afterAll(() => running?.close());

describe('who may call', () => {
  it.each(['/admin/audit', '/admin/audit/export'])('GET %s: 401 anonymous, 403 a user', async (path) => {
    await expectAdminOnly(running, 'GET', path, user);
  });
});

describe('the filters', () => {
  it('actor: a user id matches that admin exactly; other text part of their e-mail, case-insensitively, literally', async () => {
    const byOps = await everyPage(`actor=${opsId}`);
    expect(byOps.map((entry) => entry.action)).toEqual(['user.erase', 'user.view', 'memories.view']);
    expect(byOps.every((entry) => entry.actorId === opsId)).toBe(true);
    expect(await actions(`actor=${opsId.toUpperCase()}`)).toEqual(['user.erase', 'user.view', 'memories.view']);
    expect(await actions('actor=OPS%40EXAMPLE')).toEqual(['user.erase', 'user.view', 'memories.view']);
    expect(await actions('actor=%25')).toEqual([]);
    expect(await actions('actor=_')).toEqual([]);
  });

  it('action: exact, or every action of an area with .*', async () => {
    expect(await actions(`action=user.view`)).toEqual(['user.view', 'user.view']);
    expect(await actions(`action=user.*&actor=${rootId}`)).toEqual(['user.enable', 'user.disable', 'user.view']);
    expect(await actions('action=user')).toEqual([]);
    expect(await actions('action=user.')).toEqual([]);
    expect(await actions('action=%25.*')).toEqual([]);
    expect(await actions('action=legacy.*')).toEqual(['legacy.hostile', 'legacy.import', 'legacy.import', 'legacy.import']);
  });

  it("target: the entries about one user, each with the target's e-mail now, null once erased", async () => {
    const aboutBob = await everyPage(`target=${bobId}`);
    expect(aboutBob.map((entry) => entry.action)).toEqual(['legacy.hostile', 'memories.view', 'user.enable', 'user.disable', 'user.view']);
    expect(new Set(aboutBob.map((entry) => entry.targetEmail))).toEqual(new Set(['bob@example.com']));
    const aboutGina = await everyPage(`target=${ginaId}`);
    expect(aboutGina.map(({ action, targetEmail }) => [action, targetEmail])).toEqual([
      ['user.erase', null],
      ['user.view', null],
    ]);
    expect(await everyPage('action=legacy.import')).toEqual(expect.arrayContaining([expect.objectContaining({ targetUserId: null, targetEmail: null })]));
  });

  it('from (inclusive) and to (exclusive), in any time zone', async () => {
    const between = async (from: string, to: string) => (await everyPage(`from=${from}&to=${to}`)).map((entry) => entry.at);
    expect(await between('2020-01-01T00:00:00Z', '2020-01-03T00:00:00Z')).toEqual(['2020-01-02T00:00:00.000Z', '2020-01-01T00:00:00.000Z']);
    expect(await between('2020-01-01T01:00:00%2B01:00', '2020-01-02T00:00:00.001Z')).toEqual(['2020-01-02T00:00:00.000Z', '2020-01-01T00:00:00.000Z']);
    expect(await between('2020-01-02T00:00:00Z', '2020-01-02T00:00:00Z')).toEqual([]);
    expect((await everyPage('from=2020-01-04T00:00:00Z&action=legacy.*')).map((entry) => entry.action)).toEqual(['legacy.hostile']);
    expect((await everyPage('to=2020-01-02T00:00:00Z')).map((entry) => entry.at)).toEqual(['2020-01-01T00:00:00.000Z']);
  });

  it('pages through a filtered list, each entry once; a cursor of another filter goes on below its entry', async () => {
    const whole = await everyPage('action=user.*');
    expect(await everyPage('action=user.*', 1)).toEqual(whole);
    // The newest entry is the hostile one, written last: a cursor past it, under another filter, goes on below it.
    const newest = (await call('GET', '/admin/audit?limit=1')).json;
    expect(newest.items[0].action).toBe('legacy.hostile');
    const continued = await everyPage(`action=legacy.*&cursor=${newest.nextCursor}`);
    expect(continued.map((entry) => entry.action)).toEqual(['legacy.import', 'legacy.import', 'legacy.import']);
  });

  it.each([
    ['target=not-a-uuid', ['target']],
    ['actor=', ['actor']],
    [`actor=${'a'.repeat(321)}`, ['actor']],
    ['action=', ['action']],
    ['actor=a%00b', ['actor']],
    ['action=user.%00*', ['action']],
    ['from=2020-01-01', ['from']],
    ['from=2020-01-01T00:00:00', ['from']],
    ['to=2026-02-30T00:00:00Z', ['to']],
    ['to=yesterday', ['to']],
    ['from=0000-01-01T00:00:00Z', ['from']],
    ['from=2020-01-02T00:00:00Z&to=2020-01-01T00:00:00Z', ['from']],
    ['limit=0', ['limit']],
    ['cursor=nonsense', ['cursor']],
    ['who=root', ['who']],
  ])('refuses ?%s with a 400 naming the parameter', async (query, fields) => {
    for (const route of ['/admin/audit', '/admin/audit/export']) {
      if (route.endsWith('export') && /^(limit|cursor)=/.test(query)) continue;
      expect(await refusedFields(running, 'GET', `${route}?${query}`, root)).toEqual({ path: `${route}?${query}`, status: 400, fields });
    }
  });

  it('tells why a time is refused', async () => {
    const answer = await call('GET', '/admin/audit?to=2026-02-30T00:00:00Z');
    expect(answer.json.fields).toEqual({ to: 'to has no day 30 in 2026-02' });
    expect((await call('GET', '/admin/audit?from=2020-01-02T00:00:00Z&to=2020-01-01T00:00:00Z')).json.fields).toEqual({ from: 'must not be after to' });
  });
});

describe('the CSV export', () => {
  const exportOf = async (query: string) => {
    const answer = await call('GET', `/admin/audit/export?${query}`);
    expect(answer.status).toBe(200);
    return answer;
  };
  const asEntry = ([id, at, actorId, actorEmail, action, targetUserId, targetEmail, detail, actorAddress]: string[]) => ({
    id,
    at,
    actorId,
    actorEmail: actorEmail || null,
    actorAddress: actorAddress || null,
    action,
    targetUserId: targetUserId || null,
    targetEmail: targetEmail || null,
    detail: detail ? JSON.parse(detail) : null,
  });

  it('is the filtered list as an attachment: RFC 4180, formula cells defused, on the audit trail', async () => {
    const listed = await everyPage(`target=${bobId}`);
    const answer = await exportOf(`target=${bobId}`);
    expect(answer.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(answer.headers.get('content-disposition')).toBe('attachment; filename="audit.csv"');
    const [header, ...rows] = parseCsv(answer.text);
    expect(header).toEqual(CSV_HEADER);
    expect(answer.text.startsWith(`${CSV_HEADER.join(',')}\r\n`)).toBe(true);

    const hostile = rows.find((row) => row[4] === 'legacy.hostile')!;
    expect(hostile[3]).toBe(`'=HYPERLINK("http://evil.example","x")@evil.example`);
    expect(JSON.parse(hostile[7]!)).toEqual({ note: 'a, "quoted"\r\nline' });
    const undone = (row: string[]) => row.map((cell) => (cell.startsWith("'=") ? cell.slice(1) : cell));
    expect(rows.map((row) => asEntry(undone(row)))).toEqual(listed);

    const [newest] = (await call('GET', '/admin/audit?limit=1')).json.items;
    expect(newest).toMatchObject({ action: 'audit.export', actorId: rootId, targetUserId: null, detail: { target: bobId } });
  });

  it('holds its own entry when nothing filters it out, and records its filters', async () => {
    const [first] = parseCsv((await exportOf('')).text).slice(1);
    expect(asEntry(first!)).toMatchObject({ action: 'audit.export', actorId: rootId, detail: {} });
    await exportOf('action=legacy.*&from=2020-01-01T00:00:00Z&to=2021-01-01T00:00:00Z');
    const [newest] = (await call('GET', '/admin/audit?limit=1')).json.items;
    expect(newest.detail).toEqual({ action: 'legacy.*', from: '2020-01-01T00:00:00.000Z', to: '2021-01-01T00:00:00.000Z' });
  });

  it('streams a trail longer than one page of its reads, newest first, each entry once', async () => {
    await sql(
      running,
      `INSERT INTO admin_audit (actor_id, actor_email, action, at)
       SELECT $1, 'root@example.com', 'bulk.entry', '2021-01-01T00:00:00Z'::timestamptz + n * interval '1 minute' FROM generate_series(1, ${BULK_ENTRIES}) n`,
      [rootId],
    );
    const rows = parseCsv((await exportOf('action=bulk.entry')).text).slice(1);
    expect(rows).toHaveLength(BULK_ENTRIES);
    const ids = rows.map((row) => BigInt(row[0]!));
    expect(ids.every((id, index) => index === 0 || id < ids[index - 1]!)).toBe(true);
    expect(rows.at(-1)![1]).toBe('2021-01-01T00:01:00.000Z');
  });
});
