import { CreateMemories1796094241000 } from './1796094241000-create-memories.js';
import { IndexDeletedMemories1796326541000 } from './1796326541000-index-deleted-memories.js';
import { CountMemoriesPerUser1796600000000 } from './1796600000000-count-memories-per-user.js';
import { MemoryValidity1797500000000 } from './1797500000000-memory-validity.js';
import { IndexRecentMemories1797953000000 } from './1797953000000-index-recent-memories.js';

/** The memory tables' migrations, for the module and for tests that migrate a database of their own. */
export const MEMORY_MIGRATIONS = [
  CreateMemories1796094241000,
  IndexDeletedMemories1796326541000,
  CountMemoriesPerUser1796600000000,
  MemoryValidity1797500000000,
  IndexRecentMemories1797953000000,
];
