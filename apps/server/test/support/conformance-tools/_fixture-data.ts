/** Payloads the conformance scenarios compare byte for byte. */

/** A 1x1 red PNG pixel. */
export const TEST_IMAGE_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';

/** A minimal WAV file. */
export const TEST_AUDIO_BASE64 = 'UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=';

/**
 * Schema of a tool without arguments. Written out rather than generated because the generated one
 * forbids additional properties, and several scenarios send arguments a fixture must ignore.
 */
export const NO_ARGUMENTS = { type: 'object', properties: {} } as const;

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits `ms`, unless the call is cancelled first: then it rejects, as a cancelled task's tool should stop. */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true });
  });
}

/** A one-field form for in-band elicitation requests. */
export function formSchema<T extends 'string' | 'boolean'>(field: string, type: T) {
  return { type: 'object' as const, properties: { [field]: { type } as { type: T } }, required: [field] };
}
