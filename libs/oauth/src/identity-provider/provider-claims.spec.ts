import { describe, expect, it } from '@jest/globals';
import { identityFromClaims, lacksProfile, type ClaimRules } from './provider-claims.js';

const ISSUER = 'https://login.microsoftonline.com/72f988bf-86f1-41af-91ab-2d7cd011db47/v2.0';
const plain: ClaimRules = { verifiedEmailDomains: [] };
const entra: ClaimRules = { rolesClaim: 'roles', adminRoles: ['Mirobody.Admin'], verifiedEmailDomains: ['contoso.com'] };
const claims = (extra: Record<string, unknown>) => ({ iss: ISSUER, sub: 'AAAAAAAAAAAAAAAAAAAAAIkzqFVrSaSaFHy782bbtaQ', ...extra });

describe('identityFromClaims', () => {
  it.each([
    ['email_verified true', { email: 'ana@fabrikam.com', email_verified: true }, plain, 'ana@fabrikam.com', true],
    ['email_verified false, at a trusted domain', { email: 'ana@contoso.com', email_verified: false }, entra, 'ana@contoso.com', false],
    ['email_verified "true" (a string)', { email: 'ana@contoso.com', email_verified: 'true' }, plain, 'ana@contoso.com', false],
    ['no email_verified, untrusted domain', { email: 'ana@contoso.com' }, plain, 'ana@contoso.com', false],
    ['no email_verified, trusted domain (any case)', { email: 'Ana@Contoso.COM' }, entra, 'Ana@Contoso.COM', true],
    ['no email, a UPN at a trusted domain', { preferred_username: 'ana@contoso.com' }, entra, 'ana@contoso.com', true],
    ['no email, a UPN elsewhere', { preferred_username: 'ana@fabrikam.com' }, entra, 'ana@fabrikam.com', false],
    ['no email, email_verified true about nothing', { preferred_username: 'ana@fabrikam.com', email_verified: true }, plain, 'ana@fabrikam.com', false],
    ['no email, a user name that is no address', { preferred_username: 'ana' }, entra, undefined, false],
  ])('%s', (_case, extra, rules, email, verified) => {
    const identity = identityFromClaims(claims(extra), rules);
    expect([identity.email, identity.emailVerified]).toEqual([email, verified]);
  });

  it('names a person by name, else preferred_username', () => {
    expect(identityFromClaims(claims({ name: 'Ana Ruiz', preferred_username: 'ana@contoso.com' }), plain).name).toBe('Ana Ruiz');
    expect(identityFromClaims(claims({ preferred_username: 'ana@contoso.com' }), plain).name).toBe('ana@contoso.com');
  });

  it('makes an admin of a configured value of the roles claim, a dotted path included, and of nothing else', () => {
    expect(identityFromClaims(claims({ roles: ['Mirobody.Reader', 'Mirobody.Admin'] }), entra).roles).toEqual(['admin']);
    expect(identityFromClaims(claims({ roles: ['admin', 'Mirobody.Reader'] }), entra).roles).toEqual([]);
    expect(identityFromClaims(claims({ roles: 'Mirobody.Admin' }), entra).roles).toEqual(['admin']);
    const keycloak: ClaimRules = { rolesClaim: 'realm_access.roles', adminRoles: ['mirobody-admin'], verifiedEmailDomains: [] };
    expect(identityFromClaims(claims({ realm_access: { roles: ['mirobody-admin'] } }), keycloak).roles).toEqual(['admin']);
    expect(identityFromClaims(claims({ roles: ['admin'] }), plain).roles).toEqual([]);
  });

  it('refuses what cannot be stored, naming the claim', () => {
    expect(() => identityFromClaims(claims({ name: 'a\u0000b' }), plain)).toThrow('"name" holds a NUL character');
    expect(() => identityFromClaims(claims({ email: 'a\ud800@x.com' }), plain)).toThrow('"email"');
    expect(() => identityFromClaims({ iss: ISSUER }, plain)).toThrow('names no issuer or subject');
  });
});

describe('lacksProfile', () => {
  it('asks userinfo for what a thin ID token lacks: the address, or the roles claim', () => {
    expect(lacksProfile(claims({}), plain)).toBe(true);
    expect(lacksProfile(claims({ email: 'a@b.com' }), plain)).toBe(false);
    expect(lacksProfile(claims({ email: 'a@b.com' }), entra)).toBe(true);
    expect(lacksProfile(claims({ email: 'a@b.com', roles: [] }), entra)).toBe(false);
  });
});
