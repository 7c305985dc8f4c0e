import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import { chartViewHtml } from './chart-view.js';

/** Debian's package; `.ci/run` installs it. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Where Chromium is missing the test is skipped, saying why; in CI (`CI=true`), which installs it, it runs (and fails without it). */
function describeWithChromium(): typeof describe | typeof describe.skip {
  if (process.env.CI === 'true' || existsSync(CHROMIUM)) return describe;
  process.stderr.write(`Skipping the chart view's browser test: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH).\n`);
  return describe.skip;
}
const ARTIFACTS = join(process.cwd(), 'test-artifacts');

const SAMPLE_ARGUMENTS = {
  title: 'Resting heart rate',
  option: {
    animation: false,
    xAxis: { type: 'category', data: ['Mon', 'Tue', 'Wed', 'Thu', 'Fri'] },
    yAxis: { type: 'value' },
    series: [
      { type: 'line', data: [62, 64, 61, 66, 63] },
      { type: 'bar', data: [58, 60, 57, 62, 59] },
    ],
  },
};

/**
 * Plays the host's side of MCP Apps in the page: the view in a sandboxed iframe, answering its `ui/initialize`
 * and, once it reports `ui/notifications/initialized`, sending the tool call's arguments as `ui/notifications/tool-input`.
 */
function hostTheView([html, toolArguments]: readonly [string, unknown]): Promise<void> {
  return new Promise((resolve) => {
    const frame = document.createElement('iframe');
    frame.setAttribute('sandbox', 'allow-scripts');
    frame.style.cssText = 'width: 800px; height: 480px; border: 0';
    window.addEventListener('message', (event: MessageEvent) => {
      if (event.source !== frame.contentWindow) return;
      const message = event.data as { id?: number; method?: string };
      const reply = (result: unknown) => frame.contentWindow!.postMessage({ jsonrpc: '2.0', id: message.id, result }, '*');
      if (message.method === 'ui/initialize') {
        reply({ protocolVersion: '2026-01-26', hostInfo: { name: 'test-host', version: '1.0.0' }, hostCapabilities: {}, hostContext: { theme: 'light' } });
      } else if (message.method === 'ui/notifications/initialized') {
        frame.contentWindow!.postMessage({ jsonrpc: '2.0', method: 'ui/notifications/tool-input', params: { arguments: toolArguments } }, '*');
        resolve();
      } else if (message.id !== undefined && message.method) {
        reply({});
      }
    });
    frame.srcdoc = html;
    document.body.appendChild(frame);
  });
}

describeWithChromium()('render_chart view in headless Chromium', () => {
  let browser: Browser;

  beforeAll(async () => {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  });

  afterAll(async () => {
    await browser?.close();
  });

  it('draws the option a host delivers as tool input, with no network access', async () => {
    const page = await browser.newPage({ viewport: { width: 820, height: 500 } });
    const requests: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith('about:') && !request.url().startsWith('data:')) requests.push(request.url());
    });
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.setContent('<!doctype html><html><body style="margin:0"></body></html>');
    await page.evaluate(hostTheView, [chartViewHtml(), SAMPLE_ARGUMENTS] as const);
    const view = page.frames().find((frame) => frame !== page.mainFrame())!;
    await view.waitForSelector('body[data-state="drawn"]', { timeout: 15_000 });

    const painted = await view.evaluate(() => {
      const canvas = document.querySelector<HTMLCanvasElement>('#chart canvas');
      if (!canvas) return { width: 0, height: 0, paintedPixels: 0, title: '' };
      const { data } = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height);
      let paintedPixels = 0;
      for (let alpha = 3; alpha < data.length; alpha += 4) if (data[alpha]! > 0) paintedPixels++;
      return { width: canvas.width, height: canvas.height, paintedPixels, title: document.getElementById('title')!.textContent };
    });
    expect(painted.width).toBeGreaterThan(0);
    expect(painted.height).toBeGreaterThan(0);
    expect(painted.paintedPixels).toBeGreaterThan(1000);
    expect(painted.title).toBe('Resting heart rate');
    expect(pageErrors).toEqual([]);
    expect(requests).toEqual([]);

    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'render-chart.png') });
  });

  it('is served as one MCP Apps HTML document', () => {
    expect(RESOURCE_MIME_TYPE).toBe('text/html;profile=mcp-app');
    expect(chartViewHtml()).toMatch(/^<!doctype html>/);
    expect(chartViewHtml()).not.toMatch(/<script[^>]+src=/);
  });
});
