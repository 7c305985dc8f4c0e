import { Module } from '@nestjs/common';
import { DatabaseModule } from '@app/database';
import { AuthOptionsModule } from '../auth-options.module.js';
import { AccountStatus } from './account-status.js';
import { UserEntity } from './user.entity.js';
import { UsersService } from './users.service.js';

/** The `users` table: who a credential stands for (`UsersService`) and whether the account is enabled (`AccountStatus`). */
@Module({
  imports: [DatabaseModule.forFeature({ entities: [UserEntity] }), AuthOptionsModule],
  providers: [UsersService, AccountStatus],
  exports: [UsersService, AccountStatus],
})
export class UsersModule {}
