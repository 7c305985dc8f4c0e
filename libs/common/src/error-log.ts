/**
 * The log line of an error nobody expected: its class and message, but of a database error
 * (TypeORM's `QueryFailedError`, which carries `driverError`) only its SQLSTATE code. The error
 * object's own fields carry the failing SQL with its parameters (user ids, e-mail addresses, secret
 * hashes), and the driver's message may quote a value the caller sent.
 */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return 'Non-error thrown';
  if ('driverError' in error) return `${error.name}: database error ${(error.driverError as { code?: string } | undefined)?.code ?? 'without code'}`;
  return `${error.name}: ${error.message}`;
}

/** The stack's frames without its first lines, which repeat the message. */
export function stackFrames(error: unknown): string | undefined {
  const stack = error instanceof Error ? error.stack : undefined;
  return stack
    ?.split('\n')
    .filter((line) => line.startsWith('    at '))
    .join('\n');
}
