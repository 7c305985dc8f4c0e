// The types plugin's entry for the Nest CLI (nest-cli.json: "plugins": ["../libs/mcp/plugin.cjs"],
// a path the CLI resolves from node_modules/) and for scripts/tool-types.mjs. The CLI loads plugins
// with require() before anything is compiled, so this file transpiles the plugin's TypeScript
// sources (src/types-plugin/nest-plugin.ts and what it imports) to CommonJS with @swc/core, in memory.
'use strict';
const { transformFileSync } = require('@swc/core');
const { createRequire } = require('node:module');
const { dirname, resolve } = require('node:path');
const { compileFunction } = require('node:vm');

const loaded = new Map();

function requireTypeScript(file) {
  const cached = loaded.get(file);
  if (cached) return cached.exports;
  const module = { exports: {} };
  loaded.set(file, module);
  const { code } = transformFileSync(file, {
    swcrc: false,
    jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
    module: { type: 'commonjs' },
  });
  const requireOutside = createRequire(file);
  // The sources name their neighbours `./x.js`, as NodeNext wants; here they are `./x.ts`.
  const requireFrom = (specifier) =>
    specifier.startsWith('.') ? requireTypeScript(resolve(dirname(file), specifier.replace(/\.js$/, '.ts'))) : requireOutside(specifier);
  compileFunction(code, ['exports', 'require', 'module'], { filename: file })(module.exports, requireFrom, module);
  return module.exports;
}

module.exports = requireTypeScript(resolve(__dirname, 'src/types-plugin/nest-plugin.ts'));
