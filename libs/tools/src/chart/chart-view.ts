import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/** Where the MCP Apps host finds the chart view; `render_chart`'s `_meta.ui.resourceUri` points here. */
export const CHART_VIEW_URI = 'ui://mirobody/render-chart.html';

const require = createRequire(import.meta.url);
const packageFile = (specifier: string) => readFileSync(require.resolve(specifier), 'utf8');

/** Inline scripts must not close their own element early; `<\/` means the same to JavaScript. */
const inlineScript = (source: string) => source.replace(/<\/(script)/gi, '<\\/$1');

/**
 * The ext-apps `App` (ESM, with its dependencies bundled) ends in one `export{local as Name, ...}` clause; inlined
 * into the view's own module script, that clause becomes a local object so the page needs no import or network.
 */
export function inlineExtAppsModule(source: string): string {
  const clause = /export\s*\{([^}]*)\}\s*;?\s*$/.exec(source);
  if (!clause) throw new Error('@modelcontextprotocol/ext-apps app-with-deps.js no longer ends in an export clause; update inlineExtAppsModule');
  const members = clause[1]!
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const [local, exported = local] = part.split(/\s+as\s+/);
      return `${JSON.stringify(exported)}: ${local}`;
    });
  return `${source.slice(0, clause.index)}\nconst McpApps = { ${members.join(', ')} };\n`;
}

/**
 * Draws the option a host delivers as the tool call's input (`ui/notifications/tool-input`); says so on the page when
 * ECharts refuses it. A block of its own, so its names cannot meet the inlined bundle's.
 */
const VIEW_SCRIPT = `{
const chartElement = document.getElementById('chart');
const titleElement = document.getElementById('title');
const errorElement = document.getElementById('error');
const chart = echarts.init(chartElement, null, { renderer: 'canvas' });

function draw(args) {
  errorElement.hidden = true;
  titleElement.textContent = typeof args?.title === 'string' ? args.title : '';
  try {
    chart.setOption(args?.option ?? {}, true);
    document.body.dataset.state = 'drawn';
  } catch (error) {
    errorElement.textContent = 'This chart could not be drawn: ' + (error && error.message ? error.message : String(error));
    errorElement.hidden = false;
    document.body.dataset.state = 'error';
  }
}

const app = new McpApps.App({ name: 'mirobody-render-chart', version: '1.0.0' }, {}, { autoResize: true });
app.ontoolinput = (params) => draw(params.arguments);
window.addEventListener('resize', () => chart.resize());
await app.connect();
}`;

let cachedHtml: string | undefined;

/** One self-contained HTML page: ECharts and the MCP Apps client come from npm packages, inlined, no CDN. */
export function chartViewHtml(): string {
  cachedHtml ??= `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Chart</title>
<style>
  html, body { margin: 0; font-family: system-ui, sans-serif; background: transparent; }
  #title { margin: 8px 12px 0; font-size: 14px; font-weight: 600; }
  #title:empty { display: none; }
  #chart { width: 100%; height: 420px; }
  #error { margin: 8px 12px; color: #b00020; }
</style>
</head>
<body data-state="waiting">
<div id="title"></div>
<div id="chart" role="img" aria-label="Chart"></div>
<div id="error" role="alert" hidden></div>
<script>${inlineScript(packageFile('echarts/dist/echarts.min.js'))}</script>
<script type="module">${inlineScript(inlineExtAppsModule(packageFile('@modelcontextprotocol/ext-apps/app-with-deps')))}
${VIEW_SCRIPT}</script>
</body>
</html>
`;
  return cachedHtml;
}
