import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { bearer, signHs256, TEST_JWT_SECRET } from './support/auth.js';
import { startApp, type RunningApp } from './support/test-app.js';

const ISSUER = 'https://id.example.com';
const ENV = { JWT_SECRET: TEST_JWT_SECRET, JWT_ISSUER: ISSUER, JWT_AUDIENCE: 'mirobody', MCP_ALLOWED_HOSTS: '127.0.0.1' };
const MISSING = '00000000-0000-4000-8000-000000000000';

/**
 * Who calls: alice invites; bob is invited with his verified address; the same address unverified (`false`, or
 * no claim at all) under other subjects; carol has another address.
 */
const PEOPLE = {
  alice: { email: 'alice@example.com', email_verified: true },
  bob: { email: 'bob@example.com', email_verified: true },
  bobUnverified: { email: 'bob@example.com', email_verified: false },
  bobUnclaimed: { email: 'bob@example.com' },
  carol: { email: 'carol@example.com', email_verified: true },
} as const;
type Person = keyof typeof PEOPLE;
const tokens = {} as Record<Person, string>;

let running: RunningApp;

async function api(method: string, path: string, who: Person | null, body?: unknown) {
  const response = await fetch(new URL(path, running.url), {
    method,
    headers: { ...(who ? bearer(tokens[who]) : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

async function newCircle(name: string): Promise<string> {
  const circle = await api('POST', '/api/circles', 'alice', { name });
  expect(circle.status).toBe(201);
  return circle.body.id;
}

/** Alice invites `email` (bob's unless told) to a new circle; the token is never passed on in these tests. */
async function invite(circleName: string, email = 'bob@example.com', role = 'member') {
  const circleId = await newCircle(circleName);
  const issued = await api('POST', `/api/circles/${circleId}/invitations`, 'alice', { email, role });
  expect(issued.status).toBe(201);
  const listed = await api('GET', '/api/invitations', 'bob');
  const invitationId = listed.body.items.find((item: { circle_id: string }) => item.circle_id === circleId)?.invitation_id as string;
  return { circleId, invitationId, token: issued.body.token as string, memberId: issued.body.member_id as string };
}

const circlesOf = async (who: Person) => ((await api('GET', '/api/circles', who)).body.circles as { id: string }[]).map((circle) => circle.id);

beforeAll(async () => {
  running = await startApp(ENV);
  for (const who of Object.keys(PEOPLE) as Person[]) {
    tokens[who] = await signHs256(TEST_JWT_SECRET, { iss: ISSUER, aud: 'mirobody', sub: who, name: who, ...PEOPLE[who] });
    expect((await api('GET', '/api/circles', who)).status).toBe(200);
  }
}, 60_000);

afterAll(async () => {
  await running?.close();
});

describe('answering an invitation with a verified e-mail address, without its token', () => {
  it('lists the open invitations to the verified address, with circle and inviter, and accepts one', async () => {
    const { circleId, invitationId, memberId } = await invite('Family');
    const listed = await api('GET', '/api/invitations', 'bob');
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({
      items: [
        {
          invitation_id: invitationId,
          circle_id: circleId,
          circle_name: 'Family',
          role: 'member',
          invited_by: { name: 'alice', email: 'alice@example.com' },
          expires_at: expect.any(String),
          created_at: expect.any(String),
        },
      ],
      nextCursor: null,
    });

    const accepted = await api('POST', `/api/invitations/${invitationId}/accept`, 'bob');
    expect(accepted.status).toBe(200);
    expect(accepted.body).toEqual({
      status: 'accepted',
      circle: expect.objectContaining({ id: circleId, name: 'Family', my_role: 'member', my_member_id: memberId }),
    });
    expect(await circlesOf('bob')).toContain(circleId);
    expect((await api('GET', '/api/invitations', 'bob')).body.items).toEqual([]);
    // Used: answering again, either way and by either proof, is refused like the token path refuses it.
    expect((await api('POST', `/api/invitations/${invitationId}/accept`, 'bob')).status).toBe(409);
    expect((await api('POST', `/api/invitations/${invitationId}/decline`, 'bob')).status).toBe(409);
  });

  it('refuses the same address unverified (email_verified false or missing), whatever the id', async () => {
    const { circleId, invitationId } = await invite('Unverified');
    for (const who of ['bobUnverified', 'bobUnclaimed'] as const) {
      for (const [method, path] of [
        ['GET', '/api/invitations'],
        ['POST', `/api/invitations/${invitationId}/accept`],
        ['POST', `/api/invitations/${invitationId}/decline`],
        ['POST', `/api/invitations/${MISSING}/accept`],
      ] as const) {
        const answer = await api(method, path, who);
        expect([who, path, answer.status]).toEqual([who, path, 403]);
        expect(answer.body.message).toMatch(/not verified/);
      }
      expect(await circlesOf(who)).not.toContain(circleId);
    }
    // Still open for the verified holder of the address.
    expect((await api('POST', `/api/invitations/${invitationId}/decline`, 'bob')).status).toBe(200);
  });

  it("counts an MCP secret holder's address as verified only when a token verified it", async () => {
    const { invitationId } = await invite('By secret');
    const secretOf = async (who: Person) => {
      const created = await api('POST', '/api/mcp-secrets', who, { label: 'phone' });
      expect(created.status).toBe(201);
      return created.body.secret as string;
    };
    const [verified, unverified] = [await secretOf('bob'), await secretOf('bobUnverified')];
    const withSecret = async (secret: string, method: string, path: string) =>
      (await fetch(new URL(path, running.url), { method, headers: bearer(secret) })).status;
    expect(await withSecret(unverified, 'GET', '/api/invitations')).toBe(403);
    expect(await withSecret(unverified, 'POST', `/api/invitations/${invitationId}/accept`)).toBe(403);
    expect(await withSecret(verified, 'GET', '/api/invitations')).toBe(200);
    expect(await withSecret(verified, 'POST', `/api/invitations/${invitationId}/accept`)).toBe(200);
  });

  it('hides it from another address and from anonymous callers, and answers unknown ids 404', async () => {
    const { circleId, invitationId } = await invite('Private');
    expect((await api('GET', '/api/invitations', 'carol')).body).toEqual({ items: [], nextCursor: null });
    for (const id of [invitationId, MISSING, 'not-a-uuid', invitationId.toUpperCase().replace(/-/g, '')]) {
      for (const answer of ['accept', 'decline']) {
        expect([id, answer, (await api('POST', `/api/invitations/${id}/${answer}`, 'carol')).status]).toEqual([id, answer, 404]);
      }
    }
    for (const id of [MISSING, 'not-a-uuid']) expect((await api('POST', `/api/invitations/${id}/accept`, 'bob')).status).toBe(404);
    for (const [method, path] of [
      ['GET', '/api/invitations'],
      ['POST', `/api/invitations/${invitationId}/accept`],
      ['POST', `/api/invitations/${invitationId}/decline`],
    ] as const) {
      expect((await api(method, path, null)).status).toBe(401);
    }
    expect(await circlesOf('carol')).not.toContain(circleId);
    // Nothing above used it up: bob still can.
    expect((await api('POST', `/api/invitations/${invitationId.toUpperCase()}/accept`, 'bob')).status).toBe(200);
  });

  it('declines: the invitation is used, the circle gains nobody', async () => {
    const { circleId, invitationId, token } = await invite('Declined');
    expect((await api('POST', `/api/invitations/${invitationId}/decline`, 'bob')).body).toEqual({ status: 'declined' });
    expect(await circlesOf('bob')).not.toContain(circleId);
    expect((await api('POST', `/api/invitations/${invitationId}/accept`, 'bob')).status).toBe(409);
    expect((await api('POST', '/api/invitations/accept', 'bob', { token })).status).toBe(409);
    const members = await api('GET', `/api/circles/${circleId}/members`, 'alice');
    expect(members.body.members).toEqual(expect.arrayContaining([expect.objectContaining({ email: 'bob@example.com', status: 'declined' })]));
  });

  it('refuses an expired invitation and never lists it', async () => {
    const { invitationId } = await invite('Expired');
    await running.app.get(DataSource).query(`UPDATE care_circle_invitations SET expires_at = now() - interval '1 second' WHERE id = $1`, [invitationId]);
    expect((await api('GET', '/api/invitations', 'bob')).body.items.map((item: { invitation_id: string }) => item.invitation_id)).not.toContain(invitationId);
    expect((await api('POST', `/api/invitations/${invitationId}/accept`, 'bob')).status).toBe(409);
    expect((await api('POST', `/api/invitations/${invitationId}/decline`, 'bob')).status).toBe(409);
  });

  it('an invitation answered by its token is used for the address too', async () => {
    const { invitationId, token } = await invite('By token');
    expect((await api('POST', '/api/invitations/accept', 'bob', { token })).status).toBe(200);
    expect((await api('POST', `/api/invitations/${invitationId}/decline`, 'bob')).status).toBe(409);
  });

  it('pages the list newest first with a cursor, and refuses a forged cursor', async () => {
    const circles = [(await invite('Page 1')).circleId, (await invite('Page 2')).circleId, (await invite('Page 3')).circleId];
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { status: number; body: { items: { circle_id: string }[]; nextCursor: string | null } } = await api(
        'GET',
        `/api/invitations?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
        'bob',
      );
      expect(page.status).toBe(200);
      expect(page.body.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.items.map((item) => item.circle_id));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen.filter((id) => circles.includes(id))).toEqual([...circles].reverse());
    expect(new Set(seen).size).toBe(seen.length);
    expect((await api('GET', '/api/invitations?cursor=bm90LWpzb24', 'bob')).body.fields).toHaveProperty('cursor');
    expect((await api('GET', `/api/invitations?cursor=${Buffer.from(JSON.stringify(['yesterday', MISSING])).toString('base64url')}`, 'bob')).status).toBe(400);
    expect((await api('GET', '/api/invitations?limit=0', 'bob')).status).toBe(400);
  });

  // Last: it moves alice to a new address.
  it('never lets the inviter answer, nor lists to them, an invitation they issued to what is now their own address', async () => {
    const { circleId } = await invite('Self', 'alice.new@example.com');
    tokens.alice = await signHs256(TEST_JWT_SECRET, {
      iss: ISSUER,
      aud: 'mirobody',
      sub: 'alice',
      name: 'alice',
      email: 'Alice.New@example.com',
      email_verified: true,
    });
    const listed = await api('GET', '/api/invitations', 'alice');
    expect(listed).toEqual({ status: 200, body: { items: [], nextCursor: null } });
    const invitationId = (
      (await running.app
        .get(DataSource)
        .query('SELECT i.id FROM care_circle_invitations i JOIN care_circle_members m ON m.id = i.member_id WHERE m.circle_id = $1', [circleId])) as {
        id: string;
      }[]
    )[0]!.id;
    expect((await api('POST', `/api/invitations/${invitationId}/accept`, 'alice')).status).toBe(403);
    expect((await api('POST', `/api/invitations/${invitationId}/decline`, 'alice')).status).toBe(403);
  });
});
