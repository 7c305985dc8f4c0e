import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ApiTag } from '@app/common';
import { AdminOnly } from '@app/auth';
import { FilesService } from '../files.service.js';
import { StorageCheck } from '../storage-check.js';
import { AdminFileListQueryDto, AdminFilePageDto, AdminFileViewDto } from './file-view.dto.js';
import { StorageCheckQueryDto, StorageCheckReportDto } from './storage-check.dto.js';

/** Every user's files in one list, for what needs attention (text extractions waiting or failed); reading it is not audited, as no list is. */
@ApiTag('admin')
@Controller('admin/files')
@AdminOnly()
export class AllFilesController {
  constructor(
    private readonly files: FilesService,
    private readonly storageCheck: StorageCheck,
  ) {}

  @Get()
  @ApiOperation({
    summary: "List all users' files, newest first, by extraction state",
    description: 'With their owners; `extraction=pending` or `failed` finds the files whose text is awaited or could not be read.',
    operationId: 'adminFiles_listAll',
  })
  @ApiOkResponse({ type: AdminFilePageDto })
  async list(@Query() query: AdminFileListQueryDto): Promise<AdminFilePageDto> {
    const page = await this.files.listAll({
      limit: query.limit,
      ...(query.cursor ? { cursor: query.cursor } : {}),
      ...(query.extraction ? { extraction: query.extraction } : {}),
    });
    return { items: page.items.map(AdminFileViewDto.ofOwned), nextCursor: page.nextCursor };
  }

  @Get('check')
  @ApiOperation({
    summary: "Compare the files' rows with the objects the storage holds",
    description:
      'After a restore (docs/operations.md, Backup and restore): files whose object is missing, objects no file points to, and objects whose size (or, with `digests=true`, SHA-256) is not the one recorded at upload.',
    operationId: 'adminFiles_check',
  })
  @ApiOkResponse({ type: StorageCheckReportDto })
  check(@Query() query: StorageCheckQueryDto): Promise<StorageCheckReportDto> {
    return this.storageCheck.run({ digests: query.digests === 'true' });
  }
}
