import { describe } from '@jest/globals';

/** A server some tests need, where they expect it, and the variables that move it or make it required. */
export interface NeededService {
  name: string;
  url: string;
  answers: (url: string) => Promise<boolean>;
  /** The variable that points the tests at another server, e.g. `TEST_REDIS_URL`. */
  urlVariable: string;
  /** The variable that makes a missing server fail the tests, e.g. `REQUIRE_REDIS`. */
  requireVariable: string;
}

/**
 * `describe` for tests that need running servers: on a developer's machine without one of them
 * they are skipped with the reason printed; in CI (`CI=true`) or with the service's require
 * variable set to 1 they run and fail.
 */
export async function describeNeeding(...services: NeededService[]): Promise<typeof describe | typeof describe.skip> {
  for (const service of services) {
    if (await service.answers(service.url)) continue;
    if (process.env.CI === 'true' || process.env[service.requireVariable] === '1') return describe;
    const where = new URL(service.url);
    // A URL may carry a password; the reason printed does not.
    where.password = '';
    process.stderr.write(
      `Skipping the tests that need ${service.name}: nothing answers at ${where.href} (set ${service.urlVariable}, or ${service.requireVariable}=1 to fail instead).\n`,
    );
    return describe.skip;
  }
  return describe;
}
