import { validateHostHeader, validateOriginHeader } from '@modelcontextprotocol/server';

/** Distinct Host/Origin pairs remembered; a flood of made-up ones only clears the memory, never grows it. */
const MAX_REMEMBERED = 256;

/**
 * The SDK's DNS-rebinding checks (Host, then Origin, against the allowed host names), remembered
 * per Host/Origin pair: a deployment sees a handful of pairs, and parsing them as URLs on every
 * request cost more than the rest of the check.
 */
export class RebindingVerdicts {
  /** Refusal message per pair; `null` for an accepted pair. */
  private readonly verdicts = new Map<string, string | null>();

  constructor(private readonly allowedHostnames: () => string[]) {}

  /** The last pair asked about and its verdict: under load one client's pair comes again and again. */
  private last?: { host: string | undefined; origin: string | undefined; verdict: string | null };

  /** `undefined` when the pair is accepted, else the SDK's refusal message. */
  verdict(host: string | undefined, origin: string | undefined): string | undefined {
    const last = this.last;
    if (last !== undefined && last.host === host && last.origin === origin) return last.verdict ?? undefined;
    const key = `${host ?? '\u0000'}\u0001${origin ?? '\u0000'}`;
    let verdict = this.verdicts.get(key);
    if (verdict === undefined) {
      verdict = this.check(host, origin);
      if (this.verdicts.size >= MAX_REMEMBERED) this.verdicts.clear();
      this.verdicts.set(key, verdict);
    }
    this.last = { host, origin, verdict };
    return verdict ?? undefined;
  }

  private check(host: string | undefined, origin: string | undefined): string | null {
    const allowed = this.allowedHostnames();
    const hostVerdict = validateHostHeader(host, allowed);
    const originVerdict = hostVerdict.ok ? validateOriginHeader(origin, allowed) : hostVerdict;
    return originVerdict.ok ? null : originVerdict.message;
  }
}
