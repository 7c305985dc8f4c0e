import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

/** Signs and checks tokens for one purpose; a token made for one purpose never verifies for another. */
export interface PurposeSigner {
  /** `payload` (any string) with its expiry and MAC, base64url, safe in a URL. */
  sign(payload: string, expiresAt?: Date): string;
  /** The payload of a token this signer made and that has not expired, else null. */
  verify(token: string): string | null;
  /** The raw MAC of `data`, base64url: for values that carry their own structure (session ids). */
  mac(data: string): string;
  /** Constant-time check of `mac(data)`. */
  checkMac(data: string, mac: string): boolean;
}

/** The token's parts, separated by a dot: payload, expiry in ms (0 = none), MAC, each base64url. */
const SEPARATOR = '.';

/**
 * HMAC-SHA256 with a key derived per purpose (HKDF) from one root secret, so the server has one
 * secret to configure and share between instances, and no two uses can forge each other's tokens.
 */
export class Signer {
  private readonly purposes = new Map<string, PurposeSigner>();

  constructor(private readonly rootSecret: string) {
    if (rootSecret.length < 32) throw new Error('The signing secret needs at least 32 characters');
  }

  forPurpose(purpose: string): PurposeSigner {
    let signer = this.purposes.get(purpose);
    if (!signer) {
      signer = purposeSigner(this.keyFor(purpose));
      this.purposes.set(purpose, signer);
    }
    return signer;
  }

  /** The raw 32-byte key of a purpose, for a codec that does its own MACs (the SDK's `requestState`). */
  keyFor(purpose: string): Buffer {
    return Buffer.from(hkdfSync('sha256', this.rootSecret, 'mirobody', `purpose:${purpose}`, 32));
  }
}

function purposeSigner(key: Buffer): PurposeSigner {
  const mac = (data: string) => createHmac('sha256', key).update(data).digest('base64url');
  const checkMac = (data: string, given: string) => {
    const expected = Buffer.from(mac(data));
    const actual = Buffer.from(given);
    return expected.length === actual.length && timingSafeEqual(expected, actual);
  };
  return {
    mac,
    checkMac,
    sign(payload, expiresAt) {
      const body = `${Buffer.from(payload).toString('base64url')}${SEPARATOR}${expiresAt ? expiresAt.getTime().toString(36) : '0'}`;
      return `${body}${SEPARATOR}${mac(body)}`;
    },
    verify(token) {
      const parts = token.split(SEPARATOR);
      if (parts.length !== 3) return null;
      const [payload, expiry, signature] = parts as [string, string, string];
      const body = `${payload}${SEPARATOR}${expiry}`;
      if (!checkMac(body, signature)) return null;
      const expiresAt = parseInt(expiry, 36);
      if (!Number.isFinite(expiresAt) || (expiresAt !== 0 && expiresAt <= Date.now())) return null;
      return Buffer.from(payload, 'base64url').toString('utf8');
    },
  };
}
