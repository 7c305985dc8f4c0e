import { Controller, Delete, Get, HttpCode, StreamableFile } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { UserInfo } from '@app/common';
import { Authenticated, CurrentCaller } from '../rest/decorators.js';
import { UserDataService } from './user-data.service.js';

/** The caller's own data across every lib: take it away, or have it erased. */
@ApiTags('me')
@Controller('api/me')
@Authenticated({ jwtOnly: true })
export class MeController {
  constructor(private readonly userData: UserDataService) {}

  @Get('export')
  @ApiProduces('application/json')
  @ApiOkResponse({ description: '`{ exportedAt, userId, parts: { account: { user, mcpSecrets, accessLog }, <lib>: ... } }`; secrets appear as metadata only' })
  export(@CurrentCaller() caller: UserInfo): StreamableFile {
    return new StreamableFile(this.userData.exportStream(caller.userId), {
      type: 'application/json',
      disposition: 'attachment; filename="mirobody-export.json"',
    });
  }

  /** Everything the server holds for the caller, gone; a later token makes a new, empty user. */
  @Delete()
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Erased' })
  async erase(@CurrentCaller() caller: UserInfo): Promise<void> {
    await this.userData.erase(caller.userId);
  }
}
