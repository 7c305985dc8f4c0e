export { AccountStatus } from './account-status.js';
export { claimAt, claimValues } from './claims.js';
export { UserEmails } from './user-emails.js';
export { UserEntity } from './user.entity.js';
export { UsersModule } from './users.module.js';
export { ADMIN_ROLE, UsersService } from './users.service.js';
export type { TokenIdentity } from './token-identity.js';
