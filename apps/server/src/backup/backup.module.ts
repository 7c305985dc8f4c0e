import { Module } from '@nestjs/common';
import { AuthModule } from '@app/auth';
import { FilesModule } from '@app/files';
import { BackupController } from './backup.controller.js';
import { BackupService } from './backup.service.js';

/** `POST /admin/backup`: the embedded database and the local files, taken while the server serves. */
@Module({
  imports: [FilesModule, AuthModule],
  controllers: [BackupController],
  providers: [BackupService],
})
export class BackupModule {}
