import { Module } from '@nestjs/common';
import { DatabaseModule } from '@app/database';
import { MCP_AUDIT_TRAIL } from '@app/mcp';
import { ConnectionEntity } from '../identity/connections/connection.entity.js';
import { IdentityModule } from '../identity/identity.module.js';
import { McpSecretEntity } from '../identity/secrets/mcp-secret.entity.js';
import { UserDataModule } from '../user-data/user-data.module.js';
import { UserEntity } from '../users/user.entity.js';
import { UsersModule } from '../users/users.module.js';
import { AdminAuditController } from './admin-audit.controller.js';
import { AdminAuditEntity } from './admin-audit.entity.js';
import { AdminAudit } from './admin-audit.service.js';
import { AdminConnectionsController } from './admin-connections.controller.js';
import { AdminConnections } from './admin-connections.service.js';
import { AdminSecretsController } from './admin-secrets.controller.js';
import { AdminSecrets } from './admin-secrets.service.js';
import { AdminUsers } from './admin-users.service.js';
import { ApprovalAudit } from './approval-audit.js';
import { AdminController } from './admin.controller.js';

/**
 * The admin area: `/admin/users` (search, disable, export, erase, their MCP secrets and
 * connections), every user's connections, and the audit trail every admin action (and every
 * tool approval, `MCP_AUDIT_TRAIL`) writes.
 */
@Module({
  imports: [
    DatabaseModule.forFeature({ entities: [UserEntity, AdminAuditEntity, McpSecretEntity, ConnectionEntity] }),
    UsersModule,
    IdentityModule,
    UserDataModule,
  ],
  controllers: [AdminController, AdminSecretsController, AdminConnectionsController, AdminAuditController],
  providers: [AdminAudit, AdminUsers, AdminSecrets, AdminConnections, { provide: MCP_AUDIT_TRAIL, useClass: ApprovalAudit }],
  exports: [AdminUsers, MCP_AUDIT_TRAIL],
})
export class AdminModule {}
