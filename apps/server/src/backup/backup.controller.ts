import { Controller, HttpCode, Post, Res } from '@nestjs/common';
import { ApiConflictResponse, ApiOkResponse, ApiOperation, ApiProduces } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { ApiTag, type UserInfo } from '@app/common';
import { AdminOnly, CurrentCaller } from '@app/auth';
import { BackupService } from './backup.service.js';

@ApiTag('admin')
@Controller('admin/backup')
@AdminOnly()
export class BackupController {
  constructor(private readonly backups: BackupService) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Take a backup of the embedded database and the local files',
    description:
      'A tar archive of the moment the request is served: every write acknowledged before it is in it. `npm run cli -- backup` calls this; `npm run cli -- restore` reads the archive (docs/operations.md, Backup and restore).',
    operationId: 'adminBackup_create',
  })
  @ApiProduces('application/x-tar')
  @ApiOkResponse({ description: 'The archive: manifest.json, database.tar (PGlite data directory), files/objects/...' })
  @ApiConflictResponse({ description: 'The database is PostgreSQL (use pg_dump), or a backup is under way' })
  async create(@CurrentCaller() admin: UserInfo, @Res() reply: FastifyReply): Promise<void> {
    const { stream, manifest } = await this.backups.start(admin.userId);
    const name = `mirobody-backup-${manifest.createdAt.replace(/[:.]/g, '-')}.tar`;
    await reply.code(200).header('content-type', 'application/x-tar').header('content-disposition', `attachment; filename="${name}"`).send(stream);
  }
}
