/** The parts of a request its address is read from (Fastify's, behind `trustProxy` where set). */
export interface RequestAddress {
  protocol: string;
  host: string;
}

/**
 * Where clients reach this server, for the absolute links it answers with (OAuth metadata, FHIR
 * `Location` and paging links): `PUBLIC_BASE_URL` when it is configured, since a proxy in front may
 * change the scheme and the host; otherwise the address the request came to, so that `localhost`
 * and `127.0.0.1` both get links that work for them.
 */
export class PublicAddress {
  constructor(private readonly configuredBaseUrl?: string) {}

  baseUrlFor(request: RequestAddress): string {
    return this.configuredBaseUrl ?? `${request.protocol}://${request.host}`;
  }
}
