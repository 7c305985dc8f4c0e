import { create as contentDisposition } from 'content-disposition';
import type { FastifyReply } from 'fastify';
import rangeParser from 'range-parser';
import type { StoredFileEntity } from '../entities/stored-file.entity.js';
import type { FilesService } from '../files.service.js';
import type { ByteRange } from '../storage/file-storage.js';

/**
 * Raster image types a browser only ever draws, which the REST routes answer inline so that a page
 * can preview them (`<img src>`). Never SVG (it runs scripts when opened as a document), HTML or
 * anything else a browser would render as a page: those stay attachments.
 */
const INLINE_IMAGES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/avif', 'image/bmp']);

/**
 * Answers with a file's bytes as a download: an attachment (or, with `inlineImages`, inline for a
 * raster image); never sniffed or rendered as a page (`nosniff`, a sandboxing CSP), one byte range
 * when asked (206), 416 for a range past the end. Several ranges are answered with the whole file,
 * as RFC 9110 allows. Signed links stay attachments, as S3's presigned ones are.
 */
export async function sendFile(
  reply: FastifyReply,
  files: FilesService,
  file: StoredFileEntity,
  rangeHeader: string | undefined,
  options: { inlineImages?: boolean } = {},
): Promise<void> {
  const inline = options.inlineImages === true && INLINE_IMAGES.has(file.mime);
  reply
    .header('content-type', file.mime)
    .header('content-disposition', contentDisposition(file.filename, { type: inline ? 'inline' : 'attachment' }))
    .header('x-content-type-options', 'nosniff')
    .header('content-security-policy', "default-src 'none'; sandbox")
    .header('cache-control', 'private, no-store')
    .header('accept-ranges', 'bytes')
    .header('etag', `"${file.sha256}"`);
  let range: ByteRange | undefined;
  if (rangeHeader && file.size > 0) {
    const parsed = rangeParser(file.size, rangeHeader, { combine: true });
    if (parsed === -1) {
      await reply.status(416).header('content-range', `bytes */${file.size}`).send();
      return;
    }
    // -2 (malformed) and multiple ranges: the whole file.
    if (parsed !== -2 && parsed.type === 'bytes' && parsed.length === 1) range = parsed[0];
  }
  const body = await files.open(file, range);
  if (range)
    reply
      .status(206)
      .header('content-range', `bytes ${range.start}-${range.end}/${file.size}`)
      .header('content-length', range.end - range.start + 1);
  else reply.status(200).header('content-length', file.size);
  await reply.send(body);
}
