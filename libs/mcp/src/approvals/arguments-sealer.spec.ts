import { randomBytes } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { argumentsDigest, ArgumentsSealer } from './arguments-sealer.js';

const ID = '5f0c7a52-9d3e-4f0a-8a43-0e6f9d1c2b7a';
const OTHER_ID = '0b8e2f61-3c4d-4e5f-9a6b-7c8d9e0f1a2b';

describe('ArgumentsSealer', () => {
  const sealer = new ArgumentsSealer(randomBytes(32));

  it('seals arguments so that their text is not in the sealed value, and opens them for their request', () => {
    const sealed = sealer.seal(ID, { record: 'blood test of 3 May', to: 'clinic' });
    expect(sealed).toMatch(/^v1\.[\w-]+$/);
    expect(sealed).not.toContain('blood');
    expect(sealer.open(ID, sealed)).toEqual({ record: 'blood test of 3 May', to: 'clinic' });
  });

  it('opens nothing for another request, under another key, or altered', () => {
    const sealed = sealer.seal(ID, { to: 'clinic' });
    expect(sealer.open(OTHER_ID, sealed)).toBeUndefined();
    expect(new ArgumentsSealer(randomBytes(32)).open(ID, sealed)).toBeUndefined();
    const flipped = `${sealed.slice(0, -2)}${sealed.endsWith('A') ? 'B' : 'A'}${sealed.slice(-1)}`;
    expect(sealer.open(ID, flipped)).toBeUndefined();
    expect(sealer.open(ID, 'v2.anything')).toBeUndefined();
  });

  it('refuses a key that is not 32 bytes', () => {
    expect(() => new ArgumentsSealer(randomBytes(16))).toThrow('The arguments key must be 32 bytes');
  });
});

describe('argumentsDigest', () => {
  it('is the same whatever the order of the keys, and differs for other values', () => {
    expect(argumentsDigest({ a: 1, b: { c: [1, 2], d: 'x' } })).toBe(argumentsDigest({ b: { d: 'x', c: [1, 2] }, a: 1 }));
    expect(argumentsDigest({ a: 1 })).not.toBe(argumentsDigest({ a: 2 }));
    expect(argumentsDigest({ a: 1 })).toMatch(/^sha256:[\da-f]{64}$/);
  });
});
