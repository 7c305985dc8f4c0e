import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash, randomBytes } from 'node:crypto';
import { getRepositoryToken } from '@nestjs/typeorm';
import { decodeJwt } from 'jose';
import type { Repository } from 'typeorm';
import { AccountStatus, ConnectionsService, InvalidGrantError } from '@app/auth';
import { HeadlessBrowser } from '../../../../apps/server/test/support/headless-browser.js';
import { startIdentityProvider, type TestIdentityProvider } from '../../../../apps/server/test/support/identity-provider.js';
import { startServices, type RunningServices } from '../../../../apps/server/test/support/service-module.js';
import type { OAuthClient } from '../clients/client-metadata.js';
import { ClientsService } from '../clients/clients.service.js';
import { OAuthModule } from '../oauth.module.js';
import { AuthorizationRequestEntity } from './authorization-request.entity.js';
import { AuthorizationService, type OAuthParameters } from './authorization.service.js';
import { OAuthError, SignInPageError } from './oauth-error.js';

/** This server as a client reached it; nothing listens there: the browser's arrival at its callback is caught. */
const SERVER = { issuer: 'http://mirobody.test', resource: 'http://mirobody.test/mcp' };
const REDIRECT = 'http://127.0.0.1:43117/callback';

let idp: TestIdentityProvider;
let services: RunningServices;
let authorization: AuthorizationService;
let client: OAuthClient;

beforeAll(async () => {
  idp = await startIdentityProvider({ headless: true });
  idp.admit(`${SERVER.issuer}/oauth/callback`);
  services = await startServices({ OAUTH_MODE: 'builtin', OAUTH_ALLOW_INSECURE_DEV: 'true', ...idp.env }, [OAuthModule.register()]);
  authorization = services.context.get(AuthorizationService);
  const clients = services.context.get(ClientsService);
  const registered = await clients.register({
    clientName: 'Spec client',
    clientUri: null,
    redirectUris: [REDIRECT],
    authMethod: 'none',
    grantTypes: ['authorization_code'],
  });
  client = await clients.find(registered.client_id);
}, 60_000);

afterAll(async () => {
  await services?.close();
  await idp?.close();
});

const pkce = () => {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
};

const request = (extra: OAuthParameters = {}): OAuthParameters => ({
  response_type: 'code',
  client_id: client.id,
  redirect_uri: REDIRECT,
  code_challenge: pkce().challenge,
  code_challenge_method: 'S256',
  state: 'st4te',
  ...extra,
});

/** `/authorize`, then the person signs in at the provider: the callback URL and the browser's binding cookie. */
async function signedIn(login: string, params: OAuthParameters) {
  const start = await authorization.begin(params, SERVER);
  idp.signInAs(login);
  const reached = await new HeadlessBrowser().follow(start.providerUrl, (url) => url.pathname === '/oauth/callback' && url.origin === SERVER.issuer);
  return { callbackUrl: reached.url, cookies: { [start.binding.name]: start.binding.value } };
}

/** A code the person allowed, with its verifier. */
async function allowedCode(login: string): Promise<{ code: string; verifier: string }> {
  const { verifier, challenge } = pkce();
  const { callbackUrl, cookies } = await signedIn(login, request({ code_challenge: challenge }));
  const view = await authorization.completeSignIn(callbackUrl, cookies);
  const target = new URL(await authorization.decide({ request: view.requestId, consent_token: view.consentToken, decision: 'allow' }, cookies));
  expect([target.searchParams.get('state'), target.searchParams.get('iss')]).toEqual(['st4te', SERVER.issuer]);
  return { code: target.searchParams.get('code')!, verifier };
}

const refusedWith = async (step: Promise<unknown>) => {
  const error = (await step.then(
    () => undefined,
    (thrown: unknown) => thrown,
  )) as OAuthError | undefined;
  return error && { code: error.code, description: error.message, redirectedTo: error.redirect?.redirectUri };
};

describe('AuthorizationService: PKCE', () => {
  it('requires a code challenge, and S256: a missing one, or plain, goes back to the client as invalid_request', async () => {
    expect(await refusedWith(authorization.begin(request({ code_challenge: undefined }), SERVER))).toEqual({
      code: 'invalid_request',
      description: 'code_challenge is required (PKCE)',
      redirectedTo: REDIRECT,
    });
    expect(await refusedWith(authorization.begin(request({ code_challenge_method: 'plain' }), SERVER))).toEqual({
      code: 'invalid_request',
      description: 'code_challenge_method must be S256',
      redirectedTo: REDIRECT,
    });
    expect(await refusedWith(authorization.begin(request({ code_challenge: 'too-short' }), SERVER))).toEqual(
      expect.objectContaining({ code: 'invalid_request' }),
    );
  });

  it('a wrong verifier is refused and leaves the code good for its client; the right one gets the tokens', async () => {
    const { code, verifier } = await allowedCode('pia');
    expect(await refusedWith(authorization.exchangeCode({ code, code_verifier: pkce().verifier }, client))).toEqual({
      code: 'invalid_grant',
      description: 'code_verifier does not match the code_challenge (PKCE)',
      redirectedTo: undefined,
    });
    expect(await refusedWith(authorization.exchangeCode({ code }, client))).toEqual(expect.objectContaining({ code: 'invalid_request' }));
    const tokens = await authorization.exchangeCode({ code, code_verifier: verifier, redirect_uri: REDIRECT }, client);
    expect(tokens).toEqual(expect.objectContaining({ token_type: 'Bearer', refresh_token: expect.stringMatching(/^mrb_rt_/) }));
  });
});

describe('AuthorizationService: the code exchange', () => {
  it('records the connection the code opened, the one its tokens stand on', async () => {
    const { code, verifier } = await allowedCode('quin');
    const tokens = await authorization.exchangeCode({ code, code_verifier: verifier }, client);
    const rows = services.context.get<Repository<AuthorizationRequestEntity>>(getRepositoryToken(AuthorizationRequestEntity), { strict: false });
    const row = await rows.findOneByOrFail({ codeHash: createHash('sha256').update(code).digest('hex') });
    expect(row.connectionId).toBe(decodeJwt(tokens.access_token).cid);
  });

  it('a code used twice is refused, and the connection it opened is revoked', async () => {
    const { code, verifier } = await allowedCode('rae');
    const tokens = await authorization.exchangeCode({ code, code_verifier: verifier }, client);
    expect(await refusedWith(authorization.exchangeCode({ code, code_verifier: verifier }, client))).toEqual(
      expect.objectContaining({ code: 'invalid_grant', description: 'The code was used before: the tokens it gave are revoked' }),
    );
    await expect(services.context.get(ConnectionsService).callerFor(tokens.access_token, SERVER.issuer, SERVER.resource)).rejects.toThrow('revoked');
  });

  it('a code for another client, or for another resource, is refused', async () => {
    const { code, verifier } = await allowedCode('sol');
    expect(await refusedWith(authorization.exchangeCode({ code, code_verifier: verifier }, { ...client, id: 'mrb_client_someone_else' }))).toEqual(
      expect.objectContaining({ code: 'invalid_grant', description: 'The code is not valid for this client' }),
    );
    expect(await refusedWith(authorization.exchangeCode({ code, code_verifier: verifier, resource: 'https://elsewhere.example.com/mcp' }, client))).toEqual(
      expect.objectContaining({ code: 'invalid_target' }),
    );
  });

  it('a code approved before the account was disabled opens no connection after', async () => {
    const { code, verifier } = await allowedCode('ty');
    const { userId } = (await services.context
      .get<Repository<AuthorizationRequestEntity>>(getRepositoryToken(AuthorizationRequestEntity), { strict: false })
      .findOneByOrFail({ codeHash: createHash('sha256').update(code).digest('hex') })) as { userId: string };
    await services.context.get(AccountStatus).setDisabled(userId, true);
    await expect(authorization.exchangeCode({ code, code_verifier: verifier }, client)).rejects.toThrow(InvalidGrantError);
  });
});

describe('AuthorizationService: the browser', () => {
  it('finishes a sign-in only in the browser that began it, and only once', async () => {
    const { callbackUrl, cookies } = await signedIn('uli', request());
    await expect(authorization.completeSignIn(callbackUrl, {})).rejects.toThrow('This sign-in was started in another browser');
    const view = await authorization.completeSignIn(callbackUrl, cookies);
    expect(view).toEqual(expect.objectContaining({ clientName: 'Spec client', account: 'uli@example.com', clientVerified: false }));
    await expect(authorization.completeSignIn(callbackUrl, cookies)).rejects.toThrow(SignInPageError);
    await expect(authorization.decide({ request: view.requestId, consent_token: 'guessed', decision: 'allow' }, cookies)).rejects.toThrow(
      'This answer did not come from the consent page this server showed you.',
    );
  });
});
