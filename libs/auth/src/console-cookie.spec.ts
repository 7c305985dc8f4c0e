import { describe, expect, it } from '@jest/globals';
import { anySessionTokenIn, csrfTokenOf, isCsrfTokenOf, sessionCookie, sessionCookieName, sessionTokenIn } from './console-cookie.js';

const TOKEN = 'x'.repeat(43);

describe('the console session cookie', () => {
  it('is __Host- and Secure on https, plain on loopback http, and none on plain http elsewhere', () => {
    expect(sessionCookie('https://mcp.example.com', TOKEN, 60)).toBe(`__Host-mirobody-console=${TOKEN}; Path=/; Max-Age=60; HttpOnly; SameSite=Lax; Secure`);
    for (const loopback of ['http://127.0.0.1:18080', 'http://localhost:18080', 'http://[::1]:18080'])
      expect(sessionCookie(loopback, TOKEN, 60)).toBe(`mirobody-console=${TOKEN}; Path=/; Max-Age=60; HttpOnly; SameSite=Lax`);
    expect(sessionCookieName('http://mcp.example.com')).toBeUndefined();
    expect(() => sessionCookie('http://mcp.example.com', TOKEN, 60)).toThrow(/No session cookie/);
  });

  it("is read under this address's name only, without decoding, past other cookies however malformed", () => {
    const header = `theme=100%; x=%E0%A4%A; mirobody-console=${TOKEN}; __Host-mirobody-console=${'y'.repeat(43)}`;
    expect(sessionTokenIn(header, 'http://127.0.0.1:1')).toBe(TOKEN);
    expect(sessionTokenIn(header, 'https://mcp.example.com')).toBe('y'.repeat(43));
    expect(anySessionTokenIn(header)).toBe('y'.repeat(43));
    for (const value of ['', 'short', `${TOKEN}%20`, 'a'.repeat(200)])
      expect(sessionTokenIn(`mirobody-console=${value}`, 'http://127.0.0.1:1')).toBeUndefined();
    expect(sessionTokenIn(undefined, 'http://127.0.0.1:1')).toBeUndefined();
    expect(sessionTokenIn(`not-mirobody-console=${TOKEN}`, 'http://127.0.0.1:1')).toBeUndefined();
  });

  it('has a CSRF token derived from it, which no other session shares', () => {
    const csrf = csrfTokenOf(TOKEN);
    expect(csrf).toMatch(/^[\w-]{43}$/);
    expect(isCsrfTokenOf(TOKEN, csrf)).toBe(true);
    expect(isCsrfTokenOf('z'.repeat(43), csrf)).toBe(false);
    expect(isCsrfTokenOf(TOKEN, csrf.slice(1))).toBe(false);
    expect(csrf).not.toContain(TOKEN.slice(0, 8));
  });
});
