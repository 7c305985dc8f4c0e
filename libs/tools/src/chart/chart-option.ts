import type { JsonSchema } from '@app/mcp';
import { InvalidInputError, PayloadTooLargeError } from '@app/common';

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

/** ECharts, loaded with the first chart: it takes most of a second and some 40 MB, which a server that draws none does not pay. */
let echartsLoaded: Promise<typeof import('echarts')> | undefined;

/**
 * Builds the chart's model with the ECharts the view draws with (the same package, here without
 * rendering): a series type ECharts does not know, a line or bar series without axes, a map no one
 * registered fail here as they would in the user's chat, where the model would never hear of it and
 * would report a chart the user cannot see. ECharts writes some problems to the console instead of
 * throwing; those lines, caught while the model is built (synchronously), are the error's message.
 */
export async function checkChartDrawable(option: Record<string, unknown>): Promise<void> {
  const echarts = await (echartsLoaded ??= import('echarts'));
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width: 800, height: 500 });
  const said: string[] = [];
  const { warn, error } = console;
  console.warn = console.error = (...parts: unknown[]) => said.push(parts.map(String).join(' '));
  let problem: string | undefined;
  try {
    chart.setOption(option, { lazyUpdate: true });
    // A series of a type ECharts does not know is left out of its model.
    const modelled = (chart.getOption().series as unknown[] | undefined)?.length ?? 0;
    const missing = seriesCount(option as { series: unknown }) - modelled;
    if (missing > 0) problem = said.join('; ') || `${missing} of its series cannot be drawn`;
  } catch (thrown) {
    problem = [...said, thrown instanceof Error ? thrown.message : String(thrown)].join('; ');
  } finally {
    console.warn = warn;
    console.error = error;
    chart.dispose();
  }
  if (problem) throw new InvalidInputError(`option cannot be drawn by ECharts: ${problem}`, { option: problem });
}
