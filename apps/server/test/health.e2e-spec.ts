import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/client';
import { DataSource } from 'typeorm';
import { UserDataContributors } from '@app/common';
import { bearer, signHs256, structured, TEST_JWT_SECRET, withClient } from './support/auth.js';
import { connectClient, startApp, type RunningApp } from './support/test-app.js';

const ISSUER = 'https://id.example.com';
const ENV = { JWT_SECRET: TEST_JWT_SECRET, JWT_ISSUER: ISSUER, JWT_AUDIENCE: 'mirobody', MCP_ALLOWED_HOSTS: '127.0.0.1' };
const ERA = '2025-11-25' as const;

let running: RunningApp;
const tokens: Record<'alice' | 'bob' | 'carol' | 'dave' | 'eve', string> = { alice: '', bob: '', carol: '', dave: '', eve: '' };
const NAMES = { alice: 'Alice Smith', bob: 'Bob Brown', carol: 'Carol Jones', dave: 'Dave Outsider', eve: 'Eve Evans' };
type Person = keyof typeof tokens;

async function api(method: string, path: string, who: Person | null, body?: unknown, contentType = 'application/json') {
  const response = await fetch(new URL(path, running.url), {
    method,
    headers: { ...(who ? bearer(tokens[who]) : {}), ...(body !== undefined ? { 'content-type': contentType } : {}) },
    ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

const quantity = (code: string, display: string, value: number, unit: string, time: Record<string, unknown>) => ({
  resourceType: 'Observation',
  status: 'final',
  code: { coding: [{ system: 'http://loinc.org', code, display }] },
  valueQuantity: { value, unit },
  ...time,
});

const bloodPressure = {
  resourceType: 'Observation',
  status: 'final',
  code: { coding: [{ system: 'http://loinc.org', code: '85354-9', display: 'Blood pressure panel' }] },
  effectiveDateTime: '2026-01-05T08:00:00Z',
  component: [
    { code: { coding: [{ system: 'http://loinc.org', code: '8480-6', display: 'Systolic' }] }, valueQuantity: { value: 120, unit: 'mmHg' } },
    { code: { coding: [{ system: 'http://loinc.org', code: '8462-4', display: 'Diastolic' }] }, valueQuantity: { value: 80, unit: 'mmHg' } },
  ],
};

const post = (resource: unknown) => ({ resource, request: { method: 'POST', url: 'Observation' } });
const errorText = (result: Awaited<ReturnType<Client['callTool']>>) => (result.content as { text: string }[])[0]!.text;

/** family_health as `who` sees it, with extra headers (X-Acting-For); a tool error comes back as `{ error }`. */
async function familyHealth(who: Person, args: Record<string, unknown>, headers: Record<string, string> = {}) {
  return withClient(running.url, ERA, { ...bearer(tokens[who]), ...headers }, async (client) => {
    const result = await client.callTool({ name: 'family_health', arguments: args });
    return result.isError
      ? { error: errorText(result) }
      : (result.structuredContent as { subject: string; observations: { code: string; value: string; time: string }[] });
  });
}

let circleId: string;
const memberIds: Partial<Record<Person, string>> = {};

async function join(who: Person, role = 'member') {
  const invitation = await api('POST', `/api/circles/${circleId}/invitations`, 'alice', { email: `${who}@example.com`, role });
  expect(invitation.status).toBe(201);
  const accepted = await api('POST', '/api/invitations/accept', who, { token: invitation.body.token });
  expect(accepted.status).toBe(200);
  memberIds[who] = invitation.body.member_id;
  return invitation.body.token as string;
}

const setAccess = (who: Person, health_access: number) => api('PATCH', `/api/circles/${circleId}/members/me`, who, { health_access });

beforeAll(async () => {
  running = await startApp(ENV);
  for (const who of Object.keys(tokens) as Person[]) {
    tokens[who] = await signHs256(TEST_JWT_SECRET, {
      iss: ISSUER,
      aud: 'mirobody',
      sub: who,
      email: `${who}@example.com`,
      email_verified: true,
      name: NAMES[who],
    });
    expect((await api('GET', '/api/circles', who)).status).toBe(200);
  }
  const circle = await api('POST', '/api/circles', 'alice', { name: 'Family' });
  expect(circle.status).toBe(201);
  circleId = circle.body.id;
  memberIds.alice = circle.body.my_member_id;
  await join('bob');
  await join('carol');
  expect((await api('PATCH', `/api/circles/${circleId}/members/me`, 'bob', { nickname: 'Bobby', health_access: 1 })).status).toBe(200);
  expect((await api('PATCH', `/api/circles/${circleId}/members/me`, 'carol', { nickname: 'Cee', health_access: 0 })).status).toBe(200);

  // Stored in an order unlike clinical time: the answer must follow clinical time.
  const bobs = await api('POST', '/api/fhir', 'bob', {
    resourceType: 'Bundle',
    type: 'transaction',
    entry: [
      post(quantity('8867-4', 'Heart rate', 64, 'beats/minute', { effectiveDateTime: '2026-01-06T07:00:00Z', issued: '2026-01-01T00:00:00Z' })),
      post(bloodPressure),
      post(quantity('93832-4', 'Sleep duration', 7.5, 'h', { issued: '2026-01-07T06:00:00Z' })),
      post(quantity('8867-4', 'Heart rate', 70, 'beats/minute', { effectivePeriod: { start: '2026-01-02T07:00:00Z' }, issued: '2026-01-08T00:00:00Z' })),
    ],
  });
  expect(bobs.status).toBe(201);
  expect(bobs.body.type).toBe('transaction-response');
  const carols = await api(
    'POST',
    '/api/fhir/Observation',
    'carol',
    quantity('2339-0', 'Glucose', 999, 'mg/dL', { effectiveDateTime: '2026-01-05T00:00:00Z' }),
    'application/fhir+json',
  );
  expect(carols.status).toBe(201);
  expect(
    (await api('POST', '/api/fhir/Observation', 'dave', quantity('29463-7', 'Body weight', 81.5, 'kg', { effectiveDateTime: '2026-01-03T00:00:00Z' }))).status,
  ).toBe(201);
}, 60_000);

afterAll(async () => {
  await running?.close();
});

describe('documentation', () => {
  it('documents every route with its body and answer types', async () => {
    const document = (await api('GET', '/openapi.json', null)).body as {
      paths: Record<string, Record<string, { requestBody?: unknown; security?: unknown[] }>>;
      components: { schemas: Record<string, unknown> };
    };
    for (const [path, methods] of Object.entries({
      '/api/circles': ['get', 'post'],
      '/api/circles/{circleId}': ['patch', 'delete'],
      '/api/circles/{circleId}/invitations': ['post'],
      '/api/invitations/accept': ['post'],
      '/api/circles/{circleId}/members/me': ['patch'],
      '/api/circles/{circleId}/members/{memberId}': ['patch', 'delete'],
      '/api/fhir': ['post'],
      '/api/fhir/Observation': ['get', 'post'],
      '/api/fhir/Observation/{id}': ['get', 'delete'],
      '/api/fhir/Observation/{id}/_history/{versionId}': ['get'],
    })) {
      for (const method of methods) expect(document.paths[path]?.[method]?.security).toEqual(expect.arrayContaining([{ jwt: [] }]));
    }
    expect(Object.keys(document.components.schemas)).toEqual(expect.arrayContaining(['InviteDto', 'MyMembershipDto', 'MemberListDto']));
  });
});

describe('family_health in a three-person circle', () => {
  it("reads a sharing member's observations newest first by clinical time, blood pressure whole", async () => {
    const answer = await familyHealth('alice', { member: 'Bobby' });
    expect(answer).toEqual({
      subject: 'Bobby',
      subject_member_id: memberIds.bob,
      observation_count: 4,
      observations: [
        { code: '93832-4', name: 'Sleep duration', value: '7.5 h', time: '2026-01-07T06:00:00.000Z' },
        { code: '8867-4', name: 'Heart rate', value: '64 beats/minute', time: '2026-01-06T07:00:00.000Z' },
        { code: '85354-9', name: 'Blood pressure panel', value: '120/80 mmHg', time: '2026-01-05T08:00:00.000Z' },
        { code: '8867-4', name: 'Heart rate', value: '70 beats/minute', time: '2026-01-02T07:00:00.000Z' },
      ],
    });
    const [{ id }] = await running.app.get(DataSource).query('SELECT id FROM users WHERE subject = $1', ['bob']);
    expect(JSON.stringify(answer)).not.toContain(id);
  });

  it('finds the sharer by every name, filters by code, word, since and count', async () => {
    for (const member of [memberIds.bob!, 'bob brown', 'BOBBY', 'bob@example.com', 'brown']) {
      expect(await familyHealth('alice', { member, count: 1 })).toMatchObject({ subject: 'Bobby', observation_count: 1 });
    }
    const heart = (await familyHealth('alice', { member: 'Bobby', code: '8867-4' })) as { observations: unknown[] };
    expect(heart.observations).toHaveLength(2);
    const sleep = (await familyHealth('alice', { member: 'Bobby', code: 'sleep' })) as { observations: { value: string }[] };
    expect(sleep.observations.map((entry) => entry.value)).toEqual(['7.5 h']);
    const recent = (await familyHealth('alice', { member: 'Bobby', since: '2026-01-05' })) as { observations: unknown[] };
    expect(recent.observations).toHaveLength(3);
  });

  it('refuses every way of naming the member who does not share, without revealing anything', async () => {
    const ways = [memberIds.carol!, 'Carol Jones', 'cee', 'carol@example.com', 'carol', 'Jon'];
    for (const member of ways) {
      const answer = await familyHealth('alice', { member });
      expect(answer).toEqual({ error: expect.stringContaining('You can read:') });
      const text = (answer as { error: string }).error;
      // Carol's glucose value as a number of its own: a random id may hold the digits 999.
      expect(text).not.toMatch(/\b999\b|Glucose|2339-0/);
      expect(text.split('You can read:')[1]).not.toMatch(/carol|cee|jones/i);
      expect(text).toContain('Bob Brown');
    }
    const actingFor = await familyHealth('alice', {}, { 'x-acting-for': memberIds.carol! });
    expect(actingFor).toEqual({ error: expect.stringContaining('does not share health data with you') });
    expect((actingFor as { error: string }).error).not.toMatch(/\b999\b|Glucose/);
  });

  it('follows the acting-for selection, and whoami says so only for a readable member', async () => {
    expect(await familyHealth('alice', { count: 1 }, { 'x-acting-for': memberIds.bob! })).toMatchObject({ subject: 'Bobby', observation_count: 1 });
    expect(await familyHealth('alice', { member: 'me' }, { 'x-acting-for': memberIds.bob! })).toMatchObject({ subject: 'me', observation_count: 0 });
    const whoami = (headers: Record<string, string>) =>
      withClient(running.url, ERA, { ...bearer(tokens.alice), ...headers }, (client) => structured(client, 'whoami'));
    expect(await whoami({ 'x-acting-for': memberIds.bob! })).toMatchObject({ authenticated: true, acting_for_member: true });
    expect(await whoami({ 'x-acting-for': memberIds.carol! })).not.toHaveProperty('acting_for_member');
    expect(await whoami({})).not.toHaveProperty('acting_for_member');
  });

  it('lets an outsider read only their own data', async () => {
    expect(await familyHealth('dave', {})).toMatchObject({ subject: 'me', observations: [{ code: '29463-7', value: '81.5 kg' }] });
    for (const member of ['bob', memberIds.bob!, 'Bobby']) {
      expect(await familyHealth('dave', { member })).toEqual({ error: expect.stringContaining('Nobody shares health data with you yet') });
    }
    expect(await familyHealth('dave', {}, { 'x-acting-for': memberIds.bob! })).toEqual({ error: expect.stringContaining('does not share') });
  });

  it('refuses an anonymous caller with the 401 challenge', async () => {
    await withClient(running.url, ERA, {}, async (client) => {
      for (const name of ['family_health', 'summarize_conversation']) {
        await expect(client.callTool({ name, arguments: { summary: 'x' } })).rejects.toThrow('Authentication required');
      }
    });
  });

  it('refuses a malformed X-Acting-For by name', async () => {
    await expect(familyHealth('alice', {}, { 'x-acting-for': 'not an id!' })).rejects.toThrow(/X-Acting-For/i);
  });
});

describe('changes take effect on the very next call', () => {
  it('lowering access, withdrawing, leaving and removal', async () => {
    const client = await connectClient(running.url, ERA, bearer(tokens.alice));
    const read = async () => {
      const result = await client.callTool({ name: 'family_health', arguments: { member: 'Bobby', count: 1 } });
      return result.isError ? 'refused' : 'read';
    };
    try {
      expect(await read()).toBe('read');
      expect((await setAccess('bob', 0)).status).toBe(200);
      expect(await read()).toBe('refused');
      expect((await setAccess('bob', 1)).status).toBe(200);
      expect(await read()).toBe('read');

      expect((await api('PATCH', `/api/circles/${circleId}/members/me`, 'bob', { status: 'declined' })).status).toBe(200);
      expect(await read()).toBe('refused');
      await join('bob');
      await api('PATCH', `/api/circles/${circleId}/members/me`, 'bob', { nickname: 'Bobby', health_access: 1 });
      expect(await read()).toBe('read');

      expect((await api('POST', `/api/circles/${circleId}/leave`, 'bob')).status).toBe(204);
      expect(await read()).toBe('refused');
      await join('bob');
      await api('PATCH', `/api/circles/${circleId}/members/me`, 'bob', { nickname: 'Bobby', health_access: 1 });
      expect(await read()).toBe('read');

      expect((await api('DELETE', `/api/circles/${circleId}/members/${memberIds.bob}`, 'alice')).status).toBe(204);
      expect(await read()).toBe('refused');
    } finally {
      await client.close();
    }
    await join('bob');
    await api('PATCH', `/api/circles/${circleId}/members/me`, 'bob', { nickname: 'Bobby', health_access: 1 });
  });

  it('a declined invitation never grants anything', async () => {
    const invitation = await api('POST', `/api/circles/${circleId}/invitations`, 'alice', { email: 'eve@example.com' });
    expect((await api('POST', '/api/invitations/decline', 'eve', { token: invitation.body.token })).status).toBe(200);
    expect((await api('POST', '/api/invitations/accept', 'eve', { token: invitation.body.token })).status).toBe(409);
    expect((await api('GET', `/api/circles/${circleId}/members`, 'eve')).status).toBe(404);
    expect(await familyHealth('alice', { member: 'eve' })).toEqual({ error: expect.stringContaining('who does not share health data with you') });
  });
});

describe('care circle rules', () => {
  it('only owners and maintainers manage; nobody answers their own invitation; the last owner stays', async () => {
    expect((await api('POST', `/api/circles/${circleId}/invitations`, 'carol', { email: 'x@example.com' })).status).toBe(403);
    expect((await api('PATCH', `/api/circles/${circleId}`, 'carol', { name: 'Mine' })).status).toBe(403);
    const own = await api('POST', `/api/circles/${circleId}/invitations`, 'alice', { email: 'alice2@example.com', role: 'owner' });
    expect((await api('POST', '/api/invitations/accept', 'alice', { token: own.body.token })).status).toBe(403);
    expect((await api('POST', `/api/circles/${circleId}/leave`, 'alice')).status).toBe(409);
    expect((await api('PATCH', `/api/circles/${circleId}/members/${memberIds.carol}`, 'bob', { health_access: 2 })).status).toBe(400);
    expect((await api('PATCH', `/api/circles/${circleId}/members/${memberIds.carol}`, 'bob', { role: 'owner' })).status).toBe(403);
    expect((await api('PATCH', `/api/circles/${circleId}/members/me`, 'bob', { health_access: 3 })).status).toBe(400);
    expect((await api('POST', '/api/invitations/accept', 'dave', { token: 'not-a-token' })).status).toBe(404);
    const solo = (await api('POST', '/api/circles', 'dave', { name: 'Just me' })).body.id;
    expect((await api('PATCH', `/api/circles/${solo}/members/me`, 'dave', { status: 'declined' })).status).toBe(409);
    expect((await api('POST', `/api/circles/${solo}/leave`, 'dave')).status).toBe(204);
    expect((await api('GET', '/api/circles', 'dave')).body).toEqual({ circles: [] });
    expect((await api('POST', '/api/circles', 'dave', { name: '   ' })).body.fields).toHaveProperty('name');
  });

  it('hides circles from outsiders and anonymous callers', async () => {
    for (const path of [`/api/circles/${circleId}/members`, '/api/circles/not-a-uuid/members', '/api/circles/00000000-0000-0000-0000-000000000000/members']) {
      expect((await api('GET', path, 'dave')).status).toBe(404);
    }
    expect((await api('DELETE', `/api/circles/${circleId}`, 'dave')).status).toBe(404);
    expect((await api('GET', '/api/circles', null)).status).toBe(401);
    expect((await api('GET', '/api/circles', 'dave')).body).toEqual({ circles: [] });
    const members = await api('GET', `/api/circles/${circleId}/members`, 'carol');
    expect(members.body.members.map((member: { name: string }) => member.name)).toEqual(expect.arrayContaining(['Alice Smith', 'Bob Brown', 'Carol Jones']));
  });
});

describe('FHIR ingest and search', () => {
  const bad = { ...quantity('8867-4', 'Heart rate', 1, '/min', {}), status: 'done', valueQuantity: { value: 'high' } };

  it('reports bad bundle entries by index and path; a batch stores the good ones', async () => {
    const batch = await api('POST', '/api/fhir', 'eve', {
      resourceType: 'Bundle',
      type: 'batch',
      entry: [post(quantity('8867-4', 'Heart rate', 61, '/min', { effectiveDateTime: '2026-02-01T00:00:00Z' })), post(bad)],
    });
    expect(batch.status).toBe(201);
    expect(batch.body.type).toBe('batch-response');
    expect(batch.body.entry[0].response.status).toBe('201 Created');
    expect(batch.body.entry[1].response.status).toBe('400 Bad Request');
    const paths = batch.body.entry[1].response.outcome.issue.flatMap((issue: { expression: string[] }) => issue.expression);
    expect(paths).toEqual(expect.arrayContaining(['Bundle.entry[1].resource.status', 'Bundle.entry[1].resource.value[x].value']));
    expect((await api('GET', '/api/fhir/Observation', 'eve')).body.total).toBe(1);
  });

  it('stores nothing of a transaction with one bad entry', async () => {
    const good = quantity('8867-4', 'Heart rate', 62, '/min', { effectiveDateTime: '2026-02-02T00:00:00Z' });
    const transaction = await api('POST', '/api/fhir', 'eve', { resourceType: 'Bundle', type: 'transaction', entry: [post(good), post(good), post(bad)] });
    expect(transaction.status).toBe(400);
    expect(Object.keys(transaction.body.fields)).toEqual(
      expect.arrayContaining(['Bundle.entry[2].resource.status', 'Bundle.entry[2].resource.value[x].value']),
    );
    expect(transaction.body.message).toContain('nothing was stored');
    expect((await api('GET', '/api/fhir/Observation', 'eve')).body.total).toBe(1);
  });

  it('resolves references between the entries of a transaction to the stored ids (they were stored as urn:uuid, pointing nowhere)', async () => {
    const systolic = 'urn:uuid:61ebe359-bfdc-4613-8bf2-c5e300945f0a';
    const panel = { ...bloodPressure, component: undefined, hasMember: [{ reference: systolic }] };
    const transaction = await api('POST', '/api/fhir', 'eve', {
      resourceType: 'Bundle',
      type: 'transaction',
      entry: [post(panel), { fullUrl: systolic, ...post(quantity('8480-6', 'Systolic', 120, 'mmHg', { effectiveDateTime: '2026-02-04T00:00:00Z' })) }],
    });
    expect(transaction.status).toBe(201);
    const [storedPanel, storedSystolic] = transaction.body.entry.map((entry: { resource: { id: string } }) => entry.resource);
    expect(storedPanel.hasMember).toEqual([{ reference: `Observation/${storedSystolic.id}` }]);
    const member = await api('GET', `/api/fhir/${storedPanel.hasMember[0].reference}`, 'eve');
    expect(member).toMatchObject({ status: 200, body: { id: storedSystolic.id, valueQuantity: { value: 120 } } });
    for (const type of ['transaction', 'batch']) {
      const dangling = await api('POST', '/api/fhir', 'eve', {
        resourceType: 'Bundle',
        type,
        entry: [post({ ...panel, hasMember: [{ reference: 'urn:uuid:nowhere' }] })],
      });
      const problem = type === 'transaction' ? dangling.body.fields : dangling.body.entry[0].response.outcome.issue[0];
      expect(JSON.stringify(problem)).toContain('Bundle.entry[0].resource.hasMember[0].reference');
    }
    // Eve's other tests count her observations.
    for (const id of [storedPanel.id, storedSystolic.id]) expect((await api('DELETE', `/api/fhir/Observation/${id}`, 'eve')).status).toBe(204);
  });

  it('refuses what is not an Observation or Bundle, naming it', async () => {
    expect((await api('POST', '/api/fhir/Observation', 'eve', { resourceType: 'Patient' })).body.fields).toEqual({ '$.resourceType': expect.any(String) });
    expect((await api('POST', '/api/fhir', 'eve', { resourceType: 'Bundle', type: 'document', entry: [] })).body.fields).toEqual({
      'Bundle.type': expect.any(String),
    });
    expect(
      (
        await api('POST', '/api/fhir', 'eve', {
          resourceType: 'Bundle',
          type: 'batch',
          entry: [{ resource: bloodPressure, request: { method: 'DELETE', url: 'Observation/1' } }],
        })
      ).body.entry[0].response.status,
    ).toBe('400 Bad Request');
    expect((await api('POST', '/api/fhir/Observation', null, bloodPressure)).status).toBe(401);
  });

  it('refuses dates the calendar lacks, times without a zone and leap seconds, storing nothing (they were moved, guessed or a 500)', async () => {
    const at = (fields: Record<string, unknown>) => quantity('8867-4', 'Heart rate', 70, '/min', fields);
    const before = (await api('GET', '/api/fhir/Observation', 'eve')).body.total;
    expect(await api('POST', '/api/fhir/Observation', 'eve', at({ effectiveDateTime: '2026-02-30' }))).toMatchObject({
      status: 400,
      body: { fields: { 'Observation.effectiveDateTime': '"2026-02-30" has no day 30 in 2026-02' } },
    });
    expect(await api('POST', '/api/fhir/Observation', 'eve', at({ issued: '2026-06-30T23:59:60Z' }))).toMatchObject({
      status: 400,
      body: { fields: { 'Observation.issued': '"2026-06-30T23:59:60Z" is a leap second (:60), which cannot be stored: use :59' } },
    });
    const transaction = await api('POST', '/api/fhir', 'eve', {
      resourceType: 'Bundle',
      type: 'transaction',
      entry: [post(at({ effectiveDateTime: '2026-02-03T00:00:00Z' })), post(at({ effectivePeriod: { start: '2026-02-03T08:00:00', end: '2026-02-02' } }))],
    });
    expect(transaction).toMatchObject({
      status: 400,
      body: { fields: { 'Bundle.entry[1].resource.effectivePeriod.start': expect.stringContaining('needs a time zone') } },
    });
    expect((await api('GET', '/api/fhir/Observation', 'eve')).body.total).toBe(before);
    expect(await api('GET', '/api/fhir/Observation?date=ge2026-02-30', 'eve')).toMatchObject({
      status: 400,
      body: { fields: { date: 'invalid date' }, message: expect.stringContaining('has no day 30 in 2026-02') },
    });
    expect(await familyHealth('eve', { since: '2026-02-30' })).toEqual({ error: 'since: "2026-02-30" has no day 30 in 2026-02' });
  });

  it("searches the caller's own observations by code, date range and count", async () => {
    const search = (query: string, who: Person = 'bob') => api('GET', `/api/fhir/Observation${query}`, who);
    const all = await search('');
    expect(all.body).toMatchObject({ resourceType: 'Bundle', type: 'searchset', total: 4 });
    expect((await search('?code=http://loinc.org|8867-4')).body.total).toBe(2);
    expect(
      (await search('?code=8867-4&date=ge2026-01-03&date=lt2026-01-07')).body.entry.map(
        (entry: { resource: { valueQuantity: { value: number } } }) => entry.resource.valueQuantity.value,
      ),
    ).toEqual([64]);
    expect((await search('?_count=1')).body.entry[0].resource.code.coding[0].code).toBe('93832-4');
    expect((await search('?date=yesterday')).body.fields).toHaveProperty('date');
    expect((await search('?subject=Patient/1')).status).toBe(400);
    expect((await search('?_count=0')).status).toBe(400);
    expect((await search('', 'dave')).body.total).toBe(1);
  });
});

describe('one Observation by id', () => {
  const at = (path: string) => new URL(path, running.url).href;
  const call = async (method: string, url: string, who: Person | null) => {
    const response = await fetch(url, { method, headers: who ? bearer(tokens[who]) : {} });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  };

  it('is read and deleted by its owner alone, at the Location the create answered (it pointed nowhere, and a wrong entry could not be removed)', async () => {
    const response = await fetch(at('/api/fhir/Observation'), {
      method: 'POST',
      headers: { ...bearer(tokens.eve), 'content-type': 'application/fhir+json' },
      body: JSON.stringify(quantity('8867-4', 'Heart rate', 300, '/min', { effectiveDateTime: '2026-03-01T00:00:00Z' })),
    });
    expect(response.status).toBe(201);
    const created = (await response.json()) as { id: string };
    const location = response.headers.get('location')!;
    expect(location).toBe(at(`/api/fhir/Observation/${created.id}/_history/1`));
    const url = at(`/api/fhir/Observation/${created.id}`);
    for (const spelling of [location, url, url.toUpperCase().replace(/^HTTP:\/\/127\.0\.0\.1:\d+\/API\/FHIR\/OBSERVATION/, at('/api/fhir/Observation'))]) {
      expect(await call('GET', spelling, 'eve')).toEqual({ status: 200, body: created });
    }
    const missing = await call('GET', at('/api/fhir/Observation/00000000-0000-4000-8000-000000000000'), 'eve');
    expect(missing.status).toBe(404);
    for (const other of [url, location]) {
      expect(await call('GET', other, 'bob')).toEqual({ status: 404, body: { ...missing.body, message: `No Observation with id ${created.id}` } });
    }
    expect((await call('GET', url, null)).status).toBe(401);
    expect((await call('GET', `${url}/_history/2`, 'eve')).status).toBe(404);
    expect((await call('GET', at('/api/fhir/Observation/not-an-id'), 'eve')).status).toBe(404);

    expect((await call('DELETE', url, 'bob')).status).toBe(404);
    expect((await call('DELETE', url, null)).status).toBe(401);
    expect((await call('GET', url, 'eve')).status).toBe(200);
    expect(await call('DELETE', url, 'eve')).toEqual({ status: 204, body: undefined });
    expect((await call('GET', url, 'eve')).status).toBe(404);
    expect((await call('DELETE', url, 'eve')).status).toBe(404);
  });
});

describe('FHIR search pages', () => {
  type Searchset = { total: number; link: { relation: string; url: string }[]; entry: { resource: { valueQuantity?: { value: number } } }[] };
  const get = async (url: string, who: Person | null = 'bob') => {
    const response = await fetch(url, { headers: who ? bearer(tokens[who]) : {} });
    return { status: response.status, body: (await response.json()) as Searchset & { fields?: Record<string, string> } };
  };
  const values = (page: Searchset) => page.entry.map((entry) => entry.resource.valueQuantity?.value);
  const link = (page: Searchset, relation: string) => page.link.find((entry) => entry.relation === relation)?.url;
  const searchUrl = (query: string) => new URL(`/api/fhir/Observation?${query}`, running.url).href;

  it('count every match in total, not the page, and follow next links to the end (total was the page size, and no page came after the first)', async () => {
    // Bob's sleep (7 Jan) and heart rates (6 and 2 Jan), either code matching.
    const first = await get(searchUrl('_count=2&code=8867-4,http://loinc.org|93832-4'));
    expect(first.status).toBe(200);
    expect(first.body.total).toBe(3);
    expect(values(first.body)).toEqual([7.5, 64]);
    expect(link(first.body, 'self')).toBe(searchUrl('_count=2&code=8867-4%2Chttp%3A%2F%2Floinc.org%7C93832-4'));
    const next = link(first.body, 'next')!;
    const second = await get(next);
    expect(second.body).toMatchObject({ total: 3 });
    expect(values(second.body)).toEqual([70]);
    expect(link(second.body, 'self')).toBe(next);
    expect(link(second.body, 'next')).toBeUndefined();
    // The cursor only says where a page starts: Alice following Bob's link sees her own (none), anonymous callers nothing.
    expect((await get(next, 'alice')).body).toMatchObject({ total: 0, entry: [] });
    expect((await get(next, null)).status).toBe(401);
  });

  it('reads `\\,` as a comma inside a code and refuses empty alternatives and cursors it did not issue, naming the parameter', async () => {
    expect((await get(searchUrl('code=8867-4%5C%2C93832-4'))).body).toMatchObject({ total: 0, entry: [] });
    expect(await get(searchUrl('code=8867-4,'))).toMatchObject({ status: 400, body: { fields: { code: 'empty alternative' } } });
    for (const cursor of ['abc', Buffer.from(JSON.stringify(['2026-01-01T00:00:00.000Z', 'not-a-uuid'])).toString('base64url')]) {
      expect(await get(searchUrl(`_cursor=${cursor}`))).toMatchObject({ status: 400, body: { fields: { _cursor: 'not a cursor this server issued' } } });
    }
  });
});

describe('user data', () => {
  const contributor = (name: string) =>
    running.app
      .get(UserDataContributors)
      .all()
      .find((entry) => entry.name === name)!.contributor;
  const userId = async (who: Person) =>
    ((await running.app.get(DataSource).query('SELECT id FROM users WHERE subject = $1', [who])) as { id: string }[])[0]!.id;

  it("exports and erases a user's observations and memberships, and nobody else's", async () => {
    const bob = await userId('bob');
    const exported = (await contributor('health').exportFor(bob)) as {
      observations: { code: { coding: { code: string }[] } }[];
      circle_memberships: { circle_name: string }[];
    };
    expect(exported.observations.map((entry) => entry.code.coding[0]!.code)).toEqual(['93832-4', '8867-4', '85354-9', '8867-4']);
    expect(exported.circle_memberships).toEqual([expect.objectContaining({ circle_name: 'Family', health_access: 1 })]);
    expect(await contributor('health').countFor(bob)).toBe(4);
    const viaRest = await api('GET', '/api/me/export', 'bob');
    expect(viaRest.body.parts.health.observations).toHaveLength(4);
    expect(JSON.stringify(viaRest.body.parts.health)).not.toMatch(/\b999\b|Glucose/);

    await contributor('health').eraseFor(bob);
    expect(await contributor('health').countFor(bob)).toBe(0);
    expect(await familyHealth('alice', { member: 'Bobby' })).toEqual({ error: expect.stringContaining('nobody who shares') });
    expect((await api('GET', `/api/circles/${circleId}/members`, 'alice')).status).toBe(200);
    expect(await contributor('health').countFor(await userId('carol'))).toBe(1);
  });
});
