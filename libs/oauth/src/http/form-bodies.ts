import { UnsupportedMediaTypeException } from '@nestjs/common';
import type { FastifyInstance } from 'fastify';

/** The routes whose bodies are forms (RFC 6749 §3.2, RFC 7009 §2.1, the consent page's). */
export const FORM_ROUTES = ['/token', '/revoke', '/oauth/consent'];
/** A form of these routes holds a few short parameters. */
const FORM_BODY_LIMIT = 16 * 1024;

/**
 * Reads `application/x-www-form-urlencoded` bodies on the OAuth routes that take them: a parameter
 * given twice becomes a list, for the route to refuse (RFC 6749 §3.1). Every other route refuses
 * the type as it does any that is not JSON.
 */
export function registerOAuthFormBodies(fastify: FastifyInstance): void {
  fastify.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT }, (request, text, done) => {
    if (!FORM_ROUTES.includes(request.routeOptions?.url ?? '')) {
      return done(new UnsupportedMediaTypeException(`Unsupported content type "${request.headers['content-type']}": send application/json`), undefined);
    }
    const form: Record<string, string | string[]> = {};
    for (const [name, value] of new URLSearchParams(text as string)) {
      const earlier = form[name];
      form[name] = earlier === undefined ? value : [earlier, value].flat();
    }
    done(null, form);
  });
}
