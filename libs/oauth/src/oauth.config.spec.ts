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
});
