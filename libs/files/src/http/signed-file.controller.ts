import { Controller, Get, Headers, Param, Res } from '@nestjs/common';
import { ApiForbiddenResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Public } from '@app/auth';
import { ApiTag, ForbiddenError } from '@app/common';
import { SIGNED_FILE_PATH } from '../files.options.js';
import { FilesService } from '../files.service.js';
import { FileUrlSigner } from '../storage/file-url-signer.js';
import { sendFile } from './send-file.js';

/**
 * Downloads through a signed link (local-disk storage; S3 serves its own presigned URLs). The
 * token is the credential: no other is asked for, and a tampered or expired one gets 403. Counted
 * per address like any route anyone may call, forged tokens and genuine links alike.
 */
@ApiTag('files')
@Controller(SIGNED_FILE_PATH)
@Public()
export class SignedFileController {
  constructor(
    private readonly files: FilesService,
    private readonly signer: FileUrlSigner,
  ) {}

  @Get(':token')
  @ApiOperation({ summary: 'Download a file through a temporary signed link (from read_file)' })
  @ApiOkResponse({ description: 'The file, as an attachment' })
  @ApiForbiddenResponse({ description: 'The link was altered or has expired' })
  async download(@Param('token') token: string, @Headers('range') range: string | undefined, @Res() reply: FastifyReply): Promise<void> {
    const objectKey = this.signer.verify(token);
    const file = objectKey === null ? null : await this.files.byObjectKey(objectKey);
    if (!file) throw new ForbiddenError('This link is invalid or has expired; ask for a new one');
    await sendFile(reply, this.files, file, range);
  }
}
