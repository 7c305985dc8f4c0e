import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { createConsoleLink, signToken } from '@app/auth';
import { CATALOG_FORMATS, registerToolModuleHooks, type CatalogFormat, type ExploreLog } from '@app/mcp';
import { ConfigError, loadAppConfig } from './config.js';
import { catalogFromConfig } from './tool-catalog.js';

export const USAGE = [
  'Usage: npm run cli -- token --sub <subject> [--email <address>] [--name <name>] [--admin] [--ttl 1h]',
  '       npm run cli -- console-link --email <address> [--sub <subject>] [--name <name>] [--admin]',
  `       npm run cli -- tools [--format ${CATALOG_FORMATS.join('|')}] [--agent <name>]`,
].join('\n');

export const HELP = `Operator commands for Mirobody; they need no running server.

Usage: npm run -s cli -- <command> [options]      (in the image: node dist/apps/server/src/cli.js <command>)

Commands:
  token         print a JWT for a user, signed with the server's HS256 secret
  console-link  print a one-time link that signs a user in to the web console (works while the server runs)
  tools         print the tool catalog this configuration serves (MCP, OpenAI or Gemini format), per agent

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
