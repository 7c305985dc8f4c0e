import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { CONSOLE_CSP, CONSOLE_DIRECTORY } from '../src/console/serve-console.js';
import { TEST_JWT_SECRET } from './support/auth.js';
import { startApp, type RunningApp } from './support/test-app.js';

/**
 * The console as the server serves it (Jest's setup builds it first): its page for every path under
 * /console, never cached and under a strict CSP; its hashed files cached for good; nothing else.
 */
describe('serving the web console', () => {
  let app: RunningApp;
  const get = (path: string) => fetch(new URL(path, app.url));

  beforeAll(async () => {
    app = await startApp({ JWT_SECRET: TEST_JWT_SECRET });
  });
  afterAll(() => app?.close());

  it('answers its page at /console and every path under it, so that a deep link works after a reload', async () => {
    for (const path of ['/console', '/console/', '/console/users/2f1c8a4e-0000-4000-8000-000000000000', '/console/account/memories?q=x']) {
      const response = await get(path);
      expect([path, response.status]).toEqual([path, 200]);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(response.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
      expect(response.headers.get('x-frame-options')).toBe('DENY');
      expect(await response.text()).toMatch(/<div id="root"><\/div>/);
    }
  });

  it('allows no inline script or style, nor any frame of it', async () => {
    expect(CONSOLE_CSP).toMatch(/script-src 'self'(;|$)/);
    expect(CONSOLE_CSP).toMatch(/style-src 'self'(;|$)/);
    expect(CONSOLE_CSP).toContain("frame-ancestors 'none'");
    expect(CONSOLE_CSP).not.toContain('unsafe');
    const page = await (await get('/console/')).text();
    expect(page).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(page).not.toMatch(/<style|\sstyle=/);
  });

  it('serves its hashed files to be kept for good, and a missing one as 404, never the page', async () => {
    const assets = readdirSync(join(CONSOLE_DIRECTORY, 'assets'));
    const script = assets.find((name) => /^index-[\w-]+\.js$/.test(name))!;
    const response = await get(`/console/assets/${script}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(response.headers.get('content-type')).toMatch(/javascript/);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    for (const path of ['/console/assets/index-gone.js', '/console/assets/%2e%2e%2findex.html']) {
      const missing = await get(path);
      expect([path, missing.status]).toEqual([path, 404]);
    }
  });
});
