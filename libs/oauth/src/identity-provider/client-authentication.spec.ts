import { describe, expect, it } from '@jest/globals';
import { clientAuthMethod } from './client-authentication.js';

describe('the client authentication at the identity provider', () => {
  it('is OIDC_CLIENT_AUTH_METHOD when set, whatever the provider advertises', () => {
    expect(clientAuthMethod('client_secret_post', ['client_secret_basic'])).toBe('client_secret_post');
    expect(clientAuthMethod('client_secret_basic', ['client_secret_post'])).toBe('client_secret_basic');
  });

  it('is otherwise Basic where the provider lists it or lists nothing, and the form body where it lists only that', () => {
    expect(clientAuthMethod(undefined, undefined)).toBe('client_secret_basic');
    expect(clientAuthMethod(undefined, ['client_secret_post', 'client_secret_basic', 'private_key_jwt'])).toBe('client_secret_basic');
    expect(clientAuthMethod(undefined, ['private_key_jwt', 'client_secret_post'])).toBe('client_secret_post');
    expect(clientAuthMethod(undefined, ['private_key_jwt'])).toBe('client_secret_basic');
  });
});
