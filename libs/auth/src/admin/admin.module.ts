import { Module } from '@nestjs/common';
import { DatabaseModule } from '@app/database';
import { IdentityModule } from '../identity/identity.module.js';
import { UserDataModule } from '../user-data/user-data.module.js';
import { UserEntity } from '../users/user.entity.js';
import { UsersModule } from '../users/users.module.js';
import { AdminAuditEntity } from './admin-audit.entity.js';
import { AdminAudit } from './admin-audit.service.js';
import { AdminUsers } from './admin-users.service.js';
import { AdminController } from './admin.controller.js';

/** The admin area: `/admin/users` (search, disable, export, erase) and the audit trail every admin action writes. */
@Module({
  imports: [DatabaseModule.forFeature({ entities: [UserEntity, AdminAuditEntity] }), UsersModule, IdentityModule, UserDataModule],
  controllers: [AdminController],
  providers: [AdminAudit, AdminUsers],
  exports: [AdminUsers],
})
export class AdminModule {}
