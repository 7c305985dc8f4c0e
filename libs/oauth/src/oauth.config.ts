import { ConfigError, bool, defineConfigSection, duration, int, isLoopback, list, optionalStr, parseUrl, str } from '@app/common';
import { CLIENT_AUTH_METHODS, type ClientAuthMethod } from './identity-provider/client-authentication.js';
import type { OAuthModuleOptions } from './oauth.options.js';

/** `OAUTH_ID_JAG_ISSUERS=none`: the JWT-bearer grant (ID-JAG) is switched off. */
const NO_ASSERTION_ISSUERS = 'none';

/** An identity provider's address: https, or http on a loopback address or with `OAUTH_ALLOW_INSECURE_DEV`. */
function checkIssuer(key: string, raw: string, allowInsecureDev: boolean): void {
  const issuer = parseUrl(raw);
  const insecureAllowed = allowInsecureDev || (issuer?.protocol === 'http:' && isLoopback(issuer.hostname.replace(/^\[|\]$/g, '')));
  if (!issuer || (issuer.protocol !== 'https:' && !(issuer.protocol === 'http:' && insecureAllowed)))
    throw new ConfigError(key, `expected an https URL (http only for a loopback address or with OAUTH_ALLOW_INSECURE_DEV), got "${raw}"`);
}

/**
 * The identity provider users sign in at (the built-in authorization server's, `OAUTH_MODE=builtin`,
 * and the web console's), and the built-in authorization server's limits on clients.
 */
export const oauthConfig = defineConfigSection({
  keys: {
    /** The company's OpenID Connect issuer (its discovery document is at `/.well-known/openid-configuration` under it). */
    OIDC_ISSUER: optionalStr(),
    OIDC_CLIENT_ID: optionalStr(),
    OIDC_CLIENT_SECRET: optionalStr({ secret: true }),
    /** How the secret reaches the provider's token endpoint; unset, as its discovery document advertises (Basic when it lists it). */
    OIDC_CLIENT_AUTH_METHOD: optionalStr({ pattern: new RegExp(`^(${CLIENT_AUTH_METHODS.join('|')})$`), expected: CLIENT_AUTH_METHODS.join(' or ') }),
    /** Space-separated, as OAuth writes scopes. */
    OIDC_SCOPES: str('openid email profile', {
      pattern: /^[\x21\x23-\x5b\x5d-\x7e]+( [\x21\x23-\x5b\x5d-\x7e]+)*$/,
      expected: 'scope names separated by single spaces',
    }),
    /** The claim (a dotted path) of the ID token or userinfo whose values may make a user an admin: `roles`, `groups`, `realm_access.roles`. */
    OIDC_ROLES_CLAIM: optionalStr({ pattern: /^\S+$/, expected: 'a claim name' }),
    /** The values of `OIDC_ROLES_CLAIM` that make an admin (an Entra ID app role, a group's name or object id). */
    OIDC_ADMIN_ROLES: list([], { item: /^\S+$/, expected: 'role or group names without spaces' }),
    /** Domains whose addresses count as verified when the provider says nothing of it (Entra ID sends no `email_verified`). */
    OIDC_VERIFIED_EMAIL_DOMAINS: list([], { item: /^(?!-)[a-z0-9-]+(\.[a-z0-9-]+)+$/i, expected: 'domain names such as example.com' }),
    /** Issuers whose identity assertion grants (ID-JAG) `/token` takes; unset, `OIDC_ISSUER`; `none`, no one's. */
    OAUTH_ID_JAG_ISSUERS: list(),
    OAUTH_ALLOW_INSECURE_DEV: bool(false),
    OAUTH_REGISTRATIONS_PER_HOUR: int(20, { min: 1, max: 100_000 }),
    OAUTH_CLIENT_LIFETIME: duration(30 * 86400, { minSeconds: 3600, maxSeconds: 366 * 86400, unitRequired: true }),
  },
  validate: (values, env) => {
    if (values.OAUTH_ALLOW_INSECURE_DEV && env.NODE_ENV === 'production')
      throw new ConfigError('OAUTH_ALLOW_INSECURE_DEV', 'is refused when NODE_ENV=production: it lets sign-ins and client metadata travel over plain http');
    if (values.OIDC_CLIENT_AUTH_METHOD && !values.OIDC_CLIENT_SECRET)
      throw new ConfigError('OIDC_CLIENT_AUTH_METHOD', 'is how OIDC_CLIENT_SECRET is sent, and OIDC_CLIENT_SECRET is unset (a public client sends none)');
    if (values.OIDC_ROLES_CLAIM && !values.OIDC_ADMIN_ROLES.length)
      throw new ConfigError('OIDC_ADMIN_ROLES', 'required with OIDC_ROLES_CLAIM: the values of that claim that make an admin');
    if (values.OIDC_ADMIN_ROLES.length && !values.OIDC_ROLES_CLAIM)
      throw new ConfigError('OIDC_ROLES_CLAIM', 'required with OIDC_ADMIN_ROLES: the claim whose values they are');
    const assertionIssuers = values.OAUTH_ID_JAG_ISSUERS;
    if (assertionIssuers.includes(NO_ASSERTION_ISSUERS) && assertionIssuers.length > 1)
      throw new ConfigError('OAUTH_ID_JAG_ISSUERS', `"${NO_ASSERTION_ISSUERS}" switches the grant off and stands alone`);
    for (const issuer of assertionIssuers.filter((issuer) => issuer !== NO_ASSERTION_ISSUERS))
      checkIssuer('OAUTH_ID_JAG_ISSUERS', issuer, values.OAUTH_ALLOW_INSECURE_DEV);
    // The built-in authorization server signs users in at the provider; so does the web console whenever one is set.
    if (env.OAUTH_MODE !== 'builtin' && !values.OIDC_ISSUER) return;
    if (!values.OIDC_ISSUER) throw new ConfigError('OIDC_ISSUER', 'required with OAUTH_MODE=builtin: the identity provider users sign in at');
    const reason = env.OAUTH_MODE === 'builtin' ? 'with OAUTH_MODE=builtin' : 'with OIDC_ISSUER';
    if (!values.OIDC_CLIENT_ID) throw new ConfigError('OIDC_CLIENT_ID', `required ${reason}: this server’s client id at the identity provider`);
    checkIssuer('OIDC_ISSUER', values.OIDC_ISSUER, values.OAUTH_ALLOW_INSECURE_DEV);
    if (!values.OIDC_SCOPES.split(' ').includes('openid')) throw new ConfigError('OIDC_SCOPES', 'must include openid: the sign-in reads the ID token');
  },
  toOptions: (values): OAuthModuleOptions => ({
    identityProvider: {
      issuer: values.OIDC_ISSUER ?? '',
      clientId: values.OIDC_CLIENT_ID ?? '',
      clientSecret: values.OIDC_CLIENT_SECRET,
      ...(values.OIDC_CLIENT_AUTH_METHOD ? { clientAuthMethod: values.OIDC_CLIENT_AUTH_METHOD as ClientAuthMethod } : {}),
      scopes: values.OIDC_SCOPES.split(' '),
      ...(values.OIDC_ROLES_CLAIM ? { rolesClaim: values.OIDC_ROLES_CLAIM, adminRoles: values.OIDC_ADMIN_ROLES } : {}),
      verifiedEmailDomains: values.OIDC_VERIFIED_EMAIL_DOMAINS.map((domain) => domain.toLowerCase()),
    },
    assertionIssuers: values.OAUTH_ID_JAG_ISSUERS.includes(NO_ASSERTION_ISSUERS)
      ? []
      : values.OAUTH_ID_JAG_ISSUERS.length
        ? values.OAUTH_ID_JAG_ISSUERS
        : values.OIDC_ISSUER
          ? [values.OIDC_ISSUER]
          : [],
    allowInsecureDev: values.OAUTH_ALLOW_INSECURE_DEV,
    registrationsPerHour: values.OAUTH_REGISTRATIONS_PER_HOUR,
    clientLifetimeSeconds: values.OAUTH_CLIENT_LIFETIME,
  }),
});
