import { oauthConfig } from './oauth.config.js';

const BUILTIN = { OAUTH_MODE: 'builtin', OIDC_ISSUER: 'https://login.example.com/realms/staff', OIDC_CLIENT_ID: 'mirobody' };

describe('oauthConfig', () => {
  it('needs nothing unless OAUTH_MODE=builtin', () => {
    expect(oauthConfig.load({}).identityProvider.issuer).toBe('');
  });

  it('with OAUTH_MODE=builtin, requires the identity provider and asks it for openid, email and profile', () => {
    expect(oauthConfig.load(BUILTIN).identityProvider).toEqual({
      issuer: BUILTIN.OIDC_ISSUER,
      clientId: 'mirobody',
      scopes: ['openid', 'email', 'profile'],
      verifiedEmailDomains: [],
    });
    expect(() => oauthConfig.load({ OAUTH_MODE: 'builtin' })).toThrow('OIDC_ISSUER');
    expect(() => oauthConfig.load({ ...BUILTIN, OIDC_CLIENT_ID: '' })).toThrow('OIDC_CLIENT_ID');
    expect(() => oauthConfig.load({ ...BUILTIN, OIDC_SCOPES: 'email' })).toThrow('must include openid');
  });

  it('takes plain http for the identity provider only on a loopback address or with OAUTH_ALLOW_INSECURE_DEV', () => {
    expect(() => oauthConfig.load({ ...BUILTIN, OIDC_ISSUER: 'http://login.example.com' })).toThrow('expected an https URL');
    expect(oauthConfig.load({ ...BUILTIN, OIDC_ISSUER: 'http://127.0.0.1:8080' }).identityProvider.issuer).toBe('http://127.0.0.1:8080');
    expect(oauthConfig.load({ ...BUILTIN, OIDC_ISSUER: 'http://keycloak:8080/realms/dev', OAUTH_ALLOW_INSECURE_DEV: 'true' }).allowInsecureDev).toBe(true);
  });

  it('refuses OAUTH_ALLOW_INSECURE_DEV in production', () => {
    expect(() => oauthConfig.load({ ...BUILTIN, OAUTH_ALLOW_INSECURE_DEV: 'true', NODE_ENV: 'production' })).toThrow('refused when NODE_ENV=production');
  });

  it('takes OIDC_CLIENT_AUTH_METHOD with a secret to send, and only the two secret methods', () => {
    const confidential = { ...BUILTIN, OIDC_CLIENT_SECRET: 'a-secret' };
    expect(oauthConfig.load(confidential).identityProvider.clientAuthMethod).toBeUndefined();
    expect(oauthConfig.load({ ...confidential, OIDC_CLIENT_AUTH_METHOD: 'client_secret_post' }).identityProvider.clientAuthMethod).toBe('client_secret_post');
    expect(() => oauthConfig.load({ ...confidential, OIDC_CLIENT_AUTH_METHOD: 'private_key_jwt' })).toThrow(
      'Invalid configuration OIDC_CLIENT_AUTH_METHOD: expected client_secret_basic or client_secret_post',
    );
    expect(() => oauthConfig.load({ ...BUILTIN, OIDC_CLIENT_AUTH_METHOD: 'client_secret_basic' })).toThrow(
      'OIDC_CLIENT_AUTH_METHOD: is how OIDC_CLIENT_SECRET is sent',
    );
  });

  it('maps roles only when told both the claim and the values that make an admin', () => {
    expect(
      oauthConfig.load({ ...BUILTIN, OIDC_ROLES_CLAIM: 'groups', OIDC_ADMIN_ROLES: 'mirobody-admins,9f3b1c2d-0000-4000-8000-000000000001' }).identityProvider,
    ).toEqual(expect.objectContaining({ rolesClaim: 'groups', adminRoles: ['mirobody-admins', '9f3b1c2d-0000-4000-8000-000000000001'] }));
    expect(() => oauthConfig.load({ ...BUILTIN, OIDC_ROLES_CLAIM: 'groups' })).toThrow('OIDC_ADMIN_ROLES: required with OIDC_ROLES_CLAIM');
    expect(() => oauthConfig.load({ ...BUILTIN, OIDC_ADMIN_ROLES: 'admin' })).toThrow('OIDC_ROLES_CLAIM: required with OIDC_ADMIN_ROLES');
  });

  it('trusts no e-mail domain unless told, and names a malformed one', () => {
    expect(oauthConfig.load({ ...BUILTIN, OIDC_VERIFIED_EMAIL_DOMAINS: 'Contoso.com, contoso.onmicrosoft.com' }).identityProvider.verifiedEmailDomains).toEqual(
      ['contoso.com', 'contoso.onmicrosoft.com'],
    );
    expect(() => oauthConfig.load({ ...BUILTIN, OIDC_VERIFIED_EMAIL_DOMAINS: '@contoso.com' })).toThrow('OIDC_VERIFIED_EMAIL_DOMAINS');
  });

  it('takes ID-JAGs from the sign-in provider by default, from the issuers named, or from none', () => {
    expect(oauthConfig.load(BUILTIN).assertionIssuers).toEqual([BUILTIN.OIDC_ISSUER]);
    expect(oauthConfig.load({ ...BUILTIN, OAUTH_ID_JAG_ISSUERS: 'https://acme.okta.com,https://login.example.com/realms/staff' }).assertionIssuers).toEqual([
      'https://acme.okta.com',
      'https://login.example.com/realms/staff',
    ]);
    expect(oauthConfig.load({ ...BUILTIN, OAUTH_ID_JAG_ISSUERS: 'none' }).assertionIssuers).toEqual([]);
    expect(() => oauthConfig.load({ ...BUILTIN, OAUTH_ID_JAG_ISSUERS: 'none,https://acme.okta.com' })).toThrow('stands alone');
    expect(() => oauthConfig.load({ ...BUILTIN, OAUTH_ID_JAG_ISSUERS: 'http://acme.example.com' })).toThrow('OAUTH_ID_JAG_ISSUERS: expected an https URL');
  });
});
