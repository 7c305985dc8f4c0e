import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { exportJWK, generateKeyPair, SignJWT, type JWTPayload } from 'jose';
import Provider, { errors, type AccountClaims, type ClientMetadata, type Configuration } from 'oidc-provider';
import { HeadlessBrowser } from './headless-browser.js';
import { issueIdJag, TOKEN_EXCHANGE_GRANT, TOKEN_EXCHANGE_PARAMETERS } from './identity-assertions.js';

/**
 * How the provider behaves:
 * - `certified`: `oidc-provider` as it comes, with its development login form (any login, any
 *   password) and consent page, for Chromium; `<login>@example.com` is a verified address.
 * - `entra`: like Microsoft Entra ID: the client id is a GUID (the ID token's `aud`), the `sub` is
 *   opaque, people are named by `preferred_username` (their UPN), `email` comes without
 *   `email_verified` (or not at all), app roles come in `roles` and groups as object ids in
 *   `groups`, all in the ID token; a `resource` parameter is refused (AADSTS9010010); refresh
 *   tokens rotate.
 * - `okta`: like Okta (and Keycloak): a thin ID token, the profile (a verified address, the name,
 *   `groups` by name, for the `groups` scope) from userinfo.
 * Each but `certified` signs people in without a form (`signInAs` says who), unless `headless`
 * says otherwise; `certified` can be made headless too.
 */
export type ProviderProfile = 'certified' | 'entra' | 'okta';

/** What the provider knows of a person; changed at any time with `account()`. */
export interface TestAccount {
  /** Null: the provider sends no address. */
  email?: string | null;
  roles?: string[];
  groups?: string[];
  /** Closed at the provider: no more sign-ins, refreshes or grants. */
  disabled?: boolean;
}

/** A client at the provider acting for an agent: it signs people in, and exchanges their ID tokens for ID-JAGs (RFC 8693). */
export interface AgentClient {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
}

/** The ways a client may send its secret to the token endpoint that the tests tell apart. */
export type SecretAuthMethod = 'client_secret_basic' | 'client_secret_post';

export interface StartOptions {
  profile?: ProviderProfile;
  headless?: boolean;
  /** The only client authentication methods the provider advertises (`token_endpoint_auth_methods_supported`); its clients are registered with the first. Unset: oidc-provider's (Basic, post, JWTs, none). */
  clientAuthMethods?: SecretAuthMethod[];
}

/** The settings the app needs to sign users in at this provider (its `OIDC_*` keys). */
export interface TestIdentityProvider {
  env: { OIDC_ISSUER: string; OIDC_CLIENT_ID: string; OIDC_CLIENT_SECRET: string };
  issuer: string;
  /** Registers the app's callbacks (known once the app listens) and starts answering. */
  admit(...callbackUrls: string[]): void;
  /** Headless: who the next sign-in is. */
  signInAs(login: string): void;
  /** Changes what the provider says of a person from now on (their next sign-in, refresh or grant). */
  account(login: string, changes: TestAccount): void;
  /** The `sub` the provider gives `login`. */
  subjectOf(login: string): string;
  /** The agent's client at the provider, and which client id at the MCP server its ID-JAGs name. */
  agent: AgentClient;
  mapAgentTo(resourceClientId: string): void;
  /** Signs the agent's user in (headless) and returns the ID token the agent holds. */
  agentIdToken(login: string): Promise<string>;
  /** Signs any JWT with the provider's key, as a provider that issues what it should not would. */
  sign(claims: JWTPayload, header?: { typ?: string }): Promise<string>;
  /** Set, the userinfo endpoint fails (500). */
  failUserinfo: boolean;
  /** Set, every endpoint answers 503: the provider is down. */
  down: boolean;
  /** The query of every authorization request it received. */
  authorizationRequests: URLSearchParams[];
  /** How each request to the token endpoint sent the client's secret (`none`: it sent none). */
  tokenRequestAuthentications: (SecretAuthMethod | 'none')[];
  close(): Promise<void>;
}

const TENANT = '72f988bf-86f1-41af-91ab-2d7cd011db47';
const AGENT: AgentClient = {
  clientId: 'agent-app',
  clientSecret: 'a-secret-of-the-agent-at-the-identity-provider',
  redirectUri: 'http://127.0.0.1:43118/agent-callback',
};

const guidFor = (text: string) => {
  const hex = createHash('sha256').update(text).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
};

/** The claims each profile gives a person, from what `account()` set. */
function claimsOf(profile: ProviderProfile, login: string, subject: string, account: TestAccount): Record<string, unknown> {
  if (profile === 'entra') {
    const upn = `${login}@contoso.example`;
    const email = account.email === undefined ? upn : account.email;
    return {
      sub: subject,
      oid: guidFor(`oid:${login}`),
      tid: TENANT,
      preferred_username: upn,
      name: `User ${login}`,
      ...(email !== null ? { email } : {}),
      roles: account.roles ?? [],
      groups: account.groups ?? [],
    };
  }
  if (profile === 'okta') {
    const email = account.email === undefined ? `${login}@okta.example` : account.email;
    return { sub: subject, ...(email !== null ? { email, email_verified: true } : {}), name: `User ${login}`, groups: account.groups ?? ['Everyone'] };
  }
  return { sub: subject, email: account.email ?? `${login}@example.com`, email_verified: true, name: `User ${login}` };
}

const PROFILE_SETTINGS: Record<
  ProviderProfile,
  { clientId: string; claims: Configuration['claims']; conformIdTokenClaims: boolean; subject: (login: string) => string }
> = {
  certified: {
    clientId: 'mirobody',
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    conformIdTokenClaims: true,
    subject: (login) => login,
  },
  entra: {
    clientId: guidFor('mirobody-app-registration'),
    claims: { openid: ['sub', 'oid', 'tid', 'roles', 'groups', 'preferred_username'], email: ['email'], profile: ['name'] },
    conformIdTokenClaims: false,
    subject: (login) => createHash('sha256').update(`pairwise:${login}`).digest('base64url').slice(0, 43),
  },
  okta: {
    clientId: '0oa1mirobody',
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'], groups: ['groups'] },
    conformIdTokenClaims: true,
    subject: (login) => `00u${createHash('sha256').update(login).digest('hex').slice(0, 17)}`,
  },
};

/**
 * A real OpenID Connect provider (`oidc-provider`, a certified implementation) on a loopback port,
 * standing in for a company's, configured as the `profile` says. It also issues identity assertion
 * grants (ID-JAG) to its agent client by token exchange, with its own keys.
 */
export async function startIdentityProvider(options: StartOptions = {}): Promise<TestIdentityProvider> {
  const profile = options.profile ?? 'certified';
  const headless = options.headless ?? profile !== 'certified';
  const settings = PROFILE_SETTINGS[profile];
  let handler: (request: IncomingMessage, response: ServerResponse) => unknown = (_request, response) => void response.writeHead(503).end();
  const server: Server = createServer((request, response) => void handler(request, response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const client = { OIDC_ISSUER: issuer, OIDC_CLIENT_ID: settings.clientId, OIDC_CLIENT_SECRET: 'a-client-secret-of-the-test-identity-provider' };
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const signingJwk = { ...(await exportJWK(privateKey)), kid: `${profile}-key`, alg: 'RS256', use: 'sig' };
  const accounts = new Map<string, TestAccount>();
  const loginsBySubject = new Map<string, string>();
  const subjectOf = (login: string) => {
    const subject = settings.subject(login);
    loginsBySubject.set(subject, login);
    return subject;
  };
  let nextLogin: string | undefined;
  let resourceClientId: string | undefined;
  const sign = (claims: JWTPayload, header: { typ?: string } = {}) =>
    new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: signingJwk.kid, typ: header.typ ?? 'JWT' }).sign(privateKey);

  const idp: TestIdentityProvider = {
    env: client,
    issuer,
    agent: AGENT,
    failUserinfo: false,
    down: false,
    authorizationRequests: [],
    tokenRequestAuthentications: [],
    signInAs: (login) => void (nextLogin = login),
    account: (login, changes) => void accounts.set(login, { ...accounts.get(login), ...changes }),
    subjectOf,
    mapAgentTo: (id) => void (resourceClientId = id),
    sign,
    agentIdToken: (login) => agentIdToken(idp, login),
    admit(...callbackUrls) {
      const clients: ClientMetadata[] = [
        {
          client_id: client.OIDC_CLIENT_ID,
          client_secret: client.OIDC_CLIENT_SECRET,
          redirect_uris: callbackUrls,
          response_types: ['code'],
          grant_types: ['authorization_code', 'refresh_token'],
          ...(options.clientAuthMethods ? { token_endpoint_auth_method: options.clientAuthMethods[0] } : {}),
        },
        {
          client_id: AGENT.clientId,
          client_secret: AGENT.clientSecret,
          redirect_uris: [AGENT.redirectUri],
          response_types: ['code'],
          grant_types: ['authorization_code', TOKEN_EXCHANGE_GRANT],
          ...(options.clientAuthMethods ? { token_endpoint_auth_method: options.clientAuthMethods[0] } : {}),
        },
      ];
      const provider = new Provider(issuer, {
        clients,
        jwks: { keys: [signingJwk] },
        claims: settings.claims,
        conformIdTokenClaims: settings.conformIdTokenClaims,
        scopes: ['openid', 'offline_access', 'email', 'profile', 'groups'],
        // Entra ID, Okta and Keycloak give a refresh token without `prompt=consent`; oidc-provider asks for it by default.
        issueRefreshToken: (_ctx, refreshClient) => refreshClient.grantTypeAllowed('refresh_token'),
        rotateRefreshToken: profile === 'entra',
        findAccount: (_ctx, subject) => {
          const login = loginsBySubject.get(subject) ?? subject;
          const account = accounts.get(login) ?? {};
          if (account.disabled) return undefined;
          return { accountId: subject, claims: () => claimsOf(profile, login, subject, account) as AccountClaims };
        },
        features: {
          devInteractions: { enabled: !headless },
          ...(profile === 'entra'
            ? {
                resourceIndicators: {
                  enabled: true,
                  defaultResource: () => undefined as unknown as string,
                  getResourceServerInfo: () => {
                    throw new errors.InvalidTarget("AADSTS9010010: The resource parameter provided in the request doesn't match with the requested scopes.");
                  },
                },
              }
            : {}),
        },
        ...(options.clientAuthMethods ? { clientAuthMethods: options.clientAuthMethods } : {}),
        cookies: { keys: ['a-cookie-key-of-the-test-identity-provider'] },
        // Set, so that oidc-provider does not print a notice for each default.
        ttl: {
          AccessToken: 3600,
          AuthorizationCode: 60,
          ClientCredentials: 600,
          Grant: 86_400,
          IdToken: 3600,
          Interaction: 600,
          RefreshToken: 86_400,
          Session: 86_400,
        },
      });
      provider.registerGrantType(
        TOKEN_EXCHANGE_GRANT,
        (ctx) =>
          issueIdJag(ctx, {
            issuer,
            verifyKey: publicKey,
            sign,
            resourceClientId: () => resourceClientId,
            accountOf: (subject) => {
              const login = loginsBySubject.get(subject) ?? subject;
              const account = accounts.get(login) ?? {};
              return account.disabled ? undefined : claimsOf(profile, login, subject, account);
            },
          }),
        TOKEN_EXCHANGE_PARAMETERS,
      );
      // oidc-provider takes a secret either way whatever the client's registered method: the tests read which way it came.
      provider.use(async (ctx, next) => {
        await next();
        if (ctx.path !== '/token') return;
        const { authorization } = ctx.headers;
        const params = (ctx as { oidc?: { params?: Record<string, unknown> } }).oidc?.params;
        idp.tokenRequestAuthentications.push(
          authorization?.startsWith('Basic ') ? 'client_secret_basic' : params?.['client_secret'] ? 'client_secret_post' : 'none',
        );
      });
      const callback = provider.callback();
      handler = async (request, response) => {
        const url = new URL(request.url!, issuer);
        if (url.pathname === '/auth') idp.authorizationRequests.push(url.searchParams);
        if (idp.down) return void response.writeHead(503).end('down for maintenance');
        if (idp.failUserinfo && url.pathname === '/me') return void response.writeHead(500).end('userinfo is down');
        if (headless && url.pathname.startsWith('/interaction/')) return finishInteraction(provider, request, response, () => nextLogin, subjectOf);
        return callback(request, response);
      };
    },
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return idp;
}

/** A headless sign-in's interaction: the login `signInAs` named, then consent to whatever was asked. */
async function finishInteraction(
  provider: Provider,
  request: IncomingMessage,
  response: ServerResponse,
  login: () => string | undefined,
  subjectOf: (login: string) => string,
): Promise<void> {
  const details = await provider.interactionDetails(request, response);
  if (details.prompt.name === 'login') {
    const who = login();
    if (!who) return void response.writeHead(400).end('signInAs() was not called');
    return provider.interactionFinished(request, response, { login: { accountId: subjectOf(who) } }, { mergeWithLastSubmission: false });
  }
  const grant = new provider.Grant({ accountId: details.session!.accountId, clientId: String(details.params.client_id) });
  const missing = details.prompt.details as { missingOIDCScope?: string[]; missingOIDCClaims?: string[] };
  if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
  if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
  return provider.interactionFinished(request, response, { consent: { grantId: await grant.save() } }, { mergeWithLastSubmission: true });
}

/** The agent's own sign-in at the provider (code flow, headless), for the ID token it then exchanges for ID-JAGs. */
async function agentIdToken(idp: TestIdentityProvider, login: string): Promise<string> {
  idp.signInAs(login);
  const browser = new HeadlessBrowser();
  const authorize = new URL('/auth', idp.issuer);
  authorize.search = new URLSearchParams({
    client_id: idp.agent.clientId,
    response_type: 'code',
    scope: 'openid email profile',
    redirect_uri: idp.agent.redirectUri,
    state: randomUUID(),
    nonce: randomUUID(),
  }).toString();
  const reached = await browser.follow(authorize, (url) => url.href.startsWith(idp.agent.redirectUri));
  const code = reached.url.searchParams.get('code');
  if (!code) throw new Error(`The agent's sign-in stopped at ${reached.url.href}`);
  const response = await fetch(new URL('/token', idp.issuer), {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${idp.agent.clientId}:${idp.agent.clientSecret}`).toString('base64')}`,
    },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: idp.agent.redirectUri }).toString(),
  });
  const tokens = (await response.json()) as { id_token?: string; error_description?: string };
  if (!tokens.id_token) throw new Error(`The agent got no ID token: ${JSON.stringify(tokens)}`);
  return tokens.id_token;
}
