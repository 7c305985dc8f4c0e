import type { JsonSchema } from '@app/mcp';
import { PayloadTooLargeError } from '@app/common';

/** The largest option accepted, measured as JSON: beyond it a host would struggle and a model has sent data, not a chart. */
export const MAX_CHART_OPTION_BYTES = 256 * 1024;

const SERIES_ENTRY: JsonSchema = {
  type: 'object',
  required: ['type'],
  properties: { type: { type: 'string', minLength: 1, description: 'ECharts series type: line, bar, pie, scatter, ...' } },
};

/**
 * What an ECharts option must have for anything to be drawn: a series (ECharts takes one object or a non-empty list),
 * each with a type. The rest of the option is ECharts' business and passes through untouched.
 */
export const CHART_OPTION_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['series'],
  properties: { series: { anyOf: [{ type: 'array', minItems: 1, items: SERIES_ENTRY }, SERIES_ENTRY] } },
};

/** The option's size as the host will receive it; refuses one over the limit naming both sizes. */
export function checkChartOptionSize(option: Record<string, unknown>): number {
  const bytes = Buffer.byteLength(JSON.stringify(option), 'utf8');
  if (bytes > MAX_CHART_OPTION_BYTES) {
    throw new PayloadTooLargeError(`option is ${bytes} bytes as JSON; the limit is ${MAX_CHART_OPTION_BYTES} (256 KB): send fewer points or aggregate them`);
  }
  return bytes;
}

export const seriesCount = (option: { series: unknown }): number => (Array.isArray(option.series) ? option.series.length : 1);
