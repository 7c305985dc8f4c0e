import { Controller, Delete, Get, HttpCode, StreamableFile } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiProduces } from '@nestjs/swagger';
import { ApiTag, type UserInfo } from '@app/common';
import { Authenticated, CurrentCaller } from '../identity/rest/decorators.js';
import { UserDataService } from './user-data.service.js';

/** The caller's own data across every lib: take it away, or have it erased. */
@ApiTag('me')
@Controller('api/me')
@Authenticated({ jwtOnly: true })
export class MeController {
  constructor(private readonly userData: UserDataService) {}

  @Get('export')
  @ApiOperation({ summary: 'Download everything the server holds for you, as one JSON file' })
  @ApiProduces('application/json')
  @ApiOkResponse({ description: '`{ exportedAt, userId, parts: { account: { user, mcpSecrets, accessLog }, <lib>: ... } }`; secrets appear as metadata only' })
  async export(@CurrentCaller() caller: UserInfo): Promise<StreamableFile> {
    return new StreamableFile(await this.userData.exportStream(caller.userId), {
      type: 'application/json',
      disposition: 'attachment; filename="mirobody-export.json"',
    });
  }

  @Delete()
  @HttpCode(204)
  @ApiOperation({ summary: 'Erase your account and everything the server holds for you', description: 'A later token makes a new, empty user.' })
  @ApiNoContentResponse({ description: 'Erased' })
  async erase(@CurrentCaller() caller: UserInfo): Promise<void> {
    await this.userData.erase(caller.userId);
  }
}
