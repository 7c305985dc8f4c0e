import { describe, expect, it } from '@jest/globals';
import { Metrics } from './metrics.js';

describe('Metrics', () => {
  it('records nothing and registers no gauge when not served', async () => {
    const metrics = new Metrics(false);
    metrics.toolCall('echo', 'ok');
    metrics.gauge('a_gauge', 'read on scrape', () => 1);
    const text = await metrics.scrape();
    expect(text).not.toContain('mcp_tool_calls_total{');
    expect(text).not.toContain('a_gauge');
    expect(text).not.toContain('process_cpu');
  });

  it('reads gauges when scraped, with one series per label value', async () => {
    const metrics = new Metrics(true);
    let running = 2;
    metrics.gauge('work_items', 'items', () => ({ running, waiting: 5 }), 'state');
    expect(await metrics.scrape()).toContain('work_items{state="running"} 2');
    running = 3;
    const text = await metrics.scrape();
    expect(text).toContain('work_items{state="running"} 3');
    expect(text).toContain('work_items{state="waiting"} 5');
  });

  it('keeps each instance in a registry of its own', async () => {
    const [first, second] = [new Metrics(true), new Metrics(true)];
    first.toolCall('echo', 'ok');
    expect(await first.scrape()).toContain('mcp_tool_calls_total{gen_ai_tool_name="echo",outcome="ok"} 1');
    expect(await second.scrape()).not.toContain('gen_ai_tool_name="echo"');
  });
});
