/**
 * The claim named `path`, else the nested one it points to: `realm_access.roles` reads
 * `claims.realm_access.roles` as Keycloak nests them, while a namespaced claim such as
 * `https://example.com/roles` (Auth0) is found under its full name first.
 */
export function claimAt(claims: Record<string, unknown>, path: string): unknown {
  if (path in claims) return claims[path];
  return path.split('.').reduce<unknown>((value, key) => (value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined), claims);
}

/** A list of strings, or one space-separated string (the OAuth `scope` style some providers use); nothing else is a value. */
export function claimValues(value: unknown): string[] {
  if (typeof value === 'string') return value.split(' ').filter(Boolean);
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}
