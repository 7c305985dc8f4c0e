import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { bearer, cliToken, structured, TEST_JWT_SECRET, withClient } from './support/auth.js';
import { startApp, type RunningApp } from './support/test-app.js';

/**
 * Numbers in FHIR bodies are stored as sent or refused naming the element. JSON.parse reads
 * 99999999999999999999 as 1e20 and a decimal as the nearest 64-bit float, so an integer outside
 * FHIR's 32-bit range and a decimal with more digits than that float keeps were stored changed.
 * Bodies are written as text: JSON.stringify cannot write the numbers these tests send.
 */
const ENV = { JWT_SECRET: TEST_JWT_SECRET, RATE_LIMIT_REQUESTS: '0', RATE_LIMIT_ANONYMOUS_REQUESTS: '0' };

type Caller = 'alice' | 'bob' | 'anonymous';
let running: RunningApp;
const credentials: Record<Caller, Record<string, string>> = { alice: {}, bob: {}, anonymous: {} };

beforeAll(async () => {
  running = await startApp(ENV);
  credentials.alice = bearer(await cliToken(running, ENV, '--sub', 'alice'));
  credentials.bob = bearer(await cliToken(running, ENV, '--sub', 'bob'));
});

afterAll(async () => {
  await running?.close();
});

async function call(method: string, path: string, who: Caller, body?: string, contentType = 'application/fhir+json') {
  const response = await fetch(new URL(path, running.url), {
    method,
    headers: { ...credentials[who], ...(body === undefined ? {} : { 'content-type': contentType }) },
    ...(body === undefined ? {} : { body }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

/** An Observation whose value elements are `values`, JSON text such as `"valueInteger":7`. */
const observation = (values: string) =>
  `{"resourceType":"Observation","status":"final","code":{"text":"steps"},"effectiveDateTime":"2026-03-01T00:00:00Z",${values}}`;
/** A Bundle creating `resources`; a collection's entries carry no request. */
const bundle = (type: string, ...resources: string[]) => {
  const request = type === 'collection' ? '' : ',"request":{"method":"POST","url":"Observation"}';
  return `{"resourceType":"Bundle","type":"${type}","entry":[${resources.map((resource) => `{"resource":${resource}${request}}`).join(',')}]}`;
};
const stored = async (who: Caller) => (await call('GET', '/api/fhir/Observation?_count=1000', who)).body.total as number;

const INTEGER_RANGE = 'a FHIR integer is from -2147483648 to 2147483647';
const POSITIVE_INT_RANGE = 'a FHIR positiveInt is from 1 to 2147483647';

describe('integers outside FHIR’s 32-bit range (99999999999999999999 was stored as 1e20)', () => {
  it.each(['application/fhir+json', 'application/json'])('are a 400 naming the element, and nothing is stored (%s)', async (contentType) => {
    const before = await stored('alice');
    expect(await call('POST', '/api/fhir/Observation', 'alice', observation('"valueInteger":99999999999999999999'), contentType)).toMatchObject({
      status: 400,
      body: { fields: { 'Observation.valueInteger': `99999999999999999999 is out of range: ${INTEGER_RANGE}` } },
    });
    expect(await stored('alice')).toBe(before);
    expect((await call('POST', '/api/fhir/Observation', 'anonymous', observation('"valueInteger":99999999999999999999'), contentType)).status).toBe(401);
  });

  it('are refused in components, extensions and every integer type, each by its path', async () => {
    const values =
      '"valueInteger":-2147483649,' +
      '"component":[{"code":{"text":"left"},"valueInteger":1},{"code":{"text":"right"},"valueInteger":2147483648}],' +
      '"extension":[{"url":"http://example.com/steps-goal","valuePositiveInt":4294967296}]';
    expect(await call('POST', '/api/fhir/Observation', 'alice', observation(values))).toMatchObject({
      status: 400,
      body: {
        fields: {
          'Observation.valueInteger': `-2147483649 is out of range: ${INTEGER_RANGE}`,
          'Observation.component[1].valueInteger': `2147483648 is out of range: ${INTEGER_RANGE}`,
          'Observation.extension[0].valuePositiveInt': `4294967296 is out of range: ${POSITIVE_INT_RANGE}`,
        },
      },
    });
  });

  it('at the edges of the range are stored and read back as sent, by their owner alone', async () => {
    const values = '"valueInteger":2147483647,"component":[{"code":{"text":"floor"},"valueInteger":-2147483648}]';
    const created = await call('POST', '/api/fhir/Observation', 'alice', observation(values));
    expect(created).toMatchObject({ status: 201, body: { valueInteger: 2147483647, component: [{ valueInteger: -2147483648 }] } });
    const path = `/api/fhir/Observation/${created.body.id}`;
    expect(await call('GET', path, 'alice')).toEqual({ status: 200, body: created.body });
    expect((await call('GET', path, 'bob')).status).toBe(404);
    expect((await call('GET', path, 'anonymous')).status).toBe(401);
    expect((await call('DELETE', path, 'alice')).status).toBe(204);
  });
});

describe('decimals with more digits than the stored number keeps (they were stored rounded)', () => {
  it('are a 400 naming the element and what it would have been stored as', async () => {
    const before = await stored('alice');
    for (const [values, path, literal, storedAs] of [
      ['"valueQuantity":{"value":0.12345678901234567890,"unit":"mg"}', 'Observation.valueQuantity.value', '0.12345678901234567890', '0.12345678901234568'],
      ['"valueQuantity":{"value":72.0000000000000000001,"unit":"/min"}', 'Observation.valueQuantity.value', '72.0000000000000000001', '72'],
      ['"valueQuantity":{"value":1e-400,"unit":"mg"}', 'Observation.valueQuantity.value', '1e-400', '0'],
      [
        '"component":[{"code":{"text":"systolic"},"valueQuantity":{"value":120.00000000000000001,"unit":"mmHg"}}]',
        'Observation.component[0].valueQuantity.value',
        '120.00000000000000001',
        '120',
      ],
      [
        '"valueQuantity":{"value":5,"unit":"mg"},"referenceRange":[{"low":{"value":3.9999999999999999999}}]',
        'Observation.referenceRange[0].low.value',
        '3.9999999999999999999',
        '4',
      ],
    ]) {
      expect(await call('POST', '/api/fhir/Observation', 'alice', observation(values!))).toMatchObject({
        status: 400,
        body: { fields: { [path!]: `${literal} cannot be stored exactly: it would read ${storedAs} (a stored number keeps 15 significant digits)` } },
      });
    }
    expect(await stored('alice')).toBe(before);
  });

  it('with 15 significant digits or fewer, trailing zeros or an exponent are stored and read back, by the family_health tool too', async () => {
    const created = await call('POST', '/api/fhir/Observation', 'alice', observation('"valueQuantity":{"value":123456.789012345,"unit":"mg"}'));
    expect(created).toMatchObject({ status: 201, body: { valueQuantity: { value: 123456.789012345 } } });
    const scaled = await call(
      'POST',
      '/api/fhir/Observation',
      'alice',
      observation('"valueQuantity":{"value":7.50,"unit":"h"},"component":[{"code":{"text":"x"},"valueQuantity":{"value":1E2}}]'),
    );
    expect(scaled).toMatchObject({ status: 201, body: { valueQuantity: { value: 7.5 }, component: [{ valueQuantity: { value: 100 } }] } });
    const read = await withClient(running.url, '2025-11-25', credentials.alice, (client) => structured(client, 'family_health', { code: 'steps' }));
    expect((read.observations as { value: string }[]).map((entry) => entry.value)).toEqual(expect.arrayContaining(['123456.789012345 mg', '7.5 h (100)']));
    for (const id of [created.body.id, scaled.body.id]) expect((await call('DELETE', `/api/fhir/Observation/${id}`, 'alice')).status).toBe(204);
  });
});

describe('numbers JSON reads as infinite', () => {
  it('are a 400 naming the element', async () => {
    expect(await call('POST', '/api/fhir/Observation', 'alice', observation('"valueQuantity":{"value":1e309,"unit":"mg"}'))).toMatchObject({
      status: 400,
      body: { fields: { 'Observation.value[x].value': 'Invalid numeric value' } },
    });
  });
});

describe('Bundles', () => {
  const good = observation('"valueQuantity":{"value":61,"unit":"/min"}');
  const tooBig = observation('"valueInteger":99999999999999999999');
  const tooPrecise = observation('"valueQuantity":{"value":0.12345678901234567890,"unit":"mg"}');

  it.each(['transaction', 'collection'])('a %s with one such number stores nothing, naming entry and element', async (type) => {
    const before = await stored('alice');
    const answer = await call('POST', '/api/fhir', 'alice', bundle(type, good, tooBig, tooPrecise), 'application/json');
    expect(answer.status).toBe(400);
    expect(answer.body.message).toContain('nothing was stored');
    expect(answer.body.fields).toEqual({
      'Bundle.entry[1].resource.valueInteger': `99999999999999999999 is out of range: ${INTEGER_RANGE}`,
      'Bundle.entry[2].resource.valueQuantity.value': expect.stringContaining('0.12345678901234567890 cannot be stored exactly'),
    });
    expect(await stored('alice')).toBe(before);
  });

  it('a batch stores the good entries and answers each bad one by its path; nobody else sees them', async () => {
    const [alice, bob] = [await stored('alice'), await stored('bob')];
    const answer = await call('POST', '/api/fhir', 'alice', bundle('batch', good, tooBig, tooPrecise));
    expect(answer.status).toBe(201);
    expect(answer.body.entry.map((item: { response: { status: string } }) => item.response.status)).toEqual([
      '201 Created',
      '400 Bad Request',
      '400 Bad Request',
    ]);
    expect(
      answer.body.entry.slice(1).map((item: { response: { outcome: { issue: { expression: string[] }[] } } }) => item.response.outcome.issue[0]!.expression),
    ).toEqual([['Bundle.entry[1].resource.valueInteger'], ['Bundle.entry[2].resource.valueQuantity.value']]);
    expect([await stored('alice'), await stored('bob')]).toEqual([alice + 1, bob]);
    expect((await call('POST', '/api/fhir', 'anonymous', bundle('batch', good, tooBig))).status).toBe(401);
  });
});
