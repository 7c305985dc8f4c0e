import { Inject, Injectable } from '@nestjs/common';
import { compactDecrypt, CompactEncrypt, decodeProtectedHeader } from 'jose';
import { AUTH_OPTIONS, type AuthModuleOptions } from '../../auth.options.js';
import { loadSigningKeys, type SigningKey } from './server-signing-keys.js';

/**
 * The built-in authorization server's keys (`OAUTH_SIGNING_KEYS_FILE`, else generated in
 * `DATA_DIR`), loaded once: they sign its access tokens, and seal what it must keep secret at rest,
 * an identity provider's refresh token, as a JWE (`dir`, A256GCM) naming the key it was sealed with.
 * A secret sealed with a key since dropped from the file no longer opens: its connection must sign in again.
 */
@Injectable()
export class ServerKeys {
  private keys?: Promise<SigningKey[]>;

  constructor(@Inject(AUTH_OPTIONS) private readonly options: Pick<AuthModuleOptions, 'dataDir' | 'oauthSigningKeysFile'>) {}

  /** The keys, the signing one first. */
  signingKeys(): Promise<SigningKey[]> {
    this.keys ??= loadSigningKeys(this.options.oauthSigningKeysFile, this.options.dataDir);
    return this.keys;
  }

  async seal(secret: string): Promise<string> {
    const [key] = await this.signingKeys();
    return new CompactEncrypt(new TextEncoder().encode(secret)).setProtectedHeader({ alg: 'dir', enc: 'A256GCM', kid: key!.kid }).encrypt(key!.sealingKey);
  }

  /** The secret `seal` made, or undefined when no key of the set opens it (rotated out) or it was altered. */
  async unseal(sealed: string): Promise<string | undefined> {
    try {
      const { kid } = decodeProtectedHeader(sealed);
      const key = (await this.signingKeys()).find((candidate) => candidate.kid === kid);
      if (!key) return undefined;
      const { plaintext } = await compactDecrypt(sealed, key.sealingKey, { keyManagementAlgorithms: ['dir'], contentEncryptionAlgorithms: ['A256GCM'] });
      return new TextDecoder().decode(plaintext);
    } catch {
      return undefined;
    }
  }
}
