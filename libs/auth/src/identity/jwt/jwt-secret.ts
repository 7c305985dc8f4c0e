import { randomBytes } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AuthModuleOptions } from '../../auth.options.js';

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
  if (!existsSync(path)) publishNewSecret(dataDir, path);
  const secret = readFileSync(path, 'utf8').trim();
  if (secret.length < 32) throw new Error(`${path} holds no usable secret; delete it to have a new one generated`);
  return secret;
}

function publishNewSecret(dataDir: string, path: string): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  // Written aside, then linked into place: linking fails when the file exists, so of two processes
  // starting at once one publishes its secret whole and both read that one.
  const draft = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(draft, randomBytes(48).toString('base64url'), { mode: 0o600 });
  try {
    linkSync(draft, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    rmSync(draft, { force: true });
  }
}
