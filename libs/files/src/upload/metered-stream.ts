import { createHash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { SNIFF_BYTES } from './detect-mime.js';

/** The body went past `limit` bytes; the stream fails with this and the upload stops there. */
export class BodyTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`Body exceeds ${limit} bytes`);
    this.name = 'BodyTooLargeError';
  }
}

/**
 * Passes an upload through unchanged while counting it, hashing it (SHA-256) and keeping its first
 * bytes for type detection; fails as soon as it grows past `limit`, so that nothing over the limit
 * is ever stored, and nothing but one chunk at a time is held in memory.
 */
export class MeteredStream extends Transform {
  private readonly hash = createHash('sha256');
  private readonly headChunks: Buffer[] = [];
  private headLength = 0;
  bytes = 0;

  constructor(private readonly limit: number) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.bytes > this.limit) return callback(new BodyTooLargeError(this.limit));
    this.hash.update(chunk);
    if (this.headLength < SNIFF_BYTES) {
      const part = chunk.subarray(0, SNIFF_BYTES - this.headLength);
      // A copy: the head outlives the chunk, which the pipeline may reuse.
      this.headChunks.push(Buffer.from(part));
      this.headLength += part.length;
    }
    callback(null, chunk);
  }

  /** The first bytes (up to SNIFF_BYTES). */
  head(): Buffer {
    return Buffer.concat(this.headChunks);
  }

  sha256(): string {
    return this.hash.digest('hex');
  }
}
