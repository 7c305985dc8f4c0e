import { describe, expect, it } from '@jest/globals';
import { takeHandedOverResult, withHandedOverResult } from './handed-over-result.js';

describe('a handed-over result', () => {
  const result = { content: [{ type: 'text' as const, text: 'made once' }] };
  const callers = { token: 't', clientId: 'u1', scopes: [], extra: { caller: { userId: 'u1' }, agent: 'cursor' } };

  it("travels in the exchange's own AuthInfo, beside the caller, and is taken once", () => {
    const carrier = withHandedOverResult(callers, 'u1', result);
    expect(carrier.extra).toMatchObject({ caller: { userId: 'u1' }, agent: 'cursor' });
    expect(takeHandedOverResult(carrier)).toBe(result);
    expect(takeHandedOverResult(carrier)).toBeUndefined();
  });

  it('is absent from any other AuthInfo, the original caller’s included', () => {
    withHandedOverResult(callers, 'u1', result);
    expect(takeHandedOverResult(callers)).toBeUndefined();
    expect(takeHandedOverResult(undefined)).toBeUndefined();
    expect(takeHandedOverResult({ ...callers, extra: { handedOver: result } })).toBeUndefined();
  });
});
