import multipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';
import { RAW_UPLOAD_TYPE } from './files.controller.js';

/**
 * Teaches Fastify to leave upload bodies unread for the route to stream: multipart ones through
 * `request.file()` (`POST /api/files`), `application/octet-stream` ones as the request itself
 * (`POST /api/files/raw`). Limits are set per request by the upload routes, from the files
 * configuration. A route that takes neither never reads such a body and answers as it would
 * without one (the MCP endpoint, for one, answers 415).
 */
export function registerFileUploads(fastify: FastifyInstance): void {
  void fastify.register(multipart);
  fastify.addContentTypeParser(RAW_UPLOAD_TYPE, (_request, _body, done) => done(null));
}
