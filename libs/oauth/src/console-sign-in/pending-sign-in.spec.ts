import { describe, expect, it } from '@jest/globals';
import { Signer } from '@app/common';
import { consolePage, openPending, pendingCookie, sealPending } from './pending-sign-in.js';

const signer = new Signer('a-signing-secret-of-at-least-32-characters').forPurpose('console-sign-in');
const pending = { state: 's', nonce: 'n', codeVerifier: 'v', returnTo: '/console/users' };

describe('a console sign-in pending at the identity provider', () => {
  it('comes back from the browser as it left, and only so', () => {
    const sealed = sealPending(signer, pending);
    expect(openPending(signer, `a=1; mirobody-console-sign-in=${sealed}`, false)).toEqual(pending);
    expect(openPending(signer, `__Host-mirobody-console-sign-in=${sealed}`, true)).toEqual(pending);
    // Under the other name, altered, or sealed by another server's key: no sign-in.
    expect(openPending(signer, `mirobody-console-sign-in=${sealed}`, true)).toBeUndefined();
    expect(openPending(signer, `mirobody-console-sign-in=x${sealed}`, false)).toBeUndefined();
    const elsewhere = new Signer('another-signing-secret-of-32-characters!').forPurpose('console-sign-in');
    expect(openPending(signer, `mirobody-console-sign-in=${sealPending(elsewhere, pending)}`, false)).toBeUndefined();
    expect(openPending(signer, undefined, false)).toBeUndefined();
  });

  it('is kept in a cookie for the browser that started it', () => {
    expect(pendingCookie(true, 'v', 600)).toBe('__Host-mirobody-console-sign-in=v; Path=/; Max-Age=600; HttpOnly; SameSite=Lax; Secure');
    expect(pendingCookie(false, '', 0)).toBe('mirobody-console-sign-in=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax');
  });

  it('returns to a page of the console, never to another site', () => {
    for (const page of ['/console', '/console/', '/console/users?q=a', '/console/account/memories']) expect(consolePage(page)).toBe(page);
    for (const elsewhere of ['//evil.example/console', 'https://evil.example/console', '/consoleevil', '/docs', '/console\\@evil', 42, undefined, ''])
      expect(consolePage(elsewhere)).toBe('/console/');
  });
});
