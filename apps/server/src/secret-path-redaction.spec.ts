import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import pino from 'pino';
import { rawRequest } from '../test/support/raw-http.js';
import { answerRefusedTarget, completedRequestLine, loggedUrl, serializers } from './logging.js';

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
  let url: URL;
  // Each request's line twice: written by `completedRequestLine`, and by pino from the same fields with `serializers`.
  const written: string[] = [];
  const byPino: string[] = [];
  const capture = (lines: string[]) => pino({ level: 'info', serializers }, { write: (line: string) => lines.push(line) });

  beforeAll(async () => {
    const completed = completedRequestLine(capture(written));
    const reference = capture(byPino);
    fastify = Fastify({ frameworkErrors: answerRefusedTarget(() => reference) });
    fastify.all('/mcp', async () => 'ok');
    fastify.all('/mcp/:secret', async () => 'ok');
    fastify.addHook('onResponse', (request, reply, done) => {
      completed(request, reply);
      reference.info({ reqId: request.id, req: request, res: reply.raw, responseTime: Math.round(reply.elapsedTime * 100) / 100 }, 'request completed');
      done();
    });
    await fastify.listen({ port: 0, host: '127.0.0.1' });
    url = new URL(`http://127.0.0.1:${(fastify.server.address() as { port: number }).port}`);
  });

  beforeEach(() => {
    written.length = 0;
    byPino.length = 0;
  });

  afterAll(() => fastify.close());

  it('never writes the secret of /mcp/<secret>, spelled as a client or an attacker may', async () => {
    const targets = [`/mcp/${SECRET}`, `/mc%70/${SECRET}`, `/%6dcp/${SECRET}`, `${url.origin}/mcp/${SECRET}`, `${url.origin}/mc%70/${SECRET}?x=${JWT}`];
    for (const target of targets) expect((await rawRequest(url, target, { method: 'GET' })).status).toBe(200);
    expect(written).toHaveLength(targets.length);
    for (const line of written) {
      expect(line).not.toContain(SECRET.slice(7, 20));
      expect(line).not.toContain(JWT.split('.')[1]);
    }
  });

  it("writes the line pino's info() writes from the same fields, for any target, method and status", async () => {
    // Repeated targets too: the logged form of the last target is reused.
    const requests: [string, string][] = [
      ['/mcp', 'POST'],
      ['/mcp', 'POST'],
      ['/mcp?x="quoted"&y=\\', 'GET'],
      ['/mcp/%22%01%e2%80%a8', 'DELETE'],
      ['/missing/%C3%A9t%C3%A9', 'GET'],
      ['/missing/%C3%A9t%C3%A9', 'GET'],
      ['*', 'OPTIONS'],
      ['/mcp', 'POST'],
    ];
    for (const [target, method] of requests) await rawRequest(url, target, { method });
    // A line is written once the response has gone, which may be after the client has read it.
    while (written.length < requests.length || byPino.length < requests.length) await new Promise((settle) => setTimeout(settle, 5));
    // The time and the elapsed time are read at each write, so they may differ by a tick.
    const comparable = (line: string) => line.replace(/"time":\d+/, '"time":0').replace(/"responseTime":[\d.]+/, '"responseTime":0');
    expect(written.map(comparable)).toEqual(byPino.map(comparable));
    expect(written.map((line) => (JSON.parse(line) as { res: { statusCode: number } }).res.statusCode)).toEqual([200, 200, 200, 200, 404, 404, 404, 200]);
    // The client's address (Fastify's request.ip: no proxy is trusted here, so the connection's).
    expect(new Set(written.map((line) => (JSON.parse(line) as { req: { remoteAddress: string } }).req.remoteAddress))).toEqual(new Set(['127.0.0.1']));
  });

  it('writes a line for a target Fastify cannot decode, without the secret in it', async () => {
    const response = await rawRequest(url, `/mcp/${SECRET}%ff`, { method: 'POST' });
    expect(response.status).toBe(400);
    while (byPino.length < 1) await new Promise((settle) => setTimeout(settle, 5));
    expect(byPino).toHaveLength(1);
    expect(byPino[0]).not.toContain(SECRET.slice(7, 20));
    expect(JSON.parse(byPino[0])).toMatchObject({ msg: 'request completed', req: { method: 'POST', url: '/mcp/[redacted]' }, res: { statusCode: 400 } });
    expect(written).toEqual([]);
  });

  it("writes nothing below the logger's level", () => {
    const lines: string[] = [];
    const line = completedRequestLine(pino({ level: 'warn' }, { write: (text: string) => lines.push(text) }));
    line({ id: 'r1', method: 'GET', url: '/mcp', routeOptions: { url: '/mcp' } } as FastifyRequest, { statusCode: 200, elapsedTime: 1 } as FastifyReply);
    expect(lines).toEqual([]);
  });
});
