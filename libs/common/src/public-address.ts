/** The parts of a request its own address is read from: the Host header and the connection (a Fastify request has both). */
export interface RequestAddress {
  headers: { host?: string };
  raw: { socket: object };
}

/**
 * The address a request came to: its `Host` header, over https when the connection itself is TLS.
 * Never `X-Forwarded-Host` nor `X-Forwarded-Proto`, even from a proxy trusted for the client's
 * address (`TRUST_PROXY`): most proxies pass on a client's own, and an address built from them
 * would send other users' clients (OAuth metadata, links) wherever that client chose.
 */
export function requestOrigin(request: RequestAddress): string {
  const encrypted = 'encrypted' in request.raw.socket && request.raw.socket.encrypted === true;
  return `${encrypted ? 'https' : 'http'}://${request.headers.host ?? ''}`;
}

/**
 * Where clients reach this server, for the absolute links it answers with (OAuth metadata, FHIR
 * `Location` and paging links): `PUBLIC_BASE_URL` when it is configured, since a proxy in front may
 * change the scheme and the host; otherwise the address the request came to (`requestOrigin`), so
 * that `localhost` and `127.0.0.1` both get links that work for them.
 */
export class PublicAddress {
  constructor(private readonly configuredBaseUrl?: string) {}

  baseUrlFor(request: RequestAddress): string {
    return this.configuredBaseUrl ?? requestOrigin(request);
  }
}
