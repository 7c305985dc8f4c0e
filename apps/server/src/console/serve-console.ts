import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import send from '@fastify/send';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { countedAgainstBudget } from '../public-route-limit.js';

/** Where `npm run build` puts the console (Vite's output), from the sources and from dist/ alike. */
export const CONSOLE_DIRECTORY = fileURLToPath(new URL('../../../../dist/console/', import.meta.url.replace('/dist/apps/', '/apps/')));

/**
 * The console page's Content Security Policy: its own scripts, styles and requests only, nothing
 * inline (Vite writes none), no frames of it anywhere; images may be `blob:` (a file's preview) or
 * `data:` (icons in the style sheet).
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  // A new build names new assets: the page that names them must never be kept.
  'cache-control': 'no-store',
  'content-security-policy': CONSOLE_CSP,
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
};

/** The routes the console's page answers; its files are under `ASSETS_PREFIX` (a missing one is 404, never the page). */
const CONSOLE_ROUTES = ['/console', '/console/*'];
const ASSETS_PREFIX = '/console/assets/';
const ASSET_NAME = /^[\w-]+(\.[\w-]+)+$/;

/**
 * Serves the web console (a single-page app, `apps/console`): its hashed assets under
 * `/console/assets/`, kept a year by browsers, and its page for `/console` and every path under it,
 * never cached, so that a deep link works after a reload. Counted against the caller's budget as
 * every route anyone may call. Before the console is built the page says how to build it (503).
 */
export async function serveConsole(app: NestFastifyApplication, directory = CONSOLE_DIRECTORY): Promise<void> {
  const fastify = app.getHttpAdapter().getInstance();
  const onRequest = countedAgainstBudget(app);
  const page = join(directory, 'index.html');
  const assets = join(directory, 'assets');
  await fastify.register(async (scope) => {
    scope.addHook('onRequest', onRequest);
    // Read at each request, not listed at start-up: `npm run start:dev` rebuilds the console while the server runs.
    scope.get(`${ASSETS_PREFIX}*`, async (request: FastifyRequest, reply: FastifyReply) => {
      // Vite names them `<name>-<hash>.<ext>`, side by side: any other path is no file of the console's.
      const name = (request.params as { '*': string })['*'];
      if (!ASSET_NAME.test(name)) return reply.callNotFound();
      // Their names change with their content: a browser may keep them for good.
      const file = await send(request.raw, `/${name}`, { root: assets, maxAge: '1y', immutable: true, dotfiles: 'deny', index: false });
      if (file.type !== 'file') return reply.callNotFound();
      return reply
        .code(file.statusCode)
        .headers({ ...file.headers, 'x-content-type-options': 'nosniff' })
        .send(file.stream);
    });
    const answer = async (_request: unknown, reply: FastifyReply) => {
      if (!existsSync(page)) return reply.code(503).headers(PAGE_HEADERS).send(NOT_BUILT);
      return reply.headers(PAGE_HEADERS).send(await readFile(page));
    };
    for (const path of CONSOLE_ROUTES) scope.get(path, answer);
  });
}

const NOT_BUILT = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Console not built</title></head>
<body><h1>The console is not built</h1><p>Run <code>npm run build</code> (or <code>npm start</code>), then reload this page.</p></body></html>`;
