import { ADMIN_ROLE, claimAt, claimValues, type TokenIdentity } from '@app/auth';
import { LONE_SURROGATE_PROBLEM } from '@app/common';

/** How an identity provider's claims become who signed in: `IdentityProviderOptions`' rules. */
export interface ClaimRules {
  /** The claim (a dotted path) whose values may make an admin. */
  rolesClaim?: string;
  /** Its values that do. */
  adminRoles?: readonly string[];
  /** Lower-cased domains whose addresses count as verified when the provider says nothing of it. */
  verifiedEmailDomains: readonly string[];
}

/** The provider's claims cannot be stored as they are; the message names the claim. */
export class UnusableClaimError extends Error {}

const looksLikeEmail = (value: unknown): value is string => typeof value === 'string' && /^[^@\s]+@[^@\s]+$/.test(value);

/**
 * Who a provider's claims (ID token, with userinfo's where the token lacks them) stand for, as
 * `UsersService` keys users: by issuer and subject, so that a sign-in and a JWT of that provider
 * are one user.
 *
 * - The address is `email`, else an address-shaped `preferred_username` or `upn` (Entra ID names
 *   people so, and may send no `email`). It is verified only by `email_verified: true` (the boolean,
 *   about `email`), or, when the provider says nothing of it, by a domain of `verifiedEmailDomains`;
 *   `email_verified` false (or anything but true) is never overridden.
 * - The name is `name`, else `preferred_username`.
 * - Roles: `admin` when the roles claim holds one of the admin values; the provider's values
 *   themselves are not passed on, so that a group that happens to be called "admin" grants
 *   nothing unless it is configured.
 */
export function identityFromClaims(claims: Record<string, unknown>, rules: ClaimRules): TokenIdentity {
  const { iss: issuer, sub: subject } = claims;
  if (typeof issuer !== 'string' || typeof subject !== 'string' || !subject) throw new UnusableClaimError('The identity token names no issuer or subject');
  const fromEmailClaim = typeof claims.email === 'string' && claims.email !== '';
  const email = fromEmailClaim ? (claims.email as string) : [claims.preferred_username, claims.upn].find(looksLikeEmail);
  const name =
    typeof claims.name === 'string' && claims.name !== '' ? claims.name : typeof claims.preferred_username === 'string' ? claims.preferred_username : undefined;
  for (const [claim, value] of Object.entries({ sub: subject, email, name })) {
    if (value?.includes('\u0000')) throw new UnusableClaimError(`The identity provider's "${claim}" holds a NUL character, which cannot be stored`);
    if (value !== undefined && !value.isWellFormed()) throw new UnusableClaimError(`The identity provider's "${claim}" ${LONE_SURROGATE_PROBLEM}`);
  }
  const saysNothing = !fromEmailClaim || !('email_verified' in claims);
  const emailVerified =
    email !== undefined && (fromEmailClaim && claims.email_verified === true ? true : saysNothing && inDomains(email, rules.verifiedEmailDomains));
  return {
    issuer,
    subject,
    ...(email !== undefined ? { email } : {}),
    emailVerified,
    ...(name !== undefined ? { name } : {}),
    roles: rolesFrom(claims, rules),
  };
}

/** Whether the claims lack what the identity needs and userinfo may hold: an address, or the roles claim. */
export function lacksProfile(claims: Record<string, unknown>, rules: ClaimRules): boolean {
  return claims.email === undefined || (rules.rolesClaim !== undefined && claimAt(claims, rules.rolesClaim) === undefined);
}

function rolesFrom(claims: Record<string, unknown>, rules: ClaimRules): string[] {
  if (!rules.rolesClaim || !rules.adminRoles?.length) return [];
  const values = claimValues(claimAt(claims, rules.rolesClaim));
  return values.some((value) => rules.adminRoles!.includes(value)) ? [ADMIN_ROLE] : [];
}

function inDomains(email: string, domains: readonly string[]): boolean {
  const domain = email.slice(email.lastIndexOf('@') + 1).toLowerCase();
  return domains.includes(domain);
}
