/** Someone in a circle the caller is an accepted member of, with every way the caller might name them. */
export interface CirclePerson {
  /** Null for someone invited who has not answered yet. */
  userId: string | null;
  /** Their member ids in the circles shared with the caller, one they share in first (opaque; safe to show). */
  memberIds: readonly string[];
  name: string | null;
  email: string | null;
  nicknames: readonly string[];
  /** Whether they let the caller read their health data: accepted, with `health_access` >= view, in a circle shared with the caller. */
  sharesWithCaller: boolean;
}

export type Resolution = { kind: 'found'; person: CirclePerson } | { kind: 'ambiguous'; candidates: CirclePerson[] } | { kind: 'none' };

/** How names are compared, when resolving and when checking a nickname alike: trimmed, case-insensitive. */
export const normalizedName = (text: string): string => text.trim().toLowerCase();

const present = (values: readonly (string | null)[]): string[] => values.filter((value): value is string => !!value).map(normalizedName);

/** What nobody chooses for themselves: ids the server issued and the e-mail address their sign-in carries or their invitation went to. */
const identitiesOf = (person: CirclePerson) => present([...person.memberIds, person.email, person.userId]);
/** What people call them: their display name and the nicknames they chose. */
const namesOf = (person: CirclePerson) => present([person.name, ...person.nicknames]);

/** From the strongest claim to the weakest: the first that someone answers to decides, so a nickname never wins over an identity. */
const TIERS: ((person: CirclePerson, wanted: string) => boolean)[] = [
  (person, wanted) => identitiesOf(person).includes(wanted),
  (person, wanted) => namesOf(person).includes(wanted),
  (person, wanted) => [...namesOf(person), ...present([person.email])].some((name) => name.includes(wanted)),
];

/**
 * Finds the person `query` names among everyone in the caller's circles, sharing or not (whether they share is
 * the caller's next question): a member id, user id or e-mail first, else an exact display name or nickname,
 * else a unique partial match. Two people answering at one tier are ambiguous, never a silent pick.
 */
export function resolvePerson(query: string, people: readonly CirclePerson[]): Resolution {
  const wanted = normalizedName(query);
  for (const matches of TIERS) {
    const found = people.filter((person) => matches(person, wanted));
    if (found.length === 1) return { kind: 'found', person: found[0]! };
    if (found.length > 1) return { kind: 'ambiguous', candidates: found };
  }
  return { kind: 'none' };
}

/** How a person is shown in an error or an answer: a name people know, and a member id to pass back. */
export function describePerson(person: CirclePerson): string {
  const label =
    person.nicknames[0] && person.name ? `${person.name} ("${person.nicknames[0]}")` : (person.name ?? person.nicknames[0] ?? person.email ?? 'unnamed');
  return `${label}, member id ${person.memberIds[0]}`;
}

/** Another row of a circle as a nickname must not shadow it. */
export interface CircleNames {
  memberId: string;
  name: string | null;
  email: string | null;
  invitedEmail: string | null;
  nickname: string | null;
}

/**
 * What of another member `nickname` would pose as (their e-mail address, name or nickname), or null when it is
 * nobody else's: a nickname equal to someone's address or name would let its holder answer to that person.
 */
export function shadowedBy(nickname: string, others: readonly CircleNames[]): { memberId: string; what: string } | null {
  const wanted = normalizedName(nickname);
  for (const other of others) {
    const taken: [string | null, string][] = [
      [other.email, 'e-mail address'],
      [other.invitedEmail, 'e-mail address'],
      [other.name, 'name'],
      [other.nickname, 'nickname'],
    ];
    const clash = taken.find(([value]) => value !== null && normalizedName(value) === wanted);
    if (clash) return { memberId: other.memberId, what: clash[1] };
  }
  return null;
}
