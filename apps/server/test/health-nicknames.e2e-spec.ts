import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CIRCLES_ENV, familyHealth, invite, join, newCircle, person, recordHeartRate, rest } from './support/circles.js';
import { userIdOf } from './support/files.js';
import { startApp, type RunningApp } from './support/test-app.js';

/**
 * A member cannot pose as another (issue 32). Alice shares nothing; Bob shares his heart rate (a value found
 * nowhere else) with Fay; Xavier is invited later. Whatever Bob calls himself, Fay asking for someone else by
 * their e-mail, id or name never gets Bob's records.
 */
const NAMES = { alice: 'Alice Smith', bob: 'Bob Brown', fay: 'Fay Field', xavier: 'Xavier Young' };
type Who = keyof typeof NAMES;
const BOBS_HEART_RATE = 173;
/** Whether an answer shows Bob's reading anywhere but as digits inside a member id (a random uuid may hold "173"). */
const showsBobsReading = (answer: unknown) =>
  JSON.stringify(answer)
    .replace(/[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}/gi, '')
    .includes(String(BOBS_HEART_RATE));

let running: RunningApp;
const tokens = {} as Record<Who, string>;
const memberIds = {} as Record<Who, string>;
let circleId: string;

const api = (method: string, path: string, who: Who | null, body?: unknown) => rest(running, method, path, who && tokens[who], body);
const nickname = (who: Who, value: string | null, circle = circleId) => api('PATCH', `/api/circles/${circle}/members/me`, who, { nickname: value });
const nicknameOf = async (who: Who) =>
  ((await api('GET', `/api/circles/${circleId}/members`, 'fay')).body.members as { member_id: string; nickname: string | null }[]).find(
    (member) => member.member_id === memberIds[who],
  )?.nickname;

/** What Fay gets asking for `member`; never Bob's heart rate unless she asked for Bob. */
async function faysAnswer(member: string) {
  return familyHealth(running, tokens.fay, { member });
}

beforeAll(async () => {
  running = await startApp(CIRCLES_ENV);
  for (const who of Object.keys(NAMES) as Who[]) {
    tokens[who] = await person(who, NAMES[who]);
    expect((await api('GET', '/api/circles', who)).status).toBe(200);
  }
  ({ circleId, ownerMemberId: memberIds.alice } = await newCircle(running, tokens.alice, 'Family'));
  memberIds.bob = await join(running, tokens.alice, circleId, tokens.bob, 'bob@example.com');
  memberIds.fay = await join(running, tokens.alice, circleId, tokens.fay, 'fay@example.com');
  expect((await api('PATCH', `/api/circles/${circleId}/members/me`, 'bob', { nickname: 'Bobby', health_access: 1 })).status).toBe(200);
  await recordHeartRate(running, tokens.bob, BOBS_HEART_RATE);
}, 60_000);

afterAll(async () => {
  await running?.close();
});

describe('a nickname', () => {
  it("is refused (409 naming the clash) when it is another member's e-mail, name or nickname, in any case and spacing", async () => {
    expect((await nickname('alice', 'Mum')).status).toBe(200);
    for (const [taken, what] of [
      ['alice@example.com', 'e-mail address'],
      [' ALICE@Example.COM ', 'e-mail address'],
      ['alice smith', 'name'],
      ['  MUM', 'nickname'],
    ] as const) {
      const refused = await nickname('bob', taken);
      expect([taken, refused.status]).toEqual([taken, 409]);
      expect(refused.body.message).toBe(
        `nickname: "${taken.trim()}" is the ${what} of another member of this circle (member id ${memberIds.alice}); choose another`,
      );
    }
    expect(await nicknameOf('bob')).toBe('Bobby');
  });

  it('is refused when it is the address someone not yet joined was invited at', async () => {
    const pending = await invite(running, tokens.alice, circleId, 'pending@example.com');
    const refused = await nickname('bob', 'Pending@example.com');
    expect(refused.status).toBe(409);
    expect(refused.body.message).toContain(`e-mail address of another member of this circle (member id ${pending.member_id})`);
    expect((await api('DELETE', `/api/circles/${circleId}/members/${pending.member_id}`, 'alice')).status).toBe(204);
  });

  it("may be one's own name or address, or anything nobody else in the circle answers to; an anonymous caller sets nothing", async () => {
    for (const own of ['Bob Brown', 'bob@example.com', 'Bobby']) expect([own, (await nickname('bob', own)).status]).toEqual([own, 200]);
    expect((await nickname('bob', null)).status).toBe(200);
    expect((await nickname('bob', 'Bobby')).status).toBe(200);
    expect((await api('PATCH', `/api/circles/${circleId}/members/me`, null, { nickname: 'Alice Smith' })).status).toBe(401);
  });
});

describe('family_health names a person by who they are before what anyone calls themselves', () => {
  it("answers an e-mail with that person even when a nickname elsewhere is the same (the issue's attack)", async () => {
    // Alice is not in Bob's other circle, so nothing stops him taking her address as his nickname there.
    const { circleId: bobsCircle } = await newCircle(running, tokens.bob, "Bob's");
    await join(running, tokens.bob, bobsCircle, tokens.fay, 'fay@example.com');
    expect((await api('PATCH', `/api/circles/${bobsCircle}/members/me`, 'bob', { nickname: 'alice@example.com', health_access: 1 })).status).toBe(200);

    const answer = await faysAnswer('Alice@example.com');
    expect(answer).toEqual({
      error: expect.stringContaining(
        `member: "Alice@example.com" is Alice Smith ("Mum"), member id ${memberIds.alice}, who does not share health data with you.`,
      ),
    });
    expect(showsBobsReading(answer)).toBe(false);
    expect((await api('DELETE', `/api/circles/${bobsCircle}`, 'bob')).status).toBe(204);
  });

  it('answers a user id or member id with that person, whether or not they share', async () => {
    for (const id of [await userIdOf(running, 'alice'), memberIds.alice.toUpperCase()]) {
      expect(await faysAnswer(id)).toEqual({ error: expect.stringContaining(`member id ${memberIds.alice}, who does not share health data with you`) });
    }
    expect(await faysAnswer(memberIds.bob)).toMatchObject({ subject: 'Bobby', observations: [{ value: `${BOBS_HEART_RATE} beats/minute` }] });
  });

  it('answers with the invited person, not an earlier nickname equal to their address, before and after they join', async () => {
    expect((await nickname('bob', 'xavier@example.com')).status).toBe(200);
    const { member_id, token } = await invite(running, tokens.alice, circleId, 'xavier@example.com');
    const pending = await faysAnswer('xavier@example.com');
    expect(pending).toEqual({ error: expect.stringContaining(`is xavier@example.com, member id ${member_id}, who does not share health data with you`) });

    expect((await api('POST', '/api/invitations/accept', 'xavier', { token })).status).toBe(200);
    const joined = await faysAnswer('XAVIER@example.com');
    expect(joined).toEqual({ error: expect.stringContaining(`is Xavier Young, member id ${member_id}, who does not share health data with you`) });
    for (const answer of [pending, joined]) expect(showsBobsReading(answer)).toBe(false);
    expect((await nickname('bob', 'Bobby')).status).toBe(200);
  });

  it('lists both candidates with their member ids when a display name changes to what a nickname already is, and picks neither', async () => {
    expect((await nickname('bob', 'Grandpa')).status).toBe(200);
    // Alice's next token carries a new display name, which her first call with it stores.
    tokens.alice = await person('alice', 'Grandpa');
    expect((await api('GET', '/api/circles', 'alice')).status).toBe(200);

    const answer = await faysAnswer(' grandpa ');
    expect(answer).toEqual({
      error: `member: "grandpa" matches more than one person: Bob Brown ("Grandpa"), member id ${memberIds.bob}; Grandpa ("Mum"), member id ${memberIds.alice}. Pass a member id.`,
    });
    expect(await faysAnswer(memberIds.bob)).toMatchObject({ subject: 'Grandpa', observations: [{ value: `${BOBS_HEART_RATE} beats/minute` }] });
  });
});
