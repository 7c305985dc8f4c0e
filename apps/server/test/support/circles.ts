import { bearer, signHs256, TEST_JWT_SECRET, withClient } from './auth.js';
import type { RunningApp } from './test-app.js';

const ISSUER = 'https://id.example.com';
const AUDIENCE = 'mirobody';

/** An app whose callers are `person`'s tokens. */
export const CIRCLES_ENV = { JWT_SECRET: TEST_JWT_SECRET, JWT_ISSUER: ISSUER, JWT_AUDIENCE: AUDIENCE, MCP_ALLOWED_HOSTS: '127.0.0.1' };

/** A token for the person `sub`, at `<sub>@example.com` (verified) and called `name` unless `claims` say otherwise. */
export const person = (sub: string, name: string, claims: Record<string, unknown> = {}) =>
  signHs256(TEST_JWT_SECRET, { iss: ISSUER, aud: AUDIENCE, sub, name, email: `${sub}@example.com`, email_verified: true, ...claims });

export interface JsonAnswer {
  status: number;
  body: any;
}

/** A REST call with an optional bearer token and JSON body; the answer's body parsed. */
export async function rest(running: RunningApp, method: string, path: string, token: string | null, body?: unknown): Promise<JsonAnswer> {
  const response = await fetch(new URL(path, running.url), {
    method,
    headers: { ...(token ? bearer(token) : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

export type FamilyHealthResult = { error: string } | { subject: string; subject_member_id: string | null; observations: { code: string; value: string }[] };

/** `family_health` over the official MCP client, as the holder of `token` calls it; a tool error comes back as `{ error }`. */
export function familyHealth(running: RunningApp, token: string, args: Record<string, unknown>): Promise<FamilyHealthResult> {
  return withClient(running.url, '2025-11-25', bearer(token), async (client) => {
    const result = await client.callTool({ name: 'family_health', arguments: args });
    return result.isError ? { error: (result.content as { text: string }[])[0]!.text } : (result.structuredContent as FamilyHealthResult);
  });
}

/** A circle `owner` creates, with its id and the owner's member id. */
export async function newCircle(running: RunningApp, owner: string, name: string): Promise<{ circleId: string; ownerMemberId: string }> {
  const created = await rest(running, 'POST', '/api/circles', owner, { name });
  if (created.status !== 201) throw new Error(`creating circle ${name}: ${created.status} ${JSON.stringify(created.body)}`);
  return { circleId: created.body.id, ownerMemberId: created.body.my_member_id };
}

/** `inviter` invites `email`; the answer holds the token and the pending member id. */
export async function invite(running: RunningApp, inviter: string, circleId: string, email: string, role = 'member') {
  const issued = await rest(running, 'POST', `/api/circles/${circleId}/invitations`, inviter, { email, role });
  if (issued.status !== 201) throw new Error(`inviting ${email}: ${issued.status} ${JSON.stringify(issued.body)}`);
  return issued.body as { member_id: string; token: string };
}

/** `inviter` invites the holder of `joiner` (at `email`), who accepts with the token; their member id. */
export async function join(running: RunningApp, inviter: string, circleId: string, joiner: string, email: string, role = 'member'): Promise<string> {
  const { member_id, token } = await invite(running, inviter, circleId, email, role);
  const accepted = await rest(running, 'POST', '/api/invitations/accept', joiner, { token });
  if (accepted.status !== 200) throw new Error(`${email} accepting: ${accepted.status} ${JSON.stringify(accepted.body)}`);
  return member_id;
}

/** One heart rate of the holder of `token`, the value to look for (or not) in answers. */
export async function recordHeartRate(running: RunningApp, token: string, beatsPerMinute: number): Promise<void> {
  const stored = await rest(running, 'POST', '/api/fhir/Observation', token, {
    resourceType: 'Observation',
    status: 'final',
    code: { coding: [{ system: 'http://loinc.org', code: '8867-4', display: 'Heart rate' }] },
    valueQuantity: { value: beatsPerMinute, unit: 'beats/minute' },
    effectiveDateTime: '2026-01-06T07:00:00Z',
  });
  if (stored.status !== 201) throw new Error(`storing a heart rate: ${stored.status} ${JSON.stringify(stored.body)}`);
}
