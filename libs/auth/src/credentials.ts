import { createHash, randomBytes } from 'node:crypto';
import { BadRequestException, UnauthorizedException } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';

/**
 * Personal MCP secrets start with this, so that a leaked one is recognisable (secret scanners,
 * log reviews) and so that a bearer token is told apart from a JWT without trying both.
 */
export const SECRET_PREFIX = 'mrb_sk_';

/** 32 random bytes (256 bits), base64url: 50 characters with the prefix. */
export function generateSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64url');
}

/**
 * Only this hash is stored. A plain SHA-256 suffices because the secret is 256 random bits:
 * a slow, salted hash (bcrypt, argon2) protects guessable passwords, and nothing about a random
 * 256-bit value is guessable. An unsalted hash also lets the secret be looked up by an index
 * on the hash, with no per-secret id in the token.
 */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

const MCP_SECRET_ROUTE = '/mcp/:secret';

export type PresentedCredential = { kind: 'jwt' | 'secret'; token: string };
/** What a request is counted by in the rate limits: a bearer credential, or the web console's session cookie. */
export type CountedCredential = PresentedCredential | { kind: 'console'; token: string };

/**
 * The credential a request carries: `Authorization: Bearer <token>`, or a secret in the path of
 * `/mcp/<secret>` for clients that can only be given a URL. `undefined` when there is none.
 */
export function presentedCredential(request: FastifyRequest): PresentedCredential | undefined {
  if (credentialsRead.has(request)) return credentialsRead.get(request);
  const credential = readCredential(request);
  credentialsRead.set(request, credential);
  return credential;
}

/** Each request's credential, read once: the rate limit, the caller resolver and the strategy each ask for it. */
const credentialsRead = new WeakMap<FastifyRequest, PresentedCredential | undefined>();

function readCredential(request: FastifyRequest): PresentedCredential | undefined {
  // Only the MCP route takes a secret in its path; a `:secret` parameter of another route is no credential.
  // `/mcp/` (an empty secret) is the endpoint spelled with a trailing slash, not a credential.
  // `/mcp` itself, as nearly every call spells it, is no secret route: no routing lookup (`routeOptions` builds an object per read).
  const secretRoute = request.url !== '/mcp' && request.routeOptions?.url === MCP_SECRET_ROUTE;
  const fromPath = secretRoute ? (request.params as { secret?: string }).secret || undefined : undefined;
  const authorization = request.headers.authorization;
  // Node keeps the first of repeated Authorization headers and drops the others; a proxy in front may
  // have checked another one, so which credential speaks for the caller is not ours to pick.
  if (authorization !== undefined && repeatsAuthorization(request.raw.rawHeaders))
    throw new BadRequestException('More than one Authorization header: send one');
  const fromHeader = bearerToken(authorization);
  // Two different credentials would leave it open which one speaks for the caller.
  if (fromPath && fromHeader && fromPath !== fromHeader) throw new UnauthorizedException('Two different credentials: send either the header or the secret URL');
  const token = fromPath ?? fromHeader;
  if (token === undefined) return undefined;
  return { kind: fromPath || token.startsWith(SECRET_PREFIX) ? 'secret' : 'jwt', token };
}

function repeatsAuthorization(rawHeaders: string[]): boolean {
  let seen = 0;
  for (let index = 0; index < rawHeaders.length; index += 2) {
    if (rawHeaders[index]!.length === 13 && rawHeaders[index]!.toLowerCase() === 'authorization' && ++seen > 1) return true;
  }
  return false;
}

function bearerToken(authorization: string | undefined): string | undefined {
  if (authorization === undefined) return undefined;
  const match = /^Bearer +(\S+) *$/i.exec(authorization);
  // Another scheme (Basic, ...) is a credential we cannot check; anonymous would hide the mistake.
  if (!match) throw new UnauthorizedException('Unsupported Authorization header: send "Bearer <token>"');
  return match[1];
}

/** A key for a credential that does not keep the credential itself (rate-limit counters may live in Redis). */
export function credentialKey(credential: CountedCredential): string {
  return hashSecret(credential.token).slice(0, 32);
}
