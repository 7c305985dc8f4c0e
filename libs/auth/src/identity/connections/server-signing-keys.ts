import { hkdfSync } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type JWK, type KeyObject } from 'jose';
import { publishOnce } from '../publish-once.js';

export const GENERATED_SIGNING_KEYS_FILE = 'oauth-signing-keys.json';

/** One ES256 key of the server: its id, the private key that signs and the public one that verifies. */
export interface SigningKey {
  kid: string;
  privateKey: KeyObject | CryptoKey;
  publicKey: KeyObject | CryptoKey;
  publicJwk: JWK;
  /**
   * A 256-bit key derived from the private one (HKDF, a purpose of its own), for secrets the server
   * keeps for itself (an identity provider's refresh token): the instances that share the key file
   * open each other's, and no key to configure is added.
   */
  sealingKey: Uint8Array;
}

/**
 * The keys the server signs its own access tokens with (ES256), from a JWKS file of private keys
 * (`OAUTH_SIGNING_KEYS_FILE`): the first signs, every one verifies, so a key is rotated by putting
 * a new one first and dropping the old one once its tokens have expired. Without the setting, a
 * key is generated once into `DATA_DIR` (mode 0600), as the HS256 secret is.
 */
export async function loadSigningKeys(file: string | undefined, dataDir: string): Promise<SigningKey[]> {
  const path = file ?? join(dataDir, GENERATED_SIGNING_KEYS_FILE);
  if (!file && !existsSync(path)) await publishGeneratedKeys(dataDir, path);
  let jwks: { keys?: JWK[] };
  try {
    jwks = JSON.parse(readFileSync(path, 'utf8')) as { keys?: JWK[] };
  } catch (error) {
    throw new Error(`${path} holds no JSON key set (${(error as Error).message})`, { cause: error });
  }
  if (!Array.isArray(jwks.keys) || jwks.keys.length === 0) throw new Error(`${path}: expected {"keys": [...]} with at least one private EC P-256 key`);
  return Promise.all(jwks.keys.map((jwk, index) => signingKey(jwk, `${path}: key ${index + 1}`)));
}

async function signingKey(jwk: JWK, where: string): Promise<SigningKey> {
  if (jwk.kty !== 'EC' || jwk.crv !== 'P-256' || typeof jwk.d !== 'string')
    throw new Error(`${where} is not a private EC P-256 key (kty "EC", crv "P-256", with "d")`);
  const { d: _private, ...publicPart } = jwk;
  const kid = jwk.kid ?? (await calculateJwkThumbprint(publicPart));
  const privateKey = await importJWK({ ...jwk, alg: 'ES256' }, 'ES256');
  if (privateKey instanceof Uint8Array) throw new Error(`${where} is not an asymmetric key`);
  const publicJwk: JWK = { kty: 'EC', crv: 'P-256', x: publicPart.x, y: publicPart.y, kid, alg: 'ES256', use: 'sig' };
  const publicKey = await importJWK(publicJwk, 'ES256');
  if (publicKey instanceof Uint8Array) throw new Error(`${where} is not an asymmetric key`);
  const sealingKey = new Uint8Array(hkdfSync('sha256', Buffer.from(jwk.d, 'base64url'), 'mirobody', 'oauth:sealed-secrets', 32));
  return { kid, privateKey, publicKey, publicJwk, sealingKey };
}

async function publishGeneratedKeys(dataDir: string, path: string): Promise<void> {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const jwk = await exportJWK(privateKey);
  publishOnce(dataDir, path, JSON.stringify({ keys: [{ ...jwk, kid: await calculateJwkThumbprint(jwk) }] }));
}
