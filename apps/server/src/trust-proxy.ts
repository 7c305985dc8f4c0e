import { isIP } from 'node:net';
import { ConfigError } from '@app/common';

/** What Fastify's `trustProxy` takes from `TRUST_PROXY`: how many proxies stand in front, or which addresses they have. */
export type TrustedProxies = number | string[];

/** proxy-addr's names for address ranges, which Fastify's `trustProxy` understands as entries of its list. */
const RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * `TRUST_PROXY`: unset or empty, no proxy is trusted and the client's address is the connection's;
 * a whole number, that many proxies stand in front of every request (the address
 * `X-Forwarded-For` names that many hops back); otherwise a comma-separated list of the proxies'
 * addresses or CIDR ranges (or proxy-addr's `loopback`, `linklocal`, `uniquelocal`), and the
 * client's address is the nearest one in `X-Forwarded-For` that is not theirs. A bad entry stops
 * start-up naming it: a typo here would otherwise trust no one, or, worse, everyone.
 */
export function trustedProxies(raw: string | undefined): TrustedProxies | undefined {
  const value = raw?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    if (hops < 1 || hops > 10)
      throw new ConfigError('TRUST_PROXY', `expected a hop count from 1 to 10, got ${value} (leave TRUST_PROXY unset to trust no proxy)`);
    return hops;
  }
  return value.split(',').map((entry) => {
    const trimmed = entry.trim();
    if (!isTrustedEntry(trimmed))
      throw new ConfigError(
        'TRUST_PROXY',
        `"${trimmed}" is neither an IP address, a CIDR range (10.0.0.0/8, fd00::/8) nor loopback, linklocal or uniquelocal; expected a hop count or a comma-separated list of those`,
      );
    return trimmed;
  });
}

function isTrustedEntry(entry: string): boolean {
  if (RANGE_NAMES.has(entry)) return true;
  const [address, prefix, ...rest] = entry.split('/');
  const family = isIP(address ?? '');
  if (family === 0 || rest.length) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

/**
 * `trustedProxies`' answer as Fastify's `trustProxy` option. A hop count becomes the function
 * Fastify itself makes of a number (the nearest `hops` addresses are proxies): its types leave the
 * number out.
 */
export function fastifyTrustProxy(trusted: TrustedProxies): string[] | ((address: string, hop: number) => boolean) {
  return typeof trusted === 'number' ? (_address, hop) => hop < trusted : trusted;
}
