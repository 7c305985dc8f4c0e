import { ConfigError } from './config-error.js';
import { bool, defineConfigSection, duration, int, list, oneOf, optionalStr, str } from './config-section.js';

const section = defineConfigSection({
  keys: {
    DEMO_ENABLED: bool(true),
    DEMO_TOP_K: int(5, { min: 1, max: 50 }),
    DEMO_MODE: oneOf(['fast', 'exact'] as const, 'fast'),
    DEMO_NAME: str('demo', { pattern: /^[a-z]+$/, expected: 'lower-case letters' }),
    DEMO_TOKEN: optionalStr({ pattern: /^.{8,}$/, expected: 'at least 8 characters', secret: true }),
    DEMO_TAGS: list([], { item: /^\w+$/, expected: 'words' }),
    DEMO_TTL: duration(3600, { minSeconds: 1 }),
  },
  toOptions: (v) => ({
    enabled: v.DEMO_ENABLED,
    topK: v.DEMO_TOP_K,
    mode: v.DEMO_MODE,
    name: v.DEMO_NAME,
    token: v.DEMO_TOKEN,
    tags: v.DEMO_TAGS,
    ttlSeconds: v.DEMO_TTL,
  }),
  validate: (v) => {
    if (v.DEMO_MODE === 'exact' && v.DEMO_TOP_K > 10) throw new ConfigError('DEMO_TOP_K', 'at most 10 in exact mode');
  },
});

describe('defineConfigSection', () => {
  it('lists its keys and gives defaults for unset or empty ones', () => {
    expect(section.keys).toEqual(['DEMO_ENABLED', 'DEMO_TOP_K', 'DEMO_MODE', 'DEMO_NAME', 'DEMO_TOKEN', 'DEMO_TAGS', 'DEMO_TTL']);
    expect(section.load({ DEMO_TOP_K: '' })).toEqual({ enabled: true, topK: 5, mode: 'fast', name: 'demo', token: undefined, tags: [], ttlSeconds: 3600 });
  });

  it('converts set values', () => {
    expect(
      section.load({
        DEMO_ENABLED: '0',
        DEMO_TOP_K: '7',
        DEMO_MODE: 'exact',
        DEMO_NAME: 'abc',
        DEMO_TOKEN: 'longenough',
        DEMO_TAGS: 'a, b,,c',
        DEMO_TTL: '15m',
      }),
    ).toEqual({
      enabled: false,
      topK: 7,
      mode: 'exact',
      name: 'abc',
      token: 'longenough',
      tags: ['a', 'b', 'c'],
      ttlSeconds: 900,
    });
  });

  it.each([
    ['DEMO_ENABLED', 'yes', 'expected true or false, got "yes"'],
    ['DEMO_TOP_K', '51', 'expected a whole number from 1 to 50, got "51"'],
    ['DEMO_TOP_K', '2.5', 'expected a whole number from 1 to 50, got "2.5"'],
    ['DEMO_MODE', 'slow', 'expected one of fast, exact, got "slow"'],
    ['DEMO_NAME', 'ABC', 'expected lower-case letters, got "ABC"'],
    ['DEMO_TOKEN', 'short', 'expected at least 8 characters'],
    ['DEMO_TAGS', 'a,b c', 'expected words, got "b c"'],
    ['DEMO_TTL', '10 years', 'expected a duration from 1 to'],
  ])('refuses %s=%s naming the key', (key, value, problem) => {
    expect(() => section.load({ [key]: value })).toThrow(new RegExp(`^Invalid configuration ${key}: ${problem.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  });

  it('takes a bare number as seconds, unless the duration requires its unit', () => {
    const retention = duration(86400, { unitRequired: true });
    expect(duration(60).parse('90', 'DEMO_TTL')).toBe(90);
    expect(retention.parse('90d', 'DEMO_RETENTION')).toBe(90 * 86400);
    expect(retention.parse('0', 'DEMO_RETENTION')).toBe(0);
    expect(() => retention.parse('90', 'DEMO_RETENTION')).toThrow(
      'Invalid configuration DEMO_RETENTION: expected a unit s/m/h/d after the number (e.g. 90d), got "90": a bare number would be seconds',
    );
  });

  it('never echoes a secret value', () => {
    expect(() => section.load({ DEMO_TOKEN: 'short' })).toThrow(expect.objectContaining({ message: expect.not.stringContaining('"short"') }));
  });

  it('runs the cross-key check', () => {
    expect(() => section.load({ DEMO_MODE: 'exact', DEMO_TOP_K: '20' })).toThrow('Invalid configuration DEMO_TOP_K: at most 10 in exact mode');
  });
});
