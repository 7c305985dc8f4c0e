export { AdminModule } from './admin.module.js';
export { AdminUsers } from './admin-users.service.js';
