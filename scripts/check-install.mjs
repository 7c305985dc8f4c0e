#!/usr/bin/env node
// Checks that `npm ci` installs on the platforms the project supports, from this Linux machine:
// macOS on Apple silicon, Windows on x64, Linux on arm64 and x64.
//
// For each platform: `npm ci --dry-run --os <os> --cpu <cpu>` must succeed, and no package the
// lockfile requires (not optional) may be limited by its `os`/`cpu` fields to other platforms.
// The second check is the one that matters: npm raises EBADPLATFORM ("notsup") for such a
// package on the real machine, while `npm ci --dry-run` skips the platform check and passes.
//
// Usage: node scripts/check-install.mjs [path/to/package-lock.json]
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

const PLATFORMS = [
  { os: 'darwin', cpu: 'arm64' },
  { os: 'win32', cpu: 'x64' },
  { os: 'linux', cpu: 'arm64' },
  { os: 'linux', cpu: 'x64' },
];

/** npm's rule for `os` and `cpu`: a list of allowed values, or of `!excluded` ones. */
export function allows(list, value) {
  if (list === undefined) return true;
  const values = Array.isArray(list) ? list : [list];
  if (values.includes(`!${value}`)) return false;
  const allowed = values.filter((item) => !item.startsWith('!'));
  return allowed.length === 0 || allowed.includes(value) || allowed.includes('any');
}

/** Packages the lockfile installs unconditionally that cannot run on `platform`. */
export function unsupportedPackages(lock, platform) {
  return Object.entries(lock.packages ?? {})
    .filter(([path, entry]) => path !== '' && !entry.optional && !entry.devOptional)
    .filter(([, entry]) => !allows(entry.os, platform.os) || !allows(entry.cpu, platform.cpu))
    .map(
      ([path, entry]) =>
        `${path.replace(/^.*node_modules\//, '')}@${entry.version} (os ${JSON.stringify(entry.os ?? 'any')}, cpu ${JSON.stringify(entry.cpu ?? 'any')})`,
    );
}

const lockPath = resolve(process.argv[2] ?? resolve(import.meta.dirname, '../package-lock.json'));
const lock = JSON.parse(readFileSync(lockPath, 'utf8'));
let failed = false;
for (const platform of PLATFORMS) {
  const name = `${platform.os}/${platform.cpu}`;
  const unsupported = unsupportedPackages(lock, platform);
  const dryRun = spawnSync('npm', ['ci', '--dry-run', '--no-audit', '--no-fund', '--ignore-scripts', '--os', platform.os, '--cpu', platform.cpu], {
    cwd: dirname(lockPath),
    encoding: 'utf8',
    shell: process.platform === 'win32',
  });
  if (unsupported.length === 0 && dryRun.status === 0) {
    console.log(`install on ${name}: ok`);
    continue;
  }
  failed = true;
  console.log(`install on ${name}: FAILS`);
  for (const line of unsupported) console.log(`  required but not for ${name}: ${line}`);
  if (dryRun.status !== 0) console.log(`  npm ci --dry-run exited ${dryRun.status}:\n${dryRun.stderr.split('\n').slice(-10).join('\n')}`);
}
process.exit(failed ? 1 : 0);
