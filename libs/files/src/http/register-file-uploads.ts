import multipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';

/**
 * Teaches Fastify to read multipart bodies as streams (`request.file()`), for `POST /api/files`.
 * Limits are set per request by the upload route, from the files configuration.
 */
export function registerFileUploads(fastify: FastifyInstance): void {
  void fastify.register(multipart);
}
