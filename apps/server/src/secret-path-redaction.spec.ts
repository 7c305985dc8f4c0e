import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import Fastify, { type FastifyInstance } from 'fastify';
import { rawRequest } from '../test/support/raw-http.js';
import { loggedUrl, serializers } from './logging.js';

const SECRET = 'mrb_sk_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_abcdefg';
const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhIn0.c2lnbmF0dXJl';

describe('loggedUrl', () => {
  it('hides the secret of /mcp/<secret> and leaves other paths alone', () => {
    expect(loggedUrl(`/mcp/${SECRET}?x=1`)).toBe('/mcp/[redacted]?x=1');
    expect(loggedUrl('/mcp')).toBe('/mcp');
    expect(loggedUrl('/api/mcp-secrets/1')).toBe('/api/mcp-secrets/1');
  });

  it('hides secrets and JWTs however they are spelled, anywhere in the target', () => {
    const encodedSecret = [...SECRET].map((char) => `%${char.charCodeAt(0).toString(16)}`).join('');
    for (const url of [
      `/mc%70/${SECRET}`,
      `//mcp//${SECRET}`,
      `/%6dcp/${encodedSecret}`,
      `/mcp/%256drb_sk_x${SECRET.slice(9)}`,
      `http://host/mcp/${SECRET}`,
      `/other?token=${JWT}`,
      `/x/${encodedSecret}`,
      `/api?a=${JWT.replace('.', '%2e')}`,
    ]) {
      const logged = loggedUrl(url);
      expect(logged).not.toContain(SECRET.slice(7, 20));
      expect(logged).not.toContain(JWT.split('.')[1]);
    }
  });
});

describe('request lines through real HTTP (finding 5)', () => {
  let fastify: FastifyInstance;
  const logged: string[] = [];

  beforeAll(async () => {
    fastify = Fastify();
    fastify.all('/mcp', async () => 'ok');
    fastify.all('/mcp/:secret', async () => 'ok');
    fastify.addHook('onResponse', async (request) => {
      logged.push(JSON.stringify(serializers.req(request)));
    });
    await fastify.listen({ port: 0, host: '127.0.0.1' });
  });

  afterAll(() => fastify.close());

  it('never writes the secret of /mcp/<secret>, spelled as a client or an attacker may', async () => {
    const url = new URL(`http://127.0.0.1:${(fastify.server.address() as { port: number }).port}`);
    const targets = [`/mcp/${SECRET}`, `/mc%70/${SECRET}`, `/%6dcp/${SECRET}`, `${url.origin}/mcp/${SECRET}`, `${url.origin}/mc%70/${SECRET}?x=${JWT}`];
    for (const target of targets) expect((await rawRequest(url, target, { method: 'GET' })).status).toBe(200);
    expect(logged).toHaveLength(targets.length);
    for (const line of logged) {
      expect(line).not.toContain(SECRET.slice(7, 20));
      expect(line).not.toContain(JWT.split('.')[1]);
    }
  });
});
