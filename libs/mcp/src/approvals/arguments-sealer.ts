import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/** The format's version, first in every sealed value, so that another one can follow it. */
const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Seals an approval request's arguments while it waits (they may hold personal data): AES-256-GCM
 * under one key of the deployment's, with the request's id as additional data, so that a sealed
 * value copied onto another request does not open there.
 */
export class ArgumentsSealer {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('The arguments key must be 32 bytes');
  }

  seal(requestId: string, args: Record<string, unknown>): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(requestId));
    const body = Buffer.concat([cipher.update(JSON.stringify(args), 'utf8'), cipher.final()]);
    return `${VERSION}.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
  }

  /** The arguments sealed for this request; undefined when they cannot be opened (sealed under another key, or altered). */
  open(requestId: string, sealed: string): Record<string, unknown> | undefined {
    const [version, payload] = sealed.split('.');
    if (version !== VERSION || !payload) return undefined;
    const bytes = Buffer.from(payload, 'base64url');
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, bytes.subarray(0, IV_BYTES));
      decipher.setAAD(Buffer.from(requestId));
      decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      const text = Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
      return JSON.parse(text) as Record<string, unknown>;
    } catch {
      return undefined;
    }
  }
}

/** JSON with every object's keys in order, so that equal arguments always read the same whatever order they came in. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, item]) => item !== undefined);
    return `{${entries
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/** What a decided request keeps of its arguments, and what a confirmation is bound to: `sha256:` and the hex digest of their canonical JSON. */
export function argumentsDigest(args: Record<string, unknown>): string {
  return `sha256:${createHash('sha256').update(canonicalJson(args)).digest('hex')}`;
}
