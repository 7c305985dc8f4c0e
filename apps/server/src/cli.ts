import { createWriteStream } from 'node:fs';
import { rename, rm, stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream } from 'node:stream/web';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { createConsoleLink, signToken } from '@app/auth';
import type { StorageCheckReport } from '@app/files';
import { CATALOG_FORMATS, registerToolModuleHooks, type CatalogFormat, type ExploreLog } from '@app/mcp';
import { restoreBackup } from './backup/backup.js';
import { readTar } from './backup/tar.js';
import { ConfigError, loadAppConfig, type AppConfig } from './config.js';
import { catalogFromConfig } from './tool-catalog.js';

export const USAGE = [
  'Usage: npm run cli -- token --sub <subject> [--email <address>] [--name <name>] [--admin] [--ttl 1h]',
  '       npm run cli -- console-link --email <address> [--sub <subject>] [--name <name>] [--admin]',
  `       npm run cli -- tools [--format ${CATALOG_FORMATS.join('|')}] [--agent <name>]`,
  '       npm run cli -- backup --out <file> [--url <server>]',
  '       npm run cli -- restore --from <file>',
  '       npm run cli -- check-files [--digests] [--url <server>]',
].join('\n');

export const HELP = `Operator commands for Mirobody; backup and check-files ask the running server.

Usage: npm run -s cli -- <command> [options]      (in the image: node dist/apps/server/src/cli.js <command>)

Commands:
  token         print a JWT for a user, signed with the server's HS256 secret
  console-link  print a one-time link that signs a user in to the web console (works while the server runs)
  tools         print the tool catalog this configuration serves (MCP, OpenAI or Gemini format), per agent
  backup        have the running server write a backup of its embedded database and local files
  restore       restore a backup into DATA_DIR, which holds no database yet (the server stopped)
  check-files   have the running server compare its files' rows with the objects its storage holds

Run \`npm run -s cli -- <command> --help\` for a command's options.
`;

export const TOKEN_HELP = `Usage: npm run -s cli -- token --sub <subject> [options]

Prints a JWT signed with JWT_SECRET (config.yaml, .env or the environment), or else with the secret
the server generated in DATA_DIR/jwt-secret. Refused in JWKS mode: the identity provider holds those keys.

Options:
  --sub <subject>    the user's stable id (required)
  --email <address>  e-mail claim
  --name <name>      display name claim
  --admin            adds the admin role
  --ttl <duration>   lifetime: a number followed by s, m, h or d (default 1h)
  -h, --help         this text
`;

export const TOOLS_HELP = `Usage: npm run -s cli -- tools [options]

Prints the catalog a server with this configuration (config.yaml, .env, the environment, tool
directories) serves, as GET /admin/tools answers it. Start-up messages of the tool loader go to stderr.

Options:
  --format <format>  ${CATALOG_FORMATS.join(', ')} (default mcp)
  --agent <name>     only the tools that agent's ALLOWED_TOOLS_*/DISALLOWED_TOOLS_* lists let it see
  -h, --help         this text
`;

export const CONSOLE_LINK_HELP = `Usage: npm run -s cli -- console-link --email <address> [options]

Prints a link that signs the user in to the web console at PUBLIC_BASE_URL/console: it works once,
within 10 minutes. It is signed with SIGNING_SECRET, or else with the key the server generated in
DATA_DIR/console-link-key, so the server need not be stopped. The user is the one \`token --sub\` names
(the same subject, the e-mail by default); the operator vouches for the address, so ADMIN_EMAILS applies.

Options:
  --email <address>  the user's e-mail (required)
  --sub <subject>    the user's stable id (default: the e-mail)
  --name <name>      display name
  --admin            adds the admin role for this session
  -h, --help         this text
`;

export const BACKUP_HELP = `Usage: npm run -s cli -- backup --out <file> [options]

Asks the running server (POST /admin/backup) for a backup of the embedded database and the local
files, taken while it serves: every write acknowledged before the call is in it. The archive is
written to <file>.part and renamed to <file> once complete and checked. The call carries an admin
token the command signs as \`token\` does; in JWKS mode put an admin's token in MIROBODY_ADMIN_TOKEN.
On PostgreSQL use pg_dump instead (docs/operations.md, Backup and restore).

Options:
  --out <file>       where to write the archive (required; an existing file is not overwritten)
  --url <server>     the server's address (default: http://127.0.0.1:PORT)
  --sub <subject>    the admin the signed token names (default: operator)
  -h, --help         this text
`;

export const RESTORE_HELP = `Usage: npm run -s cli -- restore --from <file>

Restores a backup written by \`backup\` into DATA_DIR (config.yaml, .env or the environment): the
embedded database and the local files. DATA_DIR must hold no database and no stored files; no
server may run on it. Keys the server generated in DATA_DIR (jwt-secret, console-link-key) are not
in a backup: copy them over, or configure JWT_SECRET and SIGNING_SECRET.

Options:
  --from <file>      the archive (required)
  -h, --help         this text
`;

export const CHECK_FILES_HELP = `Usage: npm run -s cli -- check-files [options]

Asks the running server (GET /admin/files/check) to compare its files' rows with the objects its
storage (local or S3) holds, and prints the report: files whose object is missing, objects no file
points to, objects whose size or SHA-256 is not the one recorded at upload. Exit status 1 when a file
is missing or mismatched. Authenticates as \`backup\` does.

Options:
  --digests          also compare SHA-256 digests (reads every stored byte)
  --url <server>     the server's address (default: http://127.0.0.1:PORT)
  --sub <subject>    the admin the signed token names (default: operator)
  -h, --help         this text
`;

const wantsHelp = (args: string[]) => args.includes('--help') || args.includes('-h');

/** The command cannot be carried out: the message goes to stderr, with the usage for a mistake on the command line. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2,
  ) {
    super(message);
  }
}

const usageError = (message: string) => new CliError(message, 2);

/**
 * Operator commands that need no running server. `tools` prints the tool catalog. `token` prints a JWT signed with the HS256 secret
 * the server uses: JWT_SECRET from the same config layers, else the secret generated in DATA_DIR.
 */
export async function runCli(
  argv: string[],
  environment: Record<string, string | undefined>,
  configDir?: string,
  log: ExploreLog = stderrLog,
): Promise<string> {
  const [command, ...rest] = argv;
  if (command === 'help' || command === '--help' || command === '-h') return HELP.trimEnd();
  if (command === 'token' && wantsHelp(rest)) return TOKEN_HELP.trimEnd();
  if (command === 'tools' && wantsHelp(rest)) return TOOLS_HELP.trimEnd();
  if (command === 'console-link' && wantsHelp(rest)) return CONSOLE_LINK_HELP.trimEnd();
  if (command === 'backup' && wantsHelp(rest)) return BACKUP_HELP.trimEnd();
  if (command === 'restore' && wantsHelp(rest)) return RESTORE_HELP.trimEnd();
  if (command === 'check-files' && wantsHelp(rest)) return CHECK_FILES_HELP.trimEnd();
  if (command === 'backup') return backup(rest, environment, configDir);
  if (command === 'restore') return restore(rest, environment, configDir);
  if (command === 'check-files') return checkFiles(rest, environment, configDir);
  if (command === 'tools') return tools(rest, environment, configDir, log);
  if (command === 'console-link') return consoleLink(rest, environment, configDir);
  if (command !== 'token') throw usageError(command ? `Unknown command "${command}" (try --help)` : 'No command given (try --help)');
  let values: { sub?: string; email?: string; name?: string; admin?: boolean; ttl?: string };
  try {
    ({ values } = parseArgs({
      args: rest,
      options: { sub: { type: 'string' }, email: { type: 'string' }, name: { type: 'string' }, admin: { type: 'boolean' }, ttl: { type: 'string' } },
      strict: true,
    }));
  } catch (error) {
    throw usageError((error as Error).message);
  }
  if (!values.sub) throw usageError('--sub is required');
  const config = loadAppConfig(environment, { configDir });
  try {
    return await signToken(
      { ...config.auth, dataDir: config.DATA_DIR },
      { subject: values.sub, email: values.email, name: values.name, admin: values.admin, ttl: values.ttl ?? '1h' },
    );
  } catch (error) {
    // A bad --ttl, or JWKS mode, where there is no key to sign with.
    throw new CliError((error as Error).message, 1);
  }
}

/** `console-link`: a one-time sign-in link to the console, for the user the options name. */
function consoleLink(args: string[], environment: Record<string, string | undefined>, configDir: string | undefined): string {
  let values: { email?: string; sub?: string; name?: string; admin?: boolean };
  try {
    ({ values } = parseArgs({
      args,
      options: { email: { type: 'string' }, sub: { type: 'string' }, name: { type: 'string' }, admin: { type: 'boolean' } },
      strict: true,
    }));
  } catch (error) {
    throw usageError((error as Error).message);
  }
  if (!values.email) throw usageError('--email is required');
  const config = loadAppConfig(environment, { configDir });
  try {
    const { url } = createConsoleLink(config.auth, config.PUBLIC_BASE_URL, {
      email: values.email,
      ...(values.sub ? { subject: values.sub } : {}),
      ...(values.name ? { name: values.name } : {}),
      ...(values.admin ? { admin: true } : {}),
    });
    return url;
  } catch (error) {
    throw new CliError((error as Error).message, 1);
  }
}

/** The running server's address: --url, else the loopback address on its port (a server bound to one address answers there). */
function serverUrl(config: AppConfig, url: string | undefined): string {
  if (url !== undefined) {
    if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) throw usageError(`--url must be an http(s) address, got "${url}"`);
    return url.replace(/\/+$/, '');
  }
  const host = ['0.0.0.0', '::', ''].includes(config.HOST) ? '127.0.0.1' : config.HOST;
  return `http://${host.includes(':') ? `[${host}]` : host}:${config.PORT}`;
}

/** An admin's bearer token for the running server: MIROBODY_ADMIN_TOKEN, else one signed here for a minute. */
async function adminToken(config: AppConfig, environment: Record<string, string | undefined>, subject: string | undefined): Promise<string> {
  if (environment.MIROBODY_ADMIN_TOKEN) return environment.MIROBODY_ADMIN_TOKEN;
  try {
    return await signToken({ ...config.auth, dataDir: config.DATA_DIR }, { subject: subject ?? 'operator', admin: true, ttl: '1m' });
  } catch (error) {
    throw new CliError(`${(error as Error).message}: put an admin's token in MIROBODY_ADMIN_TOKEN`, 1);
  }
}

/** A call to the running server; a refusal or an unreachable server is the command's failure, said plainly. */
async function callServer(base: string, method: string, path: string, token: string): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(`${base}${path}`, { method, headers: { authorization: `Bearer ${token}` } });
  } catch (error) {
    throw new CliError(`No server answers at ${base} (${String((error as Error).cause ?? error)}): is it running? (--url names another address)`, 1);
  }
  if (!response.ok) {
    const body = await response.text();
    let message = body;
    try {
      message = (JSON.parse(body) as { message?: string }).message ?? body;
    } catch {
      // Not JSON: the text as it came.
    }
    throw new CliError(`${method} ${path} answered ${response.status}: ${message}`, 1);
  }
  return response;
}

/** `backup`: the running server's archive, written beside --out and renamed once it checks out. */
async function backup(args: string[], environment: Record<string, string | undefined>, configDir: string | undefined): Promise<string> {
  let values: { out?: string; url?: string; sub?: string };
  try {
    ({ values } = parseArgs({ args, options: { out: { type: 'string' }, url: { type: 'string' }, sub: { type: 'string' } }, strict: true }));
  } catch (error) {
    throw usageError((error as Error).message);
  }
  if (!values.out) throw usageError('--out is required');
  if (
    await stat(values.out).then(
      () => true,
      () => false,
    )
  )
    throw new CliError(`${values.out} exists: name a new file`, 1);
  const config = loadAppConfig(environment, { configDir });
  const base = serverUrl(config, values.url);
  const response = await callServer(base, 'POST', '/admin/backup', await adminToken(config, environment, values.sub));
  const partial = `${values.out}.part`;
  try {
    await pipeline(Readable.fromWeb(response.body! as ReadableStream), createWriteStream(partial, { flags: 'wx', mode: 0o600 }));
    // A transfer cut short ends the archive early: reading it through finds that.
    let objects = 0;
    for await (const entry of readTar(partial)) if (entry.name.startsWith('files/objects/')) objects++;
    await rename(partial, values.out);
    return `Wrote ${values.out} (${(await stat(values.out)).size} bytes): the database and ${objects} stored object(s)`;
  } catch (error) {
    await rm(partial, { force: true });
    throw new CliError(`The backup failed: ${(error as Error).message}`, 1);
  }
}

/** `restore`: a backup into this configuration's DATA_DIR. */
async function restore(args: string[], environment: Record<string, string | undefined>, configDir: string | undefined): Promise<string> {
  let values: { from?: string };
  try {
    ({ values } = parseArgs({ args, options: { from: { type: 'string' } }, strict: true }));
  } catch (error) {
    throw usageError((error as Error).message);
  }
  if (!values.from) throw usageError('--from is required');
  const config = loadAppConfig(environment, { configDir });
  if (config.database.url)
    throw new CliError('DATABASE_URL is set: a PostgreSQL database is restored with pg_restore (docs/operations.md, Backup and restore)', 1);
  try {
    const { manifest, objects } = await restoreBackup(values.from, config.DATA_DIR);
    return `Restored the backup of ${manifest.createdAt} (version ${manifest.version}) into ${config.DATA_DIR}: the database and ${objects} stored object(s)`;
  } catch (error) {
    throw new CliError(`The restore failed: ${(error as Error).message}`, 1);
  }
}

/** `check-files`: the running server's storage check, printed; exit status 1 when a file is missing or mismatched. */
async function checkFiles(args: string[], environment: Record<string, string | undefined>, configDir: string | undefined): Promise<string> {
  let values: { digests?: boolean; url?: string; sub?: string };
  try {
    ({ values } = parseArgs({ args, options: { digests: { type: 'boolean' }, url: { type: 'string' }, sub: { type: 'string' } }, strict: true }));
  } catch (error) {
    throw usageError((error as Error).message);
  }
  const config = loadAppConfig(environment, { configDir });
  const base = serverUrl(config, values.url);
  const response = await callServer(
    base,
    'GET',
    `/admin/files/check?digests=${values.digests ? 'true' : 'false'}`,
    await adminToken(config, environment, values.sub),
  );
  const report = (await response.json()) as StorageCheckReport;
  const text = JSON.stringify(report, null, 2);
  if (report.missing.count || report.mismatched.count) throw new CliError(text, 1);
  return text;
}

/** Start-up messages of the tool loader (imports that failed, overrides) go to stderr, the catalog to stdout. */
const stderrLog: ExploreLog = {
  log: (message) => process.stderr.write(`${message}\n`),
  warn: (message) => process.stderr.write(`warn: ${message}\n`),
  error: (message) => process.stderr.write(`error: ${message}\n`),
};

/** `tools`: the catalog a server with this configuration serves to the agent, as `GET /admin/tools` answers it. */
async function tools(args: string[], environment: Record<string, string | undefined>, configDir: string | undefined, log: ExploreLog): Promise<string> {
  let values: { format?: string; agent?: string };
  try {
    ({ values } = parseArgs({ args, options: { format: { type: 'string' }, agent: { type: 'string' } }, strict: true }));
  } catch (error) {
    throw usageError((error as Error).message);
  }
  const format = (values.format ?? 'mcp') as CatalogFormat;
  if (!CATALOG_FORMATS.includes(format)) throw usageError(`--format must be one of ${CATALOG_FORMATS.join(', ')}, got "${values.format}"`);
  if (values.agent === '') throw usageError('--agent needs a name');
  const config = loadAppConfig(environment, { configDir });
  return JSON.stringify(await catalogFromConfig(config, format, values.agent, log), null, 2);
}

async function main(): Promise<void> {
  try {
    const config = process.argv[2] === 'tools' ? loadAppConfig(process.env, { configDir: process.cwd() }) : undefined;
    if (config) registerToolModuleHooks(new URL('./tool-api.js', import.meta.url), config.toolDirectories.directories);
    process.stdout.write(`${await runCli(process.argv.slice(2), process.env, process.cwd())}\n`);
  } catch (error) {
    if (error instanceof CliError) {
      process.stderr.write(error.exitCode === 2 ? `${error.message}\n${USAGE}\n` : `${error.message}\n`);
      process.exit(error.exitCode);
    }
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
