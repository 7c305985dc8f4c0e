import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AuthModuleOptions } from '../../auth.options.js';
import { publishOnce } from '../publish-once.js';

export const GENERATED_SECRET_FILE = 'jwt-secret';

/** How tokens are checked: with a shared HS256 secret, or with the identity provider's published keys. */
export type JwtKeySource = { mode: 'hs256'; secret: Uint8Array; generated: boolean } | { mode: 'jwks'; url: URL };

/**
 * The configured key, else a secret generated once and kept in `DATA_DIR/jwt-secret` (mode 0600),
 * so that a first start needs no set-up and the CLI signs with what the server verifies.
 * Production refuses to get here without a configured key (see the server's config validation).
 */
export function jwtKeySource(options: Pick<AuthModuleOptions, 'jwtSecret' | 'jwksUrl' | 'dataDir'>): JwtKeySource {
  if (options.jwksUrl) return { mode: 'jwks', url: new URL(options.jwksUrl) };
  if (options.jwtSecret) return { mode: 'hs256', secret: new TextEncoder().encode(options.jwtSecret), generated: false };
  return { mode: 'hs256', secret: new TextEncoder().encode(generatedSecret(options.dataDir)), generated: true };
}

function generatedSecret(dataDir: string): string {
  const path = join(dataDir, GENERATED_SECRET_FILE);
  if (!existsSync(path)) publishOnce(dataDir, path, randomBytes(48).toString('base64url'));
  const secret = readFileSync(path, 'utf8').trim();
  if (secret.length < 32) throw new Error(`${path} holds no usable secret; delete it to have a new one generated`);
  return secret;
}
