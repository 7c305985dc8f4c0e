import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { API_TAGS } from '@app/common';
import { JWT_SCHEME, MCP_SECRET_SCHEME, SECRET_PREFIX } from '@app/auth';
import { countedAgainstBudget } from './public-route-limit.js';

/**
 * An operation's id, `memories_list` for `MemoriesController.list`: the controller's name less
 * "Controller", in lower camel case, then the method's; `@ApiOperation({ operationId })` names one
 * whose method name says too little. Generated clients name their methods after it (openapi-generator's
 * --remove-operation-id-prefix drops the part up to `_`).
 */
const operationIdOf = (controllerKey: string, methodKey: string): string => {
  const resource = controllerKey.replace(/Controller$/, '');
  return `${resource.charAt(0).toLowerCase()}${resource.slice(1)}_${methodKey}`;
};

/** The OpenAPI 3 document of every REST route (the `/mcp` endpoint speaks JSON-RPC and is described by MCP itself). */
export function buildOpenApiDocument(app: NestFastifyApplication, version: string): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Mirobody')
    .setDescription('REST API of the Mirobody MCP server: your own data under /api, administration under /admin.')
    .setVersion(version)
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'A JWT from the identity provider' }, JWT_SCHEME)
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: `A personal MCP secret (${SECRET_PREFIX}...)` }, MCP_SECRET_SCHEME);
  for (const [name, description] of Object.entries(API_TAGS)) config.addTag(name, description);
  return SwaggerModule.createDocument(app, config.build(), { operationIdFactory: operationIdOf });
}

const UI_FILES = {
  'swagger-ui.css': 'text/css',
  'swagger-ui-bundle.js': 'application/javascript',
  'swagger-ui-standalone-preset.js': 'application/javascript',
} as const;

const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Mirobody API</title><link rel="stylesheet" href="/docs/swagger-ui.css"></head>
<body><div id="swagger-ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/swagger-ui-standalone-preset.js"></script>
<script>window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset], layout: 'StandaloneLayout' });</script>
</body>
</html>`;

/** The routes `serveOpenApi` adds, outside Nest's controllers; public-routes.e2e-spec.ts checks each is rate-limited. */
export const OPENAPI_ROUTES = ['/openapi.json', '/docs', ...Object.keys(UI_FILES).map((file) => `/docs/${file}`)];

/**
 * Serves the document at `/openapi.json` (built once, on first request, when every route is
 * known) and Swagger UI at `/docs`. The UI's three files are served from `swagger-ui-dist` here
 * rather than through `@fastify/static`, which Swagger's own setup loads with a dynamic import.
 */
export function serveOpenApi(app: NestFastifyApplication, version: string): void {
  let document: OpenAPIObject | undefined;
  const fastify = app.getHttpAdapter().getInstance();
  const onRequest = countedAgainstBudget(app);
  fastify.get('/openapi.json', { onRequest }, async (_request, reply) =>
    reply.type('application/json').send((document ??= buildOpenApiDocument(app, version))),
  );
  fastify.get('/docs', { onRequest }, async (_request, reply) => reply.type('text/html; charset=utf-8').send(DOCS_PAGE));
  const uiDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  for (const [file, type] of Object.entries(UI_FILES)) {
    let content: Buffer | undefined;
    fastify.get(`/docs/${file}`, { onRequest }, async (_request, reply) =>
      reply
        .type(type)
        .header('cache-control', 'public, max-age=86400')
        .send((content ??= readFileSync(join(uiDir, file)))),
    );
  }
}
