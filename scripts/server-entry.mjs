// Which entry file `npm run start:dev`, `npm run start:prod` and `npm start` run: the server's own
// apps/server/src/main.ts, or SERVER_ENTRY, an entry file of your own (README, Serve your own tools).
import { existsSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';

/**
 * The compiled file to run for SERVER_ENTRY, a path from the project's root (unset or empty:
 * apps/server/src/main.ts). `mustExist` is what the caller needs: the source (start:dev compiles
 * it) or the compiled file (start:prod runs it). A value naming no such file would run something
 * else or nothing, so it stops the script with one line naming SERVER_ENTRY.
 */
export function serverEntry(root, mustExist) {
  const entry = process.env.SERVER_ENTRY || 'apps/server/src/main.ts';
  const path = relative(root, resolve(root, entry));
  const source = join(root, path);
  const compiled = join(root, 'dist', path.replace(/\.ts$/, '.js'));
  const refusal =
    !entry.endsWith('.ts') || !['apps', 'libs'].includes(path.split(sep)[0])
      ? `SERVER_ENTRY must name a .ts file under apps/ or libs/ (what the build compiles), such as apps/server/src/my-server.ts; got "${entry}"`
      : mustExist === 'source' && !existsSync(source)
        ? `SERVER_ENTRY names ${entry}, which does not exist`
        : mustExist === 'compiled' && !existsSync(compiled)
          ? `${relative(root, compiled)} does not exist: build ${entry} first (npm run build; npm start builds, then starts)`
          : undefined;
  if (refusal) {
    process.stderr.write(`${refusal}\n`);
    process.exit(1);
  }
  return compiled;
}
