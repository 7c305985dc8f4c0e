import { randomUUID } from 'node:crypto';
import { jwtVerify, type JWTPayload, type KeyObject } from 'jose';
import { errors, type TokenEndpointGrantContext } from 'oidc-provider';

/** RFC 8693, and the token types of draft-ietf-oauth-identity-assertion-authz-grant. */
export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
export const TOKEN_EXCHANGE_PARAMETERS = ['subject_token', 'subject_token_type', 'requested_token_type', 'audience', 'resource', 'scope'];
const ID_JAG_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:id-jag';
const ID_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:id_token';
export const ID_JAG_SECONDS = 300;

export interface IdJagIssuer {
  issuer: string;
  /** The provider's own key: the subject token must be an ID token it signed. */
  verifyKey: KeyObject | CryptoKey;
  sign(claims: JWTPayload, header: { typ: string }): Promise<string>;
  /** The agent's client id at the MCP server, which the ID-JAG names; undefined until the test registered it there. */
  resourceClientId(): string | undefined;
  /** The person's claims now, undefined when the account is closed. */
  accountOf(subject: string): Record<string, unknown> | undefined;
}

/**
 * The identity provider's side of enterprise-managed authorization: a token exchange (RFC 8693) of
 * an ID token it issued to the authenticated client for an ID-JAG (`typ` oauth-id-jag+jwt) naming
 * the resource's authorization server (`audience`), its resource and scopes, and the client's id
 * there, signed with the provider's key, five minutes long.
 */
export async function issueIdJag(ctx: TokenEndpointGrantContext, provider: IdJagIssuer): Promise<void> {
  const params = ctx.oidc.params as Record<string, string | undefined>;
  if (params.requested_token_type !== ID_JAG_TOKEN_TYPE) throw new errors.InvalidRequest(`requested_token_type must be ${ID_JAG_TOKEN_TYPE}`);
  if (params.subject_token_type !== ID_TOKEN_TYPE) throw new errors.InvalidRequest(`subject_token_type must be ${ID_TOKEN_TYPE}`);
  if (!params.subject_token || !params.audience) throw new errors.InvalidRequest('subject_token and audience are required');
  let subject: JWTPayload;
  try {
    ({ payload: subject } = await jwtVerify(params.subject_token, provider.verifyKey, { issuer: provider.issuer, audience: ctx.oidc.client.clientId }));
  } catch (error) {
    throw new errors.InvalidGrant(`subject_token: ${(error as Error).message}`);
  }
  const clientId = provider.resourceClientId();
  if (!clientId) throw new errors.InvalidGrant('this client has no client id at that audience');
  const claims = provider.accountOf(subject.sub!);
  if (!claims) throw new errors.InvalidGrant('the account is closed');
  const now = Math.floor(Date.now() / 1000);
  const assertion = await provider.sign(
    {
      iss: provider.issuer,
      sub: subject.sub,
      aud: params.audience,
      client_id: clientId,
      jti: randomUUID(),
      iat: now,
      exp: now + ID_JAG_SECONDS,
      ...(params.resource ? { resource: params.resource } : {}),
      ...(params.scope ? { scope: params.scope } : {}),
      ...(typeof claims.email === 'string' ? { email: claims.email } : {}),
      ...('email_verified' in claims ? { email_verified: claims.email_verified } : {}),
    },
    { typ: 'oauth-id-jag+jwt' },
  );
  ctx.body = {
    issued_token_type: ID_JAG_TOKEN_TYPE,
    access_token: assertion,
    token_type: 'N_A',
    expires_in: ID_JAG_SECONDS,
    ...(params.scope ? { scope: params.scope } : {}),
  };
}
