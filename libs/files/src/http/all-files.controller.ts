import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ApiTag } from '@app/common';
import { AdminOnly } from '@app/auth';
import { FilesService } from '../files.service.js';
import { AdminFileListQueryDto, AdminFilePageDto, AdminFileViewDto } from './file-view.dto.js';

/** Every user's files in one list, for what needs attention (text extractions waiting or failed); reading it is not audited, as no list is. */
@ApiTag('admin')
@Controller('admin/files')
@AdminOnly()
export class AllFilesController {
  constructor(private readonly files: FilesService) {}

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
}
