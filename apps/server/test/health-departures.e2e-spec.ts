import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { VoidInvitationsOfErasedSenders1796420995000 } from '../../../libs/health/src/migrations/1796420995000-void-invitations-of-erased-senders.js';
import { CIRCLES_ENV, familyHealth, invite, join, newCircle, person, recordHeartRate, rest } from './support/circles.js';
import { userIdOf } from './support/files.js';
import { startApp, type RunningApp } from './support/test-app.js';

/**
 * Invitations do not outlive the person who sent them (issue 32), and what becomes of a circle whose owner is
 * erased or disabled. Bob shares his heart rate (a value found nowhere else) in every circle he joins; the
 * invitees (`x`, ...) would be strangers to him.
 */
const PEOPLE = ['root', 'carol', 'olga', 'dora', 'mona', 'nina', 'bob', 'fay', 'x', 'y', 'z'] as const;
type Who = (typeof PEOPLE)[number];
const BOBS_HEART_RATE = 167;
const VOID = { statusCode: 410, error: 'Gone', message: 'This invitation is no longer valid' };

let running: RunningApp;
const tokens = {} as Record<Who, string>;

const api = (method: string, path: string, who: Who | null, body?: unknown) => rest(running, method, path, who && tokens[who], body);
const db = () => running.app.get(DataSource);
const circlesOf = async (who: Who) => ((await api('GET', '/api/circles', who)).body.circles as { id: string }[]).map((circle) => circle.id);
const membersOf = async (circleId: string, who: Who) =>
  ((await api('GET', `/api/circles/${circleId}/members`, who)).body.members as { member_id: string; email: string; role: string; status: string }[]).map(
    ({ email, role, status }) => ({ email, role, status }),
  );
const openInvitationsOf = async (who: Who) => (await api('GET', '/api/invitations', who)).body.items as { invitation_id: string; circle_id: string }[];

/** A circle `owner` runs with Bob in it, sharing. */
async function circleWithBob(owner: Who, name: string): Promise<string> {
  const { circleId } = await newCircle(running, tokens[owner], name);
  await join(running, tokens[owner], circleId, tokens.bob, 'bob@example.com');
  expect((await api('PATCH', `/api/circles/${circleId}/members/me`, 'bob', { health_access: 1 })).status).toBe(200);
  return circleId;
}

/** Every way the invitee could answer: the token, either way, and (for a verified address) the invitation's id. */
async function answers(who: Who, token: string, invitationId?: string) {
  const paths: [string, unknown][] = [
    ['/api/invitations/accept', { token }],
    ['/api/invitations/decline', { token }],
    ...(invitationId ? ([[`/api/invitations/${invitationId}/accept`, undefined]] as [string, unknown][]) : []),
  ];
  return Promise.all(paths.map(async ([path, body]) => ({ path, ...(await api('POST', path, who, body)) })));
}

beforeAll(async () => {
  running = await startApp(CIRCLES_ENV);
  for (const who of PEOPLE) {
    tokens[who] = await person(who, who.toUpperCase(), who === 'root' ? { roles: ['admin'] } : {});
    expect((await api('GET', '/api/circles', who)).status).toBe(200);
  }
  await recordHeartRate(running, tokens.bob, BOBS_HEART_RATE);
}, 60_000);

afterAll(async () => {
  await running?.close();
});

describe('erasing the owner of a circle', () => {
  it('voids every invitation they sent (410), and closes the circle that no maintainer can take over: nobody reads Bob through it', async () => {
    const circleId = await circleWithBob('carol', 'Carol');
    await join(running, tokens.carol, circleId, tokens.fay, 'fay@example.com');
    const { token } = await invite(running, tokens.carol, circleId, 'x@example.com');
    const [listed] = await openInvitationsOf('x');
    expect(listed).toMatchObject({ circle_id: circleId });
    const carolId = await userIdOf(running, 'carol');
    const { circleId: alone } = await newCircle(running, tokens.carol, 'Carol alone');

    expect((await api('DELETE', '/api/me', 'carol')).status).toBe(204);

    for (const answer of await answers('x', token, listed!.invitation_id)) expect(answer).toEqual({ path: answer.path, status: 410, body: VOID });
    expect(await openInvitationsOf('x')).toEqual([]);
    expect(await circlesOf('x')).toEqual([]);
    expect(await db().query('SELECT count(*)::int AS n FROM care_circle_invitations WHERE invited_by = $1', [carolId])).toEqual([{ n: 0 }]);
    // A circle she was alone in goes with her (it stayed: the erasure misread what a DELETE ... RETURNING answers).
    expect(await db().query('SELECT count(*)::int AS n FROM care_circles WHERE id = $1', [alone])).toEqual([{ n: 0 }]);
    // Closed: nobody is left to revoke anything, so nobody goes on reading anyone through it; Bob's own records stay his.
    for (const who of ['bob', 'fay'] as const) expect(await circlesOf(who)).not.toContain(circleId);
    expect(JSON.stringify(await familyHealth(running, tokens.fay, { member: 'bob@example.com' }))).not.toContain(String(BOBS_HEART_RATE));
    expect(await familyHealth(running, tokens.bob, {})).toMatchObject({ subject: 'me', observations: [{ value: `${BOBS_HEART_RATE} beats/minute` }] });
  });

  it('hands the circle to its longest-standing maintainer (admin erasure), drops the pending rows of her invitations and keeps the others', async () => {
    const { circleId } = await newCircle(running, tokens.olga, 'Olga');
    await join(running, tokens.olga, circleId, tokens.mona, 'mona@example.com', 'maintainer');
    await join(running, tokens.olga, circleId, tokens.nina, 'nina@example.com', 'maintainer');
    await join(running, tokens.olga, circleId, tokens.bob, 'bob@example.com');
    const olgas = await invite(running, tokens.olga, circleId, 'x@example.com');
    const monas = await invite(running, tokens.mona, circleId, 'y@example.com');

    expect((await api('DELETE', `/admin/users/${await userIdOf(running, 'olga')}`, 'root')).status).toBe(204);

    expect(await membersOf(circleId, 'mona')).toEqual([
      { email: 'mona@example.com', role: 'owner', status: 'accepted' },
      { email: 'nina@example.com', role: 'maintainer', status: 'accepted' },
      { email: 'bob@example.com', role: 'member', status: 'accepted' },
      { email: 'y@example.com', role: 'member', status: 'pending' },
    ]);
    for (const answer of await answers('x', olgas.token)) expect(answer).toEqual({ path: answer.path, status: 410, body: VOID });
    expect((await api('POST', '/api/invitations/accept', 'y', { token: monas.token })).status).toBe(200);
    // Mona owns it now: she does what only an owner may.
    const nina = (await api('GET', `/api/circles/${circleId}/members`, 'mona')).body.members.find(
      (member: { email: string }) => member.email === 'nina@example.com',
    );
    expect((await api('PATCH', `/api/circles/${circleId}/members/${nina.member_id}`, 'mona', { role: 'owner' })).status).toBe(200);
  });
});

describe('an owner disabled by an admin', () => {
  it('keeps the circle and its members; their invitations cannot be answered (403) nor are listed until the account is enabled again', async () => {
    const circleId = await circleWithBob('dora', 'Dora');
    const byToken = await invite(running, tokens.dora, circleId, 'x@example.com');
    await invite(running, tokens.dora, circleId, 'z@example.com');
    const [listed] = await openInvitationsOf('z');
    const doraId = await userIdOf(running, 'dora');

    expect((await api('POST', `/admin/users/${doraId}/disable`, 'root')).status).toBe(200);
    expect((await api('GET', '/api/circles', 'dora')).status).toBe(403);
    for (const answer of await answers('x', byToken.token)) {
      expect(answer).toMatchObject({ status: 403, body: { message: expect.stringContaining('The account that sent this invitation is disabled') } });
    }
    expect(await openInvitationsOf('z')).toEqual([]);
    expect(await circlesOf('bob')).toContain(circleId);
    expect((await membersOf(circleId, 'bob')).filter((member) => member.status !== 'pending')).toEqual([
      { email: 'dora@example.com', role: 'owner', status: 'accepted' },
      { email: 'bob@example.com', role: 'member', status: 'accepted' },
    ]);

    expect((await api('POST', `/admin/users/${doraId}/enable`, 'root')).status).toBe(200);
    expect(await openInvitationsOf('z')).toEqual([listed]);
    expect((await api('POST', '/api/invitations/accept', 'x', { token: byToken.token })).status).toBe(200);
    expect(await circlesOf('x')).toContain(circleId);
  });
});

describe('invitations whose sender was erased before this release', () => {
  it('are voided by the migration, their pending rows gone, and the inviter is kept by a foreign key from then on', async () => {
    const { circleId } = await newCircle(running, tokens.fay, 'Fay');
    await join(running, tokens.fay, circleId, tokens.mona, 'mona@example.com', 'maintainer');
    const { token } = await invite(running, tokens.fay, circleId, 'z@example.com');
    const fayId = await userIdOf(running, 'fay');
    // What an erasure did before: memberships and the user row went, the invitation stayed, naming nobody.
    await db().query('ALTER TABLE care_circle_invitations DROP CONSTRAINT care_circle_invitations_invited_by_fkey');
    await db().query('DELETE FROM care_circle_members WHERE user_id = $1', [fayId]);
    await db().query('DELETE FROM users WHERE id = $1', [fayId]);

    const queryRunner = db().createQueryRunner();
    try {
      await new VoidInvitationsOfErasedSenders1796420995000().up(queryRunner);
    } finally {
      await queryRunner.release();
    }

    expect((await api('POST', '/api/invitations/accept', 'z', { token })).body).toEqual(VOID);
    expect((await membersOf(circleId, 'mona')).map((member) => member.email)).toEqual(['mona@example.com']);
    const [constraint] = await db().query("SELECT confdeltype FROM pg_constraint WHERE conname = 'care_circle_invitations_invited_by_fkey'");
    expect(constraint).toEqual({ confdeltype: 'n' });
  });
});
