import { describe, expect, it } from '@jest/globals';
import { redactSecretPath } from './logging.js';

describe('redactSecretPath', () => {
  it('hides the secret of /mcp/<secret> and leaves other paths alone', () => {
    expect(redactSecretPath('/mcp/mrb_sk_abc?x=1')).toBe('/mcp/[redacted]?x=1');
    expect(redactSecretPath('/mcp/mrb_sk_abc')).toBe('/mcp/[redacted]');
    expect(redactSecretPath('/mcp')).toBe('/mcp');
    expect(redactSecretPath('/api/mcp-secrets/1')).toBe('/api/mcp-secrets/1');
  });
});
