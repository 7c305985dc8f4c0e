export { HealthModule } from './health.module.js';
export { HealthAccessService } from './circles/health-access.service.js';
export { FamilyHealthReader, type FamilyHealthAnswer, type FamilyHealthCaller, type FamilyHealthQuery } from './family-health.reader.js';
