import type { FastifyReply } from 'fastify';
import type { ExtractionRuns } from '../extraction/extraction-runs.js';
import type { FilesService } from '../files.service.js';
import { FileViewDto } from './file-view.dto.js';

/** How long a request to extract a file's text again waits for the run: a text file's takes a fraction of this, a long PDF's or a scan's longer. */
export const EXTRACTION_ANSWER_WITHIN_MS = 2000;

/**
 * Runs the extraction of the owner's file again and answers with the file: 200 when the run ended
 * within `EXTRACTION_ANSWER_WITHIN_MS` (its new status), else 202 with `pending`, the run going on
 * in the background; 202 `pending` too when a run was under way already (none is started twice).
 */
export async function rerunExtraction(files: FilesService, runs: ExtractionRuns, userId: string, fileKey: string, reply: FastifyReply): Promise<FileViewDto> {
  const file = await files.get(userId, fileKey);
  const outcome = await runs.rerun(file, EXTRACTION_ANSWER_WITHIN_MS);
  reply.status(outcome.finished ? 200 : 202);
  return FileViewDto.of(Object.assign(file, { extractionStatus: outcome.extractionStatus }));
}
