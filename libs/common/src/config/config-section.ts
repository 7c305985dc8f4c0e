import { ConfigError } from './config-error.js';

/** Raw key/value pairs as the environment (or a config file flattened like it) gives them. */
export type Env = Record<string, string | undefined>;

/** How one key is read: its default and its check. `parse` gets a non-empty string. */
export interface KeySpec<T> {
  readonly parse: (raw: string, key: string) => T;
  /** Used when the key is unset or empty. */
  readonly fallback: T;
  /** One line describing the accepted values. */
  readonly describe: string;
}

type Values<Keys extends Record<string, KeySpec<unknown>>> = { [K in keyof Keys]: Keys[K] extends KeySpec<infer T> ? T : never };

export interface ConfigSection<Options> {
  /** Every key this section reads; the app refuses any key no section declares. */
  readonly keys: readonly string[];
  readonly specs: Readonly<Record<string, KeySpec<unknown>>>;
  /** Reads, checks and converts the section's keys; throws `ConfigError` naming the first bad key. */
  load(env: Env): Options;
}

/**
 * One lib's configuration: its keys with defaults and checks, and how they become the camelCase
 * options its module's `forRoot` takes. `validate` checks rules that span keys.
 */
export function defineConfigSection<Keys extends Record<string, KeySpec<unknown>>, Options>(definition: {
  keys: Keys;
  toOptions: (values: Values<Keys>, env: Env) => Options;
  validate?: (values: Values<Keys>, env: Env) => void;
}): ConfigSection<Options> {
  return {
    keys: Object.keys(definition.keys),
    specs: definition.keys,
    load(env) {
      const values = Object.fromEntries(
        Object.entries(definition.keys).map(([key, spec]) => {
          const raw = env[key];
          return [key, raw === undefined || raw === '' ? spec.fallback : spec.parse(raw, key)];
        }),
      ) as Values<Keys>;
      definition.validate?.(values, env);
      return definition.toOptions(values, env);
    },
  };
}

export function bool(fallback: boolean): KeySpec<boolean> {
  return {
    fallback,
    describe: `true or false (default ${fallback})`,
    parse(raw, key) {
      if (raw === 'true' || raw === '1') return true;
      if (raw === 'false' || raw === '0') return false;
      throw new ConfigError(key, `expected true or false, got "${raw}"`);
    },
  };
}

export function int(fallback: number, range: { min?: number; max?: number } = {}): KeySpec<number> {
  const min = range.min ?? Number.MIN_SAFE_INTEGER;
  const max = range.max ?? Number.MAX_SAFE_INTEGER;
  return {
    fallback,
    describe: `whole number${range.min !== undefined || range.max !== undefined ? ` from ${min} to ${max}` : ''} (default ${fallback})`,
    parse(raw, key) {
      const value = Number(raw);
      if (!/^-?\d+$/.test(raw.trim()) || !Number.isSafeInteger(value) || value < min || value > max) {
        throw new ConfigError(key, `expected a whole number from ${min} to ${max}, got "${raw}"`);
      }
      return value;
    },
  };
}

/** A string; `pattern` checks it; `secret` keeps the value out of error messages. */
export function str(fallback: string, check: { pattern?: RegExp; expected?: string; secret?: boolean } = {}): KeySpec<string> {
  return {
    fallback,
    describe: fallback ? `text (default "${fallback}")` : 'text',
    parse(raw, key) {
      if (check.pattern && !check.pattern.test(raw)) {
        throw new ConfigError(key, `expected ${check.expected ?? `text matching ${check.pattern}`}${check.secret ? '' : `, got "${raw}"`}`);
      }
      return raw;
    },
  };
}

/** A string that may be left unset. */
export function optionalStr(check: { pattern?: RegExp; expected?: string; secret?: boolean } = {}): KeySpec<string | undefined> {
  const { parse } = str('', check);
  return { fallback: undefined, describe: 'text (unset by default)', parse };
}

/** A comma-separated list (a YAML list in a config file); items are trimmed and empty ones dropped. */
export function list(fallback: string[] = [], check: { item?: RegExp; expected?: string } = {}): KeySpec<string[]> {
  return {
    fallback,
    describe: `comma-separated list${fallback.length ? ` (default ${fallback.join(',')})` : ''}`,
    parse(raw, key) {
      const items = raw
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean);
      const bad = check.item ? items.find((item) => !check.item!.test(item)) : undefined;
      if (bad !== undefined) throw new ConfigError(key, `expected ${check.expected ?? `items matching ${check.item}`}, got "${bad}"`);
      return items;
    },
  };
}

export function oneOf<T extends string>(allowed: readonly T[], fallback: T): KeySpec<T> {
  return {
    fallback,
    describe: `one of ${allowed.join(', ')} (default ${fallback})`,
    parse(raw, key) {
      if (!allowed.includes(raw as T)) throw new ConfigError(key, `expected one of ${allowed.join(', ')}, got "${raw}"`);
      return raw as T;
    },
  };
}

/**
 * A duration in seconds: a whole number, or with a unit (`90s`, `15m`, `2h`, `1d`). With
 * `unitRequired`, a number other than 0 needs its unit: where `90` meant as days would delete data
 * after 90 seconds (a retention), the mistake must not start up.
 */
export function duration(fallbackSeconds: number, range: { minSeconds?: number; maxSeconds?: number; unitRequired?: boolean } = {}): KeySpec<number> {
  const units: Record<string, number> = { '': 1, s: 1, m: 60, h: 3600, d: 86400 };
  const min = range.minSeconds ?? 0;
  const max = range.maxSeconds ?? Number.MAX_SAFE_INTEGER;
  return {
    fallback: fallbackSeconds,
    describe: range.unitRequired
      ? `a number with a unit s/m/h/d, or 0 (default ${fallbackSeconds} s)`
      : `seconds, or with a unit s/m/h/d (default ${fallbackSeconds})`,
    parse(raw, key) {
      const match = /^(\d+)\s*([smhd]?)$/.exec(raw.trim());
      if (range.unitRequired && match && !match[2] && Number(match[1]) !== 0) {
        throw new ConfigError(key, `expected a unit s/m/h/d after the number (e.g. ${match[1]}d), got "${raw}": a bare number would be seconds`);
      }
      const seconds = match ? Number(match[1]) * units[match[2]!]! : NaN;
      if (!Number.isSafeInteger(seconds) || seconds < min || seconds > max) {
        throw new ConfigError(key, `expected a duration from ${min} to ${max} seconds (e.g. 90, 15m, 2h), got "${raw}"`);
      }
      return seconds;
    },
  };
}
