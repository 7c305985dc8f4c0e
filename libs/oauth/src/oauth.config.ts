import { ConfigError, bool, defineConfigSection, duration, int, isLoopback, optionalStr, parseUrl, str } from '@app/common';
import type { OAuthModuleOptions } from './oauth.options.js';

/** The built-in authorization server (`OAUTH_MODE=builtin`): the identity provider users sign in at, and the limits on clients. */
export const oauthConfig = defineConfigSection({
  keys: {
    /** The company's OpenID Connect issuer (its discovery document is at `/.well-known/openid-configuration` under it). */
    OIDC_ISSUER: optionalStr(),
    OIDC_CLIENT_ID: optionalStr(),
    OIDC_CLIENT_SECRET: optionalStr({ secret: true }),
    /** Space-separated, as OAuth writes scopes. */
    OIDC_SCOPES: str('openid email profile', {
      pattern: /^[\x21\x23-\x5b\x5d-\x7e]+( [\x21\x23-\x5b\x5d-\x7e]+)*$/,
      expected: 'scope names separated by single spaces',
    }),
    OAUTH_ALLOW_INSECURE_DEV: bool(false),
    OAUTH_REGISTRATIONS_PER_HOUR: int(20, { min: 1, max: 100_000 }),
    OAUTH_CLIENT_LIFETIME: duration(30 * 86400, { minSeconds: 3600, maxSeconds: 366 * 86400, unitRequired: true }),
  },
  validate: (values, env) => {
    if (values.OAUTH_ALLOW_INSECURE_DEV && env.NODE_ENV === 'production')
      throw new ConfigError('OAUTH_ALLOW_INSECURE_DEV', 'is refused when NODE_ENV=production: it lets sign-ins and client metadata travel over plain http');
    if (env.OAUTH_MODE !== 'builtin') return;
    if (!values.OIDC_ISSUER) throw new ConfigError('OIDC_ISSUER', 'required with OAUTH_MODE=builtin: the identity provider users sign in at');
    if (!values.OIDC_CLIENT_ID) throw new ConfigError('OIDC_CLIENT_ID', 'required with OAUTH_MODE=builtin: this server’s client id at the identity provider');
    const issuer = parseUrl(values.OIDC_ISSUER);
    const insecureAllowed = values.OAUTH_ALLOW_INSECURE_DEV || (issuer?.protocol === 'http:' && isLoopback(issuer.hostname.replace(/^\[|\]$/g, '')));
    if (!issuer || (issuer.protocol !== 'https:' && !(issuer.protocol === 'http:' && insecureAllowed)))
      throw new ConfigError(
        'OIDC_ISSUER',
        `expected an https URL (http only for a loopback address or with OAUTH_ALLOW_INSECURE_DEV), got "${values.OIDC_ISSUER}"`,
      );
    if (!values.OIDC_SCOPES.split(' ').includes('openid')) throw new ConfigError('OIDC_SCOPES', 'must include openid: the sign-in reads the ID token');
  },
  toOptions: (values): OAuthModuleOptions => ({
    identityProvider: {
      issuer: values.OIDC_ISSUER ?? '',
      clientId: values.OIDC_CLIENT_ID ?? '',
      clientSecret: values.OIDC_CLIENT_SECRET,
      scopes: values.OIDC_SCOPES.split(' '),
    },
    allowInsecureDev: values.OAUTH_ALLOW_INSECURE_DEV,
    registrationsPerHour: values.OAUTH_REGISTRATIONS_PER_HOUR,
    clientLifetimeSeconds: values.OAUTH_CLIENT_LIFETIME,
  }),
});
