import { DataSource } from 'typeorm';
import { signHs256, TEST_JWT_SECRET } from './auth.js';
import { jsonCall } from './json-call.js';
import type { RunningApp } from './test-app.js';

/** A signed-in user of an app under test: a JWT (HS256, `TEST_JWT_SECRET`), their user id and e-mail. */
export interface Party {
  token: string;
  id: string;
  email: string;
}

/** The three parties every route is tried with (anonymous is the fourth: no token at all). */
export interface Parties {
  alice: Party;
  bob: Party;
  admin: Party;
}

/** A token for `subject`, with an e-mail at example.com; `claims` adds to it (`roles`, `scope`, `agent`). */
export function tokenFor(subject: string, claims: Record<string, unknown> = {}): Promise<string> {
  return signHs256(TEST_JWT_SECRET, { sub: subject, email: `${subject}@example.com`, name: subject.toUpperCase(), ...claims });
}

/** Signs `subject` in (the first request makes the user) and answers the party. */
export async function partyOf(app: RunningApp, subject: string, claims: Record<string, unknown> = {}): Promise<Party> {
  const token = await tokenFor(subject, claims);
  const answer = await jsonCall(app, 'GET', '/api/tasks', token);
  if (answer.status !== 200) throw new Error(`Could not sign ${subject} in: ${answer.status} ${JSON.stringify(answer.body)}`);
  const [row] = await app.app.get(DataSource).query('SELECT id FROM users WHERE subject = $1', [subject]);
  return { token, id: row.id, email: `${subject}@example.com` };
}

/** Users A and B, and an admin (the `admin` role); `claims` go into each one's token. */
export async function partiesOf(app: RunningApp, claims: Record<string, unknown> = {}): Promise<Parties> {
  const [alice, bob, admin] = await Promise.all([
    partyOf(app, 'alice', claims),
    partyOf(app, 'bob', claims),
    partyOf(app, 'root', { ...claims, roles: ['admin'] }),
  ]);
  return { alice, bob, admin };
}

/** The audit trail's entries of one action, oldest first, as rows. */
export async function auditEntries(
  app: RunningApp,
  action: string,
): Promise<{ actor_id: string; target_user_id: string | null; detail: Record<string, unknown> | null }[]> {
  return app.app.get(DataSource).query('SELECT actor_id, target_user_id, detail FROM admin_audit WHERE action = $1 ORDER BY id', [action]);
}

/** `method path` as anonymous, user and admin callers: what each gets back (status only). */
export async function statusesOf(app: RunningApp, method: string, path: string, parties: Parties, body?: unknown) {
  const [anonymous, user, admin] = await Promise.all([
    jsonCall(app, method, path, undefined, body),
    jsonCall(app, method, path, parties.bob.token, body),
    jsonCall(app, method, path, parties.admin.token, body),
  ]);
  return { anonymous: anonymous.status, user: user.status, admin: admin.status };
}
