/**
 * `ringmaster`, the command line over the GraphQL API (docs/cli.md, DESIGN.md §4, §7):
 * status, groups, group, limit, unlimit, pause, resume, cancel, weight, rate, unrate, dead,
 * retry-dead, history, top, schedules, schedule set|remove and upgrade-layout.
 * Run through `bin/ringmaster.mjs` (`npx ringmaster`). Exit codes: {@link ExitCode}.
 */
import { readFileSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Command, CommanderError, type ErrorOptions, Option } from 'commander';
import { lookalikes } from '../lookalikes.js';
import { Bounds } from './bounds.js';
import { registerGroups } from './commands/groups.js';
import { registerHistory } from './commands/history.js';
import { registerJobs } from './commands/jobs.js';
import { registerLayout } from './commands/layout.js';
import { registerMaxPending } from './commands/maxPending.js';
import { registerQueueCap } from './commands/queueCap.js';
import { registerSchedules } from './commands/schedules.js';
import { registerShares } from './commands/shares.js';
import { registerStatus } from './commands/status.js';
import { registerSteering } from './commands/steering.js';
import { registerTop } from './commands/top.js';
import { registerWorkers } from './commands/workers.js';
import { DEFAULT_TIMEOUT_MS, DEFAULT_URL } from './context.js';
import { CliError, ExitCode } from './errors.js';
import { endpoint, integer, integerRange } from './options.js';

const EXIT_CODES = `
Exit codes:
  0  done
  1  usage: an unknown command or option, a value that does not parse or is out of range,
     a --url that is no GraphQL endpoint (HTTP 404, …) or no Ringmaster server (it closed
     the connection or answered without HTTP: a Redis, a Postgres); nothing is sent there
  2  refused: the server refused the input (BAD_USER_INPUT, JOB_NOT_FOUND, … DESIGN.md §5)
  3  auth: no token, an unknown one, or a role that may not do this (HTTP 401, 403;
     WebSocket 4401, 4403)
  4  unreachable: nothing answered at --url (connection refused, or a port fetch refuses:
     6000, 6667, …), or a query not answered within --timeout (a slow server or Redis);
     nothing changed
  5  server error: INTERNAL_SERVER_ERROR, Redis unavailable, out of memory or refusing this user, another HTTP 5xx; status: not ready
     (also when its queries then got no answer within --timeout: a frozen Redis)
  6  unconfirmed: a change was sent but no answer came (timeout, dropped connection); it may
     have been applied: run the command the message names to see (a change is sent only to a
     --url that answered HTTP)

Environment: RINGMASTER_URL, RINGMASTER_TOKEN, RINGMASTER_QUEUE (as --url, --token, --queue).`;

/** The package's version, for `--version`: package.json sits two levels up from src/cli and dist/cli alike. */
function packageVersion(): string {
  const json = readFileSync(new URL('../../package.json', import.meta.url), 'utf8');
  return (JSON.parse(json) as { version: string }).version;
}

declare module 'commander' {
  interface Command {
    /**
     * Commander's refusal of an unknown option `flag` (it calls {@link Command.error} with code
     * `commander.unknownOption`); not in its typings, overridden by {@link RingmasterCommand}
     * only to learn the flag.
     */
    unknownOption(flag: string): never;
  }
}

/** `ringmaster` or `ringmaster limit`: how the user runs `command`. */
function commandLine(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c !== null; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/**
 * The commands of `ringmaster`: commander's own usage errors (an unknown command or option, a
 * missing argument, …) get a hint of what to change, chosen by commander's error code, not by
 * its text: run `ringmaster [command] --help`; for an unknown option written with one dash
 * (`limit -g 3`: a dash-led id, or `-g` for `-q`), put ids that start with '-' after `--`, the
 * options first. A value that does not parse (`commander.invalidArgument`) already says what to
 * change it to, and gets none.
 */
class RingmasterCommand extends Command {
  /** The unknown option being refused, for {@link RingmasterCommand.error}'s hint. */
  #unknownFlag: string | null = null;

  override createCommand(name?: string): Command {
    return new RingmasterCommand(name);
  }

  override unknownOption(flag: string): never {
    this.#unknownFlag = flag;
    return super.unknownOption(flag);
  }

  override error(message: string, errorOptions?: ErrorOptions): never {
    const hint = this.#hint(errorOptions?.code);
    return super.error(
      hint === '' ? message : `${message.replace(/\.$/, '')}${hint}`,
      errorOptions,
    );
  }

  /** What to do about commander's error `code`, after its message ('' for none). */
  #hint(code: string | undefined): string {
    const line = commandLine(this);
    const help = `run \`${line} --help\` for its usage`;
    switch (code) {
      case 'commander.unknownOption': {
        const flag = this.#unknownFlag ?? '';
        if (flag.startsWith('-') && !flag.startsWith('--')) {
          const usage = this.parent === null ? '<command> …' : `${this.name()} -q <queue>`;
          return `; if ${flag} is an id or a number, put ids that start with '-' after \`--\`, options first (ringmaster ${usage} -- ${flag} …); else ${help}`;
        }
        return `; ${help}`;
      }
      case 'commander.unknownCommand':
      case 'commander.missingArgument':
      case 'commander.excessArguments':
      case 'commander.optionMissingArgument':
      case 'commander.missingMandatoryOptionValue':
      case 'commander.conflictingOption':
        return `; ${help}`;
      default:
        return '';
    }
  }
}

/** The program with every command; `exitOverride` so that `run` owns the exit code. */
export function buildProgram(): Command {
  const program = new RingmasterCommand('ringmaster')
    .description('Steer and watch Ringmaster queues over the GraphQL API.')
    .version(packageVersion(), '-V, --version', 'print the CLI version')
    .addOption(
      new Option('--url <url>', 'GraphQL endpoint of the server')
        .env('RINGMASTER_URL')
        .default(DEFAULT_URL)
        .argParser(endpoint),
    )
    .addOption(new Option('--token <token>', 'bearer token (AUTH_TOKENS)').env('RINGMASTER_TOKEN'))
    .addOption(new Option('-q, --queue <name>', 'the queue').env('RINGMASTER_QUEUE'))
    .option('--json', 'print the GraphQL data as JSON (for scripts)')
    .addOption(
      new Option(
        '--timeout <ms>',
        `give up on a request after this many ms (a bare number, ${integerRange(Bounds.timeout)})`,
      )
        .default(DEFAULT_TIMEOUT_MS)
        .argParser(integer('--timeout', Bounds.timeout)),
    )
    .addHelpText('after', EXIT_CODES)
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      // One line on stderr: commander's "error: " becomes the program's name.
      outputError: (text, write) =>
        write(
          `ringmaster: ${text
            .replace(/^error: /, '')
            .trim()
            .replace(/\s*\n\s*/g, ' ')}\n`,
        ),
    });
  registerStatus(program);
  registerGroups(program);
  registerSteering(program);
  registerQueueCap(program);
  registerSchedules(program);
  registerMaxPending(program);
  registerShares(program);
  registerJobs(program);
  registerHistory(program);
  registerTop(program);
  registerWorkers(program);
  registerLayout(program);
  for (const command of program.commands)
    command.exitOverride().configureOutput(program.configureOutput());
  return program;
}

/** The variables the CLI reads its options from, as `--url`, `--token`, `--queue`. */
const ENV_OPTIONS = ['RINGMASTER_URL', 'RINGMASTER_TOKEN', 'RINGMASTER_QUEUE'] as const;

/** Variables of the CLI's that are not options: set by the tests and the package's bin. */
const INTERNAL = ['RINGMASTER_CLI_ENTRY', 'RINGMASTER_CLI_FROM'];

/**
 * One stderr line for each variable set that looks like one of {@link ENV_OPTIONS} but is none
 * (an unknown `RINGMASTER_*`, a near miss: DESIGN.md §6, "Look-alike variables"), naming the one
 * meant: a misspelt `RINGMASTER_ULR` would otherwise send to the default server in silence.
 */
function warnLookalikes(env: NodeJS.ProcessEnv): void {
  const names = Object.keys(env).filter((name) => !INTERNAL.includes(name));
  for (const { variable, meant } of lookalikes(names, ENV_OPTIONS)) {
    process.stderr.write(
      `ringmaster: ${variable} is set, but ringmaster reads no such variable: did you mean ${meant}?\n`,
    );
  }
}

/**
 * Node decodes the process's arguments and environment as UTF-8 lossily: each byte that is not
 * UTF-8 becomes U+FFFD, so `pause $'\xff\xfe'` and `pause $'\xfe\xff'` would name one group,
 * "\xef\xbf\xbd\xef\xbf\xbd" (the server refuses non-UTF-8 for that reason: docs/server.md
 * "Hardening"). The CLI cannot see the bytes, only the U+FFFD, so an argument (`argv`'s entries,
 * ids, queue names, option values) or an option's variable ({@link ENV_OPTIONS}) holding one is
 * refused, a usage error (exit 1) naming it, before anything is sent. A U+FFFD typed on purpose
 * cannot be told apart and is refused too. Null when there is none.
 */
function lossyInput(argv: readonly string[], env: NodeJS.ProcessEnv): CliError | null {
  const cause =
    'holds bytes that are not UTF-8 (or a U+FFFD replacement character), which Node reads as U+FFFD, so two different ids would name one; nothing was sent';
  const index = argv.findIndex((argument) => argument.includes('\uFFFD'));
  if (index >= 0) {
    return new CliError(
      `argument ${index + 1} (${JSON.stringify(argv[index])}) ${cause}: pass the id as UTF-8`,
      ExitCode.USAGE,
    );
  }
  const name = ENV_OPTIONS.find((variable) => env[variable]?.includes('\uFFFD'));
  if (name !== undefined) {
    return new CliError(`${name} ${cause}: set it as UTF-8`, ExitCode.USAGE);
  }
  return null;
}

/**
 * Run the CLI on `argv` (user arguments, without node and the script) and answer the exit
 * code; messages go to stdout and stderr. An argument or option variable with U+FFFD in it is a
 * usage error ({@link lossyInput}).
 */
export async function run(argv: string[]): Promise<ExitCode> {
  // `ringmaster groups | head`: a reader that stops early is no failure.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(ExitCode.OK);
    throw error;
  });
  warnLookalikes(process.env);
  const lossy = lossyInput(argv, process.env);
  if (lossy !== null) {
    process.stderr.write(`ringmaster: ${lossy.message}\n`);
    return lossy.exitCode;
  }
  const program = buildProgram();
  try {
    await program.parseAsync(argv, { from: 'user' });
    return ExitCode.OK;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version exit 0; every parse error 1 (commander printed it already).
      return error.exitCode === 0 ? ExitCode.OK : ExitCode.USAGE;
    }
    if (error instanceof CliError) {
      process.stderr.write(`ringmaster: ${error.message}\n`);
      return error.exitCode;
    }
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`ringmaster: unexpected failure: ${message}\n`);
    return ExitCode.SERVER;
  }
}

/** True when this module is the process's entry (not imported by a test). */
function isEntry(): boolean {
  const entry = process.argv[1];
  if (entry === undefined) return false;
  try {
    return realpathSync(entry) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isEntry() || process.env.RINGMASTER_CLI_ENTRY === '1') {
  process.exitCode = await run(process.argv.slice(2));
}
