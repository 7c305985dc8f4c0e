import { InvalidInputError, PayloadTooLargeError } from '@app/common';
import { checkChartDrawable, checkChartOptionSize, MAX_CHART_OPTION_BYTES, seriesCount } from './chart-option.js';
import { inlineExtAppsModule } from './chart-view.js';

describe('chart option', () => {
  it('measures the option as JSON and refuses one over 256 KB naming both sizes', () => {
    expect(checkChartOptionSize({ series: [{ type: 'line', data: [1, 2] }] })).toBe(41);
    const big = { series: [{ type: 'line', data: 'x'.repeat(MAX_CHART_OPTION_BYTES) }] };
    expect(() => checkChartOptionSize(big)).toThrow(PayloadTooLargeError);
    expect(() => checkChartOptionSize(big)).toThrow(/262\d{3} bytes .* 262144/);
  });

  it.each([
    ['a line series without axes', { series: [{ type: 'line', data: [1, 2] }] }, 'xAxis "0" not found'],
    [
      'a series type ECharts does not know',
      {
        series: [
          { type: 'pie', data: [] },
          { type: 'linee', data: [1] },
        ],
      },
      'Unknown series linee',
    ],
    ['a map no one registered', { series: { type: 'map', map: 'world', data: [] } }, 'Map world not exists'],
  ])('refuses %s, with what ECharts says about it, and leaves the console alone', async (_case, option, says) => {
    const { warn, error } = console;
    const checking = checkChartDrawable(option);
    await expect(checking).rejects.toThrow(InvalidInputError);
    await expect(checking).rejects.toThrow(says);
    expect([console.warn, console.error]).toEqual([warn, error]);
  });

  it('passes options ECharts can draw', async () => {
    await expect(
      checkChartDrawable({ xAxis: { type: 'category', data: ['Mon', 'Tue'] }, yAxis: {}, series: [{ type: 'bar', data: [1, 2] }] }),
    ).resolves.toBeUndefined();
    await expect(checkChartDrawable({ series: { type: 'pie', data: [{ name: 'a', value: 1 }] } })).resolves.toBeUndefined();
  });

  it('counts one series object or a list', () => {
    expect(seriesCount({ series: { type: 'pie' } })).toBe(1);
    expect(seriesCount({ series: [{ type: 'bar' }, { type: 'line' }] })).toBe(2);
  });
});

describe('inlineExtAppsModule', () => {
  it("turns the bundle's export clause into a local object", () => {
    expect(inlineExtAppsModule('var a=1,b=2;export{a as App,b};')).toBe('var a=1,b=2;\nconst McpApps = { "App": a, "b": b };\n');
  });

  it('stops with a clear error when the bundle changes shape', () => {
    expect(() => inlineExtAppsModule('module.exports = {}')).toThrow(/inlineExtAppsModule/);
  });
});
