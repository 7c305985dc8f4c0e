/** Someone whose health data the caller may read, with every way the caller might name them. */
export interface ReadablePerson {
  userId: string;
  /** Their member ids in the circles shared with the caller (opaque; safe to show). */
  memberIds: readonly string[];
  name: string | null;
  email: string | null;
  nicknames: readonly string[];
}

export type Resolution = { kind: 'found'; person: ReadablePerson } | { kind: 'ambiguous'; candidates: ReadablePerson[] } | { kind: 'none' };

const namesOf = (person: ReadablePerson): string[] =>
  [person.name, person.email, ...person.nicknames].filter((value): value is string => !!value).map((value) => value.toLowerCase());

/**
 * Finds the person `query` names among `people` (only those who share with the caller, so nobody else can ever
 * match): a member id or an exact case-insensitive name, nickname or e-mail first, else a unique partial match.
 */
export function resolvePerson(query: string, people: readonly ReadablePerson[]): Resolution {
  const wanted = query.trim().toLowerCase();
  const exact = people.filter((person) => person.memberIds.some((id) => id.toLowerCase() === wanted) || namesOf(person).includes(wanted));
  if (exact.length === 1) return { kind: 'found', person: exact[0]! };
  if (exact.length > 1) return { kind: 'ambiguous', candidates: exact };
  const partial = people.filter((person) => namesOf(person).some((name) => name.includes(wanted)));
  if (partial.length === 1) return { kind: 'found', person: partial[0]! };
  if (partial.length > 1) return { kind: 'ambiguous', candidates: partial };
  return { kind: 'none' };
}

/** How a person is shown in an error or an answer: a name people know, and a member id to pass back. */
export function describePerson(person: ReadablePerson): string {
  const label =
    person.nicknames[0] && person.name ? `${person.name} ("${person.nicknames[0]}")` : (person.name ?? person.nicknames[0] ?? person.email ?? 'unnamed');
  return `${label}, member id ${person.memberIds[0]}`;
}
