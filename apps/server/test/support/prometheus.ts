/** One sample of a scrape: its name (`_bucket`, `_count`... included), labels and value. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Scrape {
  /** Each family's declared type, by family name. */
  types: Map<string, string>;
  samples: Sample[];
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/y;

function parseLabels(text: string, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  let position = 0;
  while (position < text.length) {
    LABEL.lastIndex = position;
    const match = LABEL.exec(text);
    if (!match) throw new Error(`Bad labels in: ${line}`);
    if (match[1]! in labels) throw new Error(`Label ${match[1]} twice in: ${line}`);
    labels[match[1]!] = match[2]!.replace(/\\(.)/g, (_, escaped: string) => (escaped === 'n' ? '\n' : escaped));
    position = LABEL.lastIndex;
    if (text[position] === ',') position++;
  }
  return labels;
}

/** A sample's value as Prometheus reads it (Go's `ParseFloat`: NaN and Inf in any case, prom-client writes `Nan`). */
function parseValue(text: string): number | undefined {
  const special = /^([+-]?)(inf|infinity|nan)$/i.exec(text);
  if (special) return special[2]!.toLowerCase() === 'nan' ? NaN : special[1] === '-' ? -Infinity : Infinity;
  const value = Number(text);
  return text.trim() === '' || Number.isNaN(value) ? undefined : value;
}

/** The family a sample belongs to: a histogram's `_bucket`, `_sum` and `_count` belong to it. */
function familyOf(name: string, types: Map<string, string>): string | undefined {
  if (types.has(name)) return name;
  const base = name.replace(/_(bucket|sum|count)$/, '');
  return types.get(base) === 'histogram' || types.get(base) === 'summary' ? base : undefined;
}

/**
 * Parses the Prometheus text exposition format (0.0.4) strictly: every line a `# HELP`, a
 * `# TYPE` before its family's samples, or a sample of a declared family with a numeric value;
 * each histogram's buckets cumulative, ending in `+Inf` equal to its `_count`. Throws naming the line.
 */
export function parsePrometheus(text: string): Scrape {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const comment = /^# (HELP|TYPE) (\S+) (.*)$/.exec(line);
    if (comment) {
      if (!METRIC_NAME.test(comment[2]!)) throw new Error(`Bad metric name: ${line}`);
      if (comment[1] === 'TYPE') {
        if (!['counter', 'gauge', 'histogram', 'summary', 'untyped'].includes(comment[3]!)) throw new Error(`Bad type: ${line}`);
        if (types.has(comment[2]!)) throw new Error(`Family declared twice: ${line}`);
        types.set(comment[2]!, comment[3]!);
      }
      continue;
    }
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!sample) throw new Error(`Not a sample: ${line}`);
    const value = parseValue(sample[3]!);
    if (value === undefined) throw new Error(`Bad value: ${line}`);
    if (!familyOf(sample[1]!, types)) throw new Error(`Sample of an undeclared family: ${line}`);
    samples.push({ name: sample[1]!, labels: sample[2] ? parseLabels(sample[2], line) : {}, value });
  }
  checkHistograms(types, samples);
  return { types, samples };
}

function checkHistograms(types: Map<string, string>, samples: Sample[]): void {
  for (const [family, type] of types) {
    if (type !== 'histogram') continue;
    const series = new Map<string, number[]>();
    for (const sample of samples.filter((entry) => entry.name === `${family}_bucket`)) {
      const { le, ...rest } = sample.labels;
      const key = JSON.stringify(rest);
      series.set(key, [...(series.get(key) ?? []), sample.value]);
      if (le === '+Inf') {
        const count = samples.find((entry) => entry.name === `${family}_count` && JSON.stringify(entry.labels) === key);
        if (count?.value !== sample.value) throw new Error(`${family}${key}: +Inf bucket ${sample.value}, count ${count?.value}`);
      }
    }
    for (const [key, buckets] of series) {
      if (buckets.some((value, index) => index > 0 && value < buckets[index - 1]!)) throw new Error(`${family}${key}: buckets not cumulative`);
    }
  }
}

/** The value of the one sample named `name` whose labels include `labels`; 0 when none (a series not yet seen). */
export function valueOf(scrape: Scrape, name: string, labels: Record<string, string> = {}): number {
  const matching = scrape.samples.filter((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value));
  if (matching.length > 1) throw new Error(`${matching.length} series of ${name} match ${JSON.stringify(labels)}`);
  return matching[0]?.value ?? 0;
}

/** The sum over every sample named `name` whose labels include `labels`. */
export function sumOf(scrape: Scrape, name: string, labels: Record<string, string> = {}): number {
  return scrape.samples
    .filter((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value))
    .reduce((sum, sample) => sum + sample.value, 0);
}
