export { AccountStatus } from './account-status.js';
export { UserEntity } from './user.entity.js';
export { UsersModule } from './users.module.js';
export { UsersService } from './users.service.js';
export type { TokenIdentity } from './token-identity.js';
