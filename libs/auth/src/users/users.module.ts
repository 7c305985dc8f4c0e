import { Module } from '@nestjs/common';
import { DatabaseModule } from '@app/database';
import { AuthOptionsModule } from '../auth-options.module.js';
import { AccountStatus } from './account-status.js';
import { UserEntity } from './user.entity.js';
import { UserEmails } from './user-emails.js';
import { UsersService } from './users.service.js';

/**
 * The `users` table: who a credential stands for (`UsersService`), whether the account is enabled
 * (`AccountStatus`), and users' addresses for admin lists (`UserEmails`).
 */
@Module({
  imports: [DatabaseModule.forFeature({ entities: [UserEntity] }), AuthOptionsModule],
  providers: [UsersService, AccountStatus, UserEmails],
  exports: [UsersService, AccountStatus, UserEmails],
})
export class UsersModule {}
