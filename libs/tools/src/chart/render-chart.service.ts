import { Injectable } from '@nestjs/common';
import type { ReadResourceResult } from '@modelcontextprotocol/server';
import { RESOURCE_MIME_TYPE, RESOURCE_URI_META_KEY } from '@modelcontextprotocol/ext-apps/server';
import { Arg, McpResource, McpTool, ok, type ToolResult } from '@app/mcp';
import { CHART_OPTION_SCHEMA, checkChartDrawable, checkChartOptionSize, seriesCount } from './chart-option.js';
import { CHART_VIEW_URI, chartViewHtml } from './chart-view.js';

/**
 * Charts drawn by the host. The option travels to the host as the call's arguments, so the result stays a short
 * confirmation and the model's context is not filled with the data a second time. Hosts that support MCP Apps load
 * the view the tool's `_meta.ui.resourceUri` names and hand it the arguments.
 */
@Injectable()
export class RenderChartService {
  /**
   * Draw a chart in the user's chat with Apache ECharts. Pass a complete ECharts option object; it
   * must have a non-empty "series" whose entries each have a "type" (line and bar series need xAxis
   * and yAxis). The option is checked with ECharts before the chart is shown to the user; the
   * result only confirms it.
   */
  @McpTool({
    annotations: { title: 'Render chart', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    // Both spellings, as ext-apps' registerAppTool writes them, so older hosts find the view too.
    meta: { ui: { resourceUri: CHART_VIEW_URI }, [RESOURCE_URI_META_KEY]: CHART_VIEW_URI },
  })
  async renderChart(
    @Arg('option', {
      type: 'object',
      description:
        'A full Apache ECharts option, e.g. {"xAxis":{"type":"category","data":["Mon","Tue"]},"yAxis":{"type":"value"},"series":[{"type":"line","data":[70.1,70.4]}]} (at most 256 KB as JSON)',
      schema: CHART_OPTION_SCHEMA,
    })
    option: Record<string, unknown> & { series: unknown },
    @Arg('title', { description: 'A short caption shown with the chart', optional: true, schema: { maxLength: 200 } }) title?: string,
  ): Promise<ToolResult<{ shown: true; series_count: number; title: string | null }>> {
    checkChartOptionSize(option);
    await checkChartDrawable(option);
    return ok({ shown: true, series_count: seriesCount(option), title: title ?? null });
  }

  @McpResource({
    uri: CHART_VIEW_URI,
    name: 'render-chart-view',
    title: 'Chart view',
    description: "The MCP Apps view that draws render_chart's option with ECharts (bundled; no network access needed).",
    mimeType: RESOURCE_MIME_TYPE,
  })
  chartView(uri: string): ReadResourceResult {
    return { contents: [{ uri, mimeType: RESOURCE_MIME_TYPE, text: chartViewHtml() }] };
  }
}
