import { gzipSync } from 'node:zlib';
import { defineConfig, type Plugin } from 'vite';

/** What a browser downloads before the first page shows (the entry and what it imports statically), gzipped, at most. */
const FIRST_LOAD_BUDGET_KB = 150;

/** Prints the first load's size at every build, and fails a build over the budget. */
function firstLoadBudget(): Plugin {
  return {
    name: 'mirobody:first-load-budget',
    apply: 'build',
    generateBundle(_options, bundle) {
      const entry = Object.values(bundle).find((output) => output.type === 'chunk' && output.isEntry);
      if (!entry || entry.type !== 'chunk') return;
      const loaded = new Set<string>();
      const pending = [entry.fileName];
      while (pending.length) {
        const name = pending.pop()!;
        const chunk = bundle[name];
        if (loaded.has(name) || chunk?.type !== 'chunk') continue;
        loaded.add(name);
        pending.push(...chunk.imports);
      }
      const bytes = [...loaded].reduce((sum, name) => sum + gzipSync((bundle[name] as { code: string }).code).length, 0);
      const kilobytes = (bytes / 1024).toFixed(1);
      process.stdout.write(`Console first load: ${kilobytes} KB of JavaScript gzipped (budget ${FIRST_LOAD_BUDGET_KB} KB)\n`);
      if (bytes > FIRST_LOAD_BUDGET_KB * 1024) this.error(`The console's first load is ${kilobytes} KB gzipped, over its budget of ${FIRST_LOAD_BUDGET_KB} KB`);
    },
  };
}

// A build is a production build whatever NODE_ENV the shell or a test runner (Jest's `test`) set:
// React's development build would ship otherwise, over twice the size.
if (process.argv.includes('build')) process.env.NODE_ENV = 'production';

/** The web console: served by the server at /console from dist/console (apps/server/src/console/serve-console.ts). */
export default defineConfig({
  root: import.meta.dirname,
  base: '/console/',
  logLevel: 'warn',
  build: {
    outDir: '../../dist/console',
    emptyOutDir: true,
    target: 'es2022',
    // The page allows no inline script or style (its CSP): every asset is a file of its own.
    assetsInlineLimit: 0,
    rollupOptions: {
      onwarn(warning, warn) {
        // React Server Components' "use client" markers mean nothing to a browser bundle.
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
      },
    },
  },
  // Preact in React's place (its compat layer implements React's API, which TanStack Router and
  // Query use): the same code, a third of the script to download and run before the first page shows.
  resolve: {
    alias: [
      { find: /^react-dom\/client$/, replacement: 'preact/compat/client' },
      { find: /^react-dom$/, replacement: 'preact/compat' },
      { find: /^react\/jsx-runtime$/, replacement: 'preact/compat/jsx-runtime' },
      { find: /^react\/jsx-dev-runtime$/, replacement: 'preact/compat/jsx-dev-runtime' },
      { find: /^react$/, replacement: 'preact/compat' },
    ],
  },
  plugins: [firstLoadBudget()],
});
