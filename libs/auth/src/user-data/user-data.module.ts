import { Module } from '@nestjs/common';
import { DatabaseModule } from '@app/database';
import { ToolCallEntity } from '../access-log/tool-call.entity.js';
import { ConnectionEntity } from '../identity/connections/connection.entity.js';
import { IdentityModule } from '../identity/identity.module.js';
import { McpSecretEntity } from '../identity/secrets/mcp-secret.entity.js';
import { UserEntity } from '../users/user.entity.js';
import { UsersModule } from '../users/users.module.js';
import { AccountUserData } from './account-user-data.js';
import { MeController } from './me.controller.js';
import { UserDataService } from './user-data.service.js';

/**
 * A user's export and erasure across every lib (`UserDataService` over the contributors each lib
 * declares), `/api/me`, and the account's own share: the user row, their secrets and access log.
 */
@Module({
  imports: [DatabaseModule.forFeature({ entities: [UserEntity, McpSecretEntity, ConnectionEntity, ToolCallEntity] }), UsersModule, IdentityModule],
  controllers: [MeController],
  providers: [AccountUserData, UserDataService],
  exports: [UserDataService],
})
export class UserDataModule {}
