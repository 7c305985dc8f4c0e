import { afterEach, describe, expect, it } from '@jest/globals';
import { startIdentityProvider, type StartOptions, type TestIdentityProvider } from './support/identity-provider.js';
import { callTool, connectedTokens, register, startBuiltinApp } from './support/oauth-client.js';
import type { RunningApp } from './support/test-app.js';

/**
 * How `OIDC_CLIENT_SECRET` reaches the identity provider's token endpoint (a real `oidc-provider`):
 * `OIDC_CLIENT_AUTH_METHOD` when set, otherwise as the provider's discovery document advertises.
 */
describe('the client secret at the identity provider (OIDC_CLIENT_AUTH_METHOD)', () => {
  let idp: TestIdentityProvider | undefined;
  let running: RunningApp | undefined;

  afterEach(async () => {
    await running?.close();
    await idp?.close();
  });

  /** Signs a user in through the built-in authorization server; answers how the app sent its secret at the provider. */
  async function signInWith(provider: StartOptions, env: Record<string, string> = {}) {
    idp = await startIdentityProvider({ headless: true, ...provider });
    running = await startBuiltinApp(idp, env);
    const tokens = await connectedTokens(running, idp, (await register(running)).client_id, 'ann');
    expect((await callTool(running, tokens.access_token, 'whoami')).result).toEqual(expect.objectContaining({ authenticated: true }));
    return idp.tokenRequestAuthentications;
  }

  it('uses HTTP Basic, unset, at a provider that advertises it (with others)', async () => {
    expect(await signInWith({})).toEqual(['client_secret_basic']);
  });

  it('uses the form body, unset, at a provider that advertises only that', async () => {
    expect(await signInWith({ clientAuthMethods: ['client_secret_post'] })).toEqual(['client_secret_post']);
  });

  it('uses the method set, whatever the provider advertises', async () => {
    expect(await signInWith({}, { OIDC_CLIENT_AUTH_METHOD: 'client_secret_post' })).toEqual(['client_secret_post']);
    await running?.close();
    await idp?.close();
    expect(await signInWith({ clientAuthMethods: ['client_secret_post', 'client_secret_basic'] }, { OIDC_CLIENT_AUTH_METHOD: 'client_secret_basic' })).toEqual([
      'client_secret_basic',
    ]);
  });
});
