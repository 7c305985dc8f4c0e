import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { eachConcurrently, readOperations, targetOf, userIdOf, walkCallers, WALK_ENV, type Caller, type Operation } from './support/openapi-routes.js';
import { rawRequest } from './support/raw-http.js';
import { startApp, type RunningApp } from './support/test-app.js';

/** Every paginated route of the OpenAPI document answers a forged cursor 400 naming the parameter, never 500 (issue 32). */
const UUID = '0f8fad5b-d9cb-469f-a165-70867728950e';
const cursorOf = (json: string) => Buffer.from(json).toString('base64url');
const keyset = (...values: unknown[]) => cursorOf(JSON.stringify(values));

/** Cursors no list issues: each is refused by every keyset (a list's keyset is one of [int8], [instant, uuid | text], [sort, instant | text, uuid]). */
const FORGED: [string, string][] = [
  ['malformed base64', '!!!not*base64!!!'],
  ['not JSON', cursorOf('not json')],
  ['not an array', cursorOf('{"createdAt":"2026-01-01T00:00:00.000Z"}')],
  ['a string', cursorOf('"2026-01-01T00:00:00.000Z"')],
  ['null', cursorOf('null')],
  ['no values', keyset()],
  ['too many values', keyset('2026-01-01T00:00:00.000Z', UUID, 'x', 'y')],
  ['garbage for a time', keyset('time', 'garbage', UUID)],
  ['an impossible date', keyset('2026-02-30', UUID)],
  ['an impossible instant', keyset('2026-02-30T00:00:00.000Z', UUID)],
  ['an impossible instant, sorted by time', keyset('time', '2026-02-30T00:00:00.000Z', UUID)],
  ['the year 0', keyset('0000-01-01T00:00:00.000Z', UUID)],
  ['a time without a zone', keyset('2026-01-05T10:00:00', UUID)],
  ['a non-UUID id', keyset('time', '2026-01-01T00:00:00.000Z', 'not-a-uuid')],
  ['a number for an id', keyset('2026-01-01T00:00:00.000Z', 12345)],
  ['an id past int8', keyset('99999999999999999999')],
  ['a huge number', cursorOf(`[1e309, "${UUID}"]`)],
  ['nested arrays', keyset([['2026-01-01T00:00:00.000Z']], [UUID])],
  ['an object for a time', keyset({ $gt: '' }, UUID)],
  ['a NUL in a name', keyset('name', 'a\u0000b', UUID)],
  ['a sort no list has', keyset('size', '2026-01-01T00:00:00.000Z', UUID)],
  ['longer than any cursor', keyset('2026-01-01T00:00:00.000Z', 'x'.repeat(2000))],
];

let running: RunningApp;
let user: Caller;
let admin: Caller;
let userId: string;
let paginated: { operation: Operation; parameter: string }[];

beforeAll(async () => {
  running = await startApp(WALK_ENV);
  ({ user, admin } = await walkCallers());
  userId = await userIdOf(running, user, admin);
  paginated = (await readOperations(running)).flatMap((operation) =>
    operation.parameters
      .filter((parameter) => parameter.in === 'query' && /^_?cursor$/.test(parameter.name))
      .map(({ name }) => ({ operation, parameter: name })),
  );
}, 60_000);

afterAll(() => running?.close());

describe('forged cursors', () => {
  it('are looked for on every paginated route, those of the issue included', () => {
    expect(paginated.map(({ operation }) => `${operation.method} ${operation.path}`)).toEqual(
      expect.arrayContaining(['GET /api/files', 'GET /api/memories', 'GET /api/invitations', 'GET /admin/users', 'GET /api/fhir/Observation']),
    );
  });

  it('answer 400 naming the parameter on every paginated route', async () => {
    const requests = paginated.flatMap(({ operation, parameter }) => FORGED.map(([what, cursor]) => ({ operation, parameter, what, cursor })));
    const wrong: string[] = [];
    await eachConcurrently(requests, 4, async ({ operation, parameter, what, cursor }) => {
      const target = targetOf(operation, (name) => (name === 'userId' ? userId : UUID), [[parameter, cursor]]);
      const caller = operation.path.startsWith('/admin') ? admin : user;
      const answer = await rawRequest(running.url, target, { method: operation.method, headers: caller.headers });
      const fields = answer.status === 400 ? (JSON.parse(answer.text) as { fields?: Record<string, string> }).fields : undefined;
      if (answer.status !== 400 || !fields?.[parameter])
        wrong.push(`${operation.method} ${target.slice(0, 120)} (${what}) → ${answer.status} ${answer.text.slice(0, 200)}`);
    });
    expect(wrong).toEqual([]);
  });
});
