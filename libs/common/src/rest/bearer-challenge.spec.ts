import { describe, expect, it } from '@jest/globals';
import { missingScopes } from '../caller.js';
import { bearerChallenge } from './bearer-challenge.js';

const METADATA = 'https://mcp.example.com/.well-known/oauth-protected-resource';

describe('bearerChallenge', () => {
  it('is a bare Bearer without anything to say', () => {
    expect(bearerChallenge()).toBe('Bearer');
  });

  it('names the metadata, the scopes and the error in the order RFC 6750 shows them', () => {
    expect(bearerChallenge(METADATA)).toBe(`Bearer resource_metadata="${METADATA}"`);
    expect(bearerChallenge(METADATA, { scopes: ['files:read'] })).toBe(`Bearer scope="files:read", resource_metadata="${METADATA}"`);
    expect(bearerChallenge(METADATA, { error: 'insufficient_scope', scopes: ['memory:read', 'memory:write'] })).toBe(
      `Bearer error="insufficient_scope", scope="memory:read memory:write", resource_metadata="${METADATA}"`,
    );
  });
});

describe('missingScopes', () => {
  it('is nothing for a caller not limited by scopes, or a tool that requires none', () => {
    expect(missingScopes(undefined, ['files:read'])).toEqual([]);
    expect(missingScopes({}, ['files:read'])).toEqual([]);
    expect(missingScopes({ scopes: [] }, [])).toEqual([]);
  });

  it("is what the tool requires that the caller's scopes lack", () => {
    expect(missingScopes({ scopes: [] }, ['files:read'])).toEqual(['files:read']);
    expect(missingScopes({ scopes: ['files:read', 'openid'] }, ['files:read', 'files:write'])).toEqual(['files:write']);
    expect(missingScopes({ scopes: ['files:read', 'files:write'] }, ['files:read', 'files:write'])).toEqual([]);
  });
});
