import { createServer, type Server } from 'node:http';
import Provider from 'oidc-provider';

/** The settings the app needs to sign users in at this provider (its `OIDC_*` keys). */
export interface TestIdentityProvider {
  env: { OIDC_ISSUER: string; OIDC_CLIENT_ID: string; OIDC_CLIENT_SECRET: string };
  /** Registers the app's callback (known once the app listens) and starts answering. */
  admit(callbackUrl: string): void;
  close(): Promise<void>;
}

/**
 * A real OpenID Connect provider (`oidc-provider`, a certified implementation) on a loopback port,
 * standing in for a company's: its development login form takes any login (the account's id, with
 * `<login>@example.com` as a verified e-mail address) and any password, then asks for consent.
 */
export async function startIdentityProvider(): Promise<TestIdentityProvider> {
  let handler: Parameters<typeof createServer>[1] = (_request, response) => void response.writeHead(503).end();
  const server: Server = createServer((request, response) => handler!(request, response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const client = { OIDC_ISSUER: issuer, OIDC_CLIENT_ID: 'mirobody', OIDC_CLIENT_SECRET: 'a-client-secret-of-the-test-identity-provider' };
  return {
    env: client,
    admit(callbackUrl) {
      const provider = new Provider(issuer, {
        clients: [
          {
            client_id: client.OIDC_CLIENT_ID,
            client_secret: client.OIDC_CLIENT_SECRET,
            redirect_uris: [callbackUrl],
            response_types: ['code'],
            grant_types: ['authorization_code'],
          },
        ],
        claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
        findAccount: (_context, id) => ({
          accountId: id,
          claims: () => ({ sub: id, email: `${id}@example.com`, email_verified: true, name: `User ${id}` }),
        }),
        cookies: { keys: ['a-cookie-key-of-the-test-identity-provider'] },
      });
      handler = provider.callback();
    },
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
