import { createRequire } from 'node:module';
import type * as MedplumCore from '@medplum/core';

let core: typeof MedplumCore | undefined;

/**
 * @medplum/core, loaded when the first FHIR resource is validated rather than at start-up: its code
 * and tables take 1 to 2 MB of heap that a server nobody sends FHIR to would carry for nothing
 * (docs/operations.md#memory). Validation is synchronous, hence `require` (of its CommonJS build):
 * one copy for every caller, since the indexed definitions live in it.
 */
export function medplumCore(): typeof MedplumCore {
  return (core ??= createRequire(import.meta.url)('@medplum/core') as typeof MedplumCore);
}
