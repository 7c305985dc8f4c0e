import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { eachConcurrently, readOperations, targetOf, userIdOf, walkCallers, WALK_ENV, type Caller, type Operation } from './support/openapi-routes.js';
import { rawRequest, socketStatus } from './support/raw-http.js';
import { startApp, type RunningApp } from './support/test-app.js';

/**
 * The generic guard of issue 32: every operation of `/openapi.json`, with hostile path, query,
 * header and body values, as a user, an admin and anonymously, answers anything but 5xx.
 */
const UUID = '00000000-0000-4000-8000-000000000000';
const forgedCursor = Buffer.from(JSON.stringify(['time', 'garbage', UUID])).toString('base64url');

/** Spellings for a URL (path segment or query value), percent-encoded as they go out. */
const URL_VALUES = [
  '',
  '%00',
  '%01%1F%7F',
  '%0D%0Ax-injected:%201',
  'x'.repeat(10_000),
  '1e309',
  '-1',
  '99999999999999999999',
  '00000000-0000-4000-8000-00000000000g',
  '..',
  '..%2F..%2Fetc%2Fpasswd',
  '%2E%2E%2F%2E%2E%2F',
  '%FF',
  '%ED%A0%BD',
  '%',
  '0000-01-01T00:00:00Z',
  '2026-02-30',
  forgedCursor,
];

/** Header values, written byte for byte on the socket (UTF-8). */
const HEADER_VALUES = [
  'a\u0000b',
  '\u0001\u001f\u007f',
  '1e309',
  '-1',
  '99999999999999999999',
  'bytes=99999999999999999999-',
  'bytes=-1',
  '%00',
  '../../etc/passwd',
  'élan ✓',
  forgedCursor,
];

/** Longer than any header the app reads: in one header per operation, each header in turn (all of them together pass Node's 16 KiB of headers: 431). */
const LONG_HEADER_VALUE = 'x'.repeat(10_000);

/** Headers some part of the app reads; each hostile value goes into all of them at once. */
const HEADERS = ['x-session-id', 'x-conversation-id', 'accept', 'range', 'if-none-match', 'x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host', 'origin'];

/** Values for each property of a JSON body, as JSON text. */
const PROPERTY_VALUES = [
  '"a\\u0000b"',
  '"\\ud83d"',
  JSON.stringify('x'.repeat(10_000)),
  '1e309',
  '-1',
  '99999999999999999999',
  '[[["x"]]]',
  '{"$gt":""}',
  'true',
  'null',
  '"2026-02-30"',
];

/** Whole JSON bodies of the wrong shape. */
const BODIES = ['[]', '"x"', '1e309', 'null', '{"__proto__":{"admin":true}}', `${'['.repeat(100)}${']'.repeat(100)}`, '{"a":"\\u0000"}'];

let running: RunningApp;
let user: Caller;
let admin: Caller;
let anonymous: Caller;
let operations: Operation[];
let userId: string;

beforeAll(async () => {
  running = await startApp(WALK_ENV);
  ({ user, admin, anonymous } = await walkCallers());
  userId = await userIdOf(running, user, admin);
  // Erasing the walking accounts halfway would only make the rest of the walk a new user's: it goes last.
  operations = (await readOperations(running)).sort(
    (a, b) => Number(a.path === '/api/me' && a.method === 'DELETE') - Number(b.path === '/api/me' && b.method === 'DELETE'),
  );
}, 60_000);

afterAll(() => running?.close());

interface Probe {
  operation: Operation;
  /** What is hostile in it, for the report. */
  what: string;
  target: string;
  headers?: Record<string, string>;
  body?: string;
}

/** A harmless value for each path parameter that is not the hostile one: the walking user's id where a user is meant. */
const benign = (name: string) => (name === 'userId' ? userId : UUID);

function urlProbes(operation: Operation): Probe[] {
  return operation.parameters.flatMap(({ in: where, name }) => {
    if (where === 'path') {
      return URL_VALUES.map((value) => ({ operation, what: `path ${name}`, target: targetOf(operation, (other) => (other === name ? value : benign(other))) }));
    }
    if (where !== 'query') return [];
    return [
      ...URL_VALUES.map((value) => ({ operation, what: `query ${name}`, target: targetOf(operation, benign, [[name, value]]) })),
      {
        operation,
        what: `query ${name} twice`,
        target: targetOf(operation, benign, [
          [name, '1'],
          [name, '2'],
        ]),
      },
    ];
  });
}

function headerProbes(operation: Operation, index: number): Probe[] {
  const target = targetOf(operation, benign);
  const documented = operation.parameters.filter((parameter) => parameter.in === 'header' && parameter.name !== 'content-length').map(({ name }) => name);
  const names = [...HEADERS, ...documented];
  const long = names[index % names.length]!;
  return [
    ...HEADER_VALUES.map((value) => ({ operation, what: 'headers', target, headers: Object.fromEntries(names.map((name) => [name, value])) })),
    { operation, what: `header ${long}`, target, headers: { [long]: LONG_HEADER_VALUE } },
  ];
}

function bodyProbes(operation: Operation): Probe[] {
  if (!operation.bodyTypes.includes('application/json')) return [];
  const target = targetOf(operation, benign);
  const properties = Object.keys(operation.jsonBody?.properties ?? {});
  return [
    ...BODIES.map((body) => ({ operation, what: 'body', target, body })),
    ...properties.flatMap((property) => PROPERTY_VALUES.map((value) => ({ operation, what: `body ${property}`, target, body: `{"${property}":${value}}` }))),
  ];
}

async function send(probe: Probe, caller: Caller): Promise<number> {
  const { method } = probe.operation;
  if (probe.headers) {
    const lines = Object.entries({ ...probe.headers, ...caller.headers }).map(([name, value]) => `${name}: ${value}`);
    return socketStatus(running.url, [`${method} ${probe.target} HTTP/1.1`, `host: ${running.url.host}`, ...lines].join('\r\n'));
  }
  const headers = { ...caller.headers, ...(probe.body === undefined ? {} : { 'content-type': 'application/json' }) };
  return (await rawRequest(running.url, probe.target, { method, headers, ...(probe.body === undefined ? {} : { body: probe.body }) })).status;
}

/**
 * What each caller is sent on `operation`: a user and an admin everything; an anonymous caller,
 * whom a secured route's guard answers before its query or body is read, only what runs before
 * the guard there (routing, logging the target, headers), and everything on an open route.
 */
function sendsFor(operation: Operation, index: number): { probe: Probe; caller: Caller }[] {
  const [url, headers, bodies] = [urlProbes(operation), headerProbes(operation, index), bodyProbes(operation)];
  const anonymously = operation.secured ? [...url.filter((probe) => probe.what.startsWith('path')), ...headers] : [...url, ...headers, ...bodies];
  return [
    ...[user, admin].flatMap((caller) => [...url, ...headers, ...bodies].map((probe) => ({ probe, caller }))),
    ...anonymously.map((probe) => ({ probe, caller: anonymous })),
  ];
}

describe('every route of the OpenAPI document', () => {
  it('answers hostile path, query, header and body values without a 5xx, as a user, an admin and anonymously', async () => {
    const sends = operations.flatMap(sendsFor);
    // Bounded (about 6,000 requests), and no walk of nothing.
    expect(sends.length).toBeGreaterThan(1000);
    const failures: string[] = [];
    await eachConcurrently(sends, 4, async ({ probe, caller }) => {
      // 0: the connection ended without an answer.
      const status = await send(probe, caller).catch(() => 0);
      if (status >= 500 || status === 0) {
        const value = probe.headers ? JSON.stringify(Object.values(probe.headers)[0]) : (probe.body ?? '');
        failures.push(`${status} as ${caller.name}: ${probe.operation.method} ${probe.target.slice(0, 160)} [${probe.what}] ${value.slice(0, 80)}`);
      }
    });
    expect(failures).toEqual([]);
  }, 120_000);
});
