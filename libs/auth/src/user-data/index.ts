export { UserDataModule } from './user-data.module.js';
export { UserDataService } from './user-data.service.js';
