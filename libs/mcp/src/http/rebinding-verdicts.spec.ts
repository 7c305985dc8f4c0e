import { describe, expect, it } from '@jest/globals';
import { localhostAllowedHostnames, validateHostHeader, validateOriginHeader } from '@modelcontextprotocol/server';
import { RebindingVerdicts } from './rebinding-verdicts.js';

const allowed = localhostAllowedHostnames();

/** The SDK's own answer, which the remembered one must equal. */
function sdkVerdict(host: string | undefined, origin: string | undefined): string | undefined {
  const hostVerdict = validateHostHeader(host, allowed);
  const verdict = hostVerdict.ok ? validateOriginHeader(origin, allowed) : hostVerdict;
  return verdict.ok ? undefined : verdict.message;
}

const PAIRS: [string | undefined, string | undefined][] = [
  ['localhost:18080', undefined],
  ['127.0.0.1:18080', 'http://localhost:3000'],
  ['[::1]:18080', undefined],
  ['evil.example', undefined],
  ['localhost:18080', 'http://evil.example'],
  ['localhost:18080', 'null'],
  [undefined, undefined],
  ['local host', undefined],
  ['LOCALHOST', undefined],
];

describe('RebindingVerdicts', () => {
  it.each(PAIRS)('host %p, origin %p: the SDK verdict, first and when remembered', (host, origin) => {
    const verdicts = new RebindingVerdicts(() => allowed);
    expect(verdicts.verdict(host, origin)).toBe(sdkVerdict(host, origin));
    expect(verdicts.verdict(host, origin)).toBe(sdkVerdict(host, origin));
  });

  it('keeps pairs apart: an accepted Host does not vouch for a foreign Origin', () => {
    const verdicts = new RebindingVerdicts(() => allowed);
    expect(verdicts.verdict('localhost', undefined)).toBeUndefined();
    expect(verdicts.verdict('localhost', 'http://evil.example')).toMatch(/origin/i);
    expect(verdicts.verdict('localhost', undefined)).toBeUndefined();
  });

  it('stays bounded under a flood of made-up Host headers and still answers right', () => {
    const verdicts = new RebindingVerdicts(() => allowed);
    for (let index = 0; index < 2000; index++) expect(verdicts.verdict(`h${index}.example`, undefined)).toMatch(/Invalid Host/);
    expect((verdicts as unknown as { verdicts: Map<string, unknown> }).verdicts.size).toBeLessThanOrEqual(256);
    expect(verdicts.verdict('localhost', undefined)).toBeUndefined();
  });
});
