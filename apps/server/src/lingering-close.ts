import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';

/**
 * How much of a body the server did not read (a refused one: over BODY_LIMIT_BYTES, over
 * FILES_MAX_BYTES, refused before it was read) is still read and discarded before the answer goes
 * out, and for how long: past either, the connection is closed with the rest unread.
 */
const DRAIN_LIMIT = { bytes: 64 * 1024 * 1024, ms: 5_000 };

/**
 * "Lingering close", as web servers do it: an answer sent while the client is still sending its body
 * is sent once that body has been read to its end (within `DRAIN_LIMIT`), with `Connection: close`.
 * Otherwise the socket is closed with data unread, the kernel resets it, and a client that writes
 * its whole body before it reads (Node's fetch, on Node 22, with a streamed body) gets EPIPE instead
 * of the 413 and its message.
 */
export function registerLingeringClose(fastify: FastifyInstance): void {
  fastify.addHook('onSend', (request, reply, payload, done) => {
    const incoming = request.raw;
    if (incoming.complete || incoming.readableEnded || incoming.destroyed) return done(null, payload);
    reply.header('connection', 'close');
    void drain(incoming).then(() => done(null, payload));
  });
}

/** Reads and discards the rest of the body, until its end, an error, or `DRAIN_LIMIT`. */
function drain(incoming: IncomingMessage): Promise<void> {
  return new Promise((resolve) => {
    let bytes = 0;
    const finish = () => {
      clearTimeout(timer);
      incoming.off('data', count).off('end', finish).off('error', finish).off('close', finish);
      resolve();
    };
    const count = (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > DRAIN_LIMIT.bytes) finish();
    };
    const timer = setTimeout(finish, DRAIN_LIMIT.ms);
    incoming.on('data', count).once('end', finish).once('error', finish).once('close', finish);
    incoming.resume();
  });
}
