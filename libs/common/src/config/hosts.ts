import { isIPv4 } from 'node:net';
/** A host name or address that reaches only this machine. */
/** `localhost`, `::1`, or an IPv4 literal in 127.0.0.0/8: never a name that merely starts with `127.` (`127.attacker.example`). */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || (isIPv4(host) && host.startsWith('127.'));
}

/** `URL.parse` arrives only in Node 22. */
export function parseUrl(raw: string): URL | undefined {
  try {
    return new URL(raw);
  } catch {
    return undefined;
  }
}
