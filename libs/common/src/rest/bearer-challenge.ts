/** The RFC 9728 metadata address of the server at `publicBaseUrl`. */
export const resourceMetadataUrl = (publicBaseUrl: string) => `${publicBaseUrl}/.well-known/oauth-protected-resource`;

/** What a challenge says beyond the metadata address: the RFC 6750 error, and the scopes a token needs. */
export interface ChallengeDetail {
  error?: 'insufficient_scope';
  scopes?: readonly string[];
}

/**
 * The `WWW-Authenticate` value of every 401 the server sends (REST and `/mcp`), and of a 403 for
 * missing scopes: it names the RFC 9728 metadata address, so OAuth-capable clients find where to
 * log in, and the scopes to ask for (scope tokens hold no `"` or `\\`, so they need no escaping).
 */
export function bearerChallenge(metadataUrl?: string, detail: ChallengeDetail = {}): string {
  const parameters = [
    ...(detail.error ? [`error="${detail.error}"`] : []),
    ...(detail.scopes?.length ? [`scope="${detail.scopes.join(' ')}"`] : []),
    ...(metadataUrl ? [`resource_metadata="${metadataUrl}"`] : []),
  ];
  return parameters.length ? `Bearer ${parameters.join(', ')}` : 'Bearer';
}

/** The one wording of a missing credential, on REST and on `/mcp` (HTTP 401 and tool result alike). */
export const AUTHENTICATION_REQUIRED = 'Authentication required: send Authorization: Bearer <JWT or MCP secret>';
