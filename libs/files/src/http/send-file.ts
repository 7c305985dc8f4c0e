import { create as contentDisposition } from 'content-disposition';
import type { FastifyReply } from 'fastify';
import rangeParser from 'range-parser';
import type { StoredFileEntity } from '../entities/stored-file.entity.js';
import type { FilesService } from '../files.service.js';
import type { ByteRange } from '../storage/file-storage.js';

/**
 * Answers with a file's bytes as a download: always an attachment, never sniffed or rendered
 * (`nosniff`, a sandboxing CSP), one byte range when asked (206), 416 for a range past the end.
 * Several ranges are answered with the whole file, as RFC 9110 allows.
 */
export async function sendFile(reply: FastifyReply, files: FilesService, file: StoredFileEntity, rangeHeader: string | undefined): Promise<void> {
  reply
    .header('content-type', file.mime)
    .header('content-disposition', contentDisposition(file.filename, { type: 'attachment' }))
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
