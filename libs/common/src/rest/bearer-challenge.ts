/** The RFC 9728 metadata address of the server at `publicBaseUrl`. */
export const resourceMetadataUrl = (publicBaseUrl: string) => `${publicBaseUrl}/.well-known/oauth-protected-resource`;

/**
 * The `WWW-Authenticate` value of every 401 the server sends (REST and `/mcp`): it names the
 * RFC 9728 metadata address, so OAuth-capable clients find where to log in.
 */
export const bearerChallenge = (metadataUrl?: string) => (metadataUrl ? `Bearer resource_metadata="${metadataUrl}"` : 'Bearer');

/** The one wording of a missing credential, on REST and on `/mcp` (HTTP 401 and tool result alike). */
export const AUTHENTICATION_REQUIRED = 'Authentication required: send Authorization: Bearer <JWT or MCP secret>';
