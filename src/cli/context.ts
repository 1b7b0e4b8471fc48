/**
 * What every command reads from the global options (docs/cli.md, DESIGN.md §6): the
 * endpoint, token, queue, output mode and timeout, with their environment variables.
 */
import type { Command } from 'commander';
import type { Connection } from './client.js';
import { CliError, ExitCode } from './errors.js';

/** The server's default endpoint: `PORT` 4000 and `HOST` 127.0.0.1 (DESIGN.md §6). */
export const DEFAULT_URL = 'http://127.0.0.1:4000/graphql';
/** How long one request may take before the server counts as unreachable (ms). */
export const DEFAULT_TIMEOUT_MS = 10_000;

/** The global options as commander parsed them. */
export interface GlobalOptions {
  url: string;
  token?: string;
  queue?: string;
  json?: boolean;
  timeout: number;
}

/** A command's view of the global options. */
export interface CliContext {
  readonly connection: Connection;
  /** `--json`: machine output of the GraphQL data. */
  readonly json: boolean;
  /** `--queue` or RINGMASTER_QUEUE; a usage error (exit 1) when neither is given. */
  queue(): string;
}

/** The context of `command` (its own options merged with the program's). */
export function contextOf(command: Command): CliContext {
  const options = command.optsWithGlobals<GlobalOptions>();
  return {
    connection: {
      url: options.url,
      token: options.token === '' ? undefined : options.token,
      timeoutMs: options.timeout,
    },
    json: options.json === true,
    queue() {
      if (options.queue === undefined || options.queue === '') {
        throw new CliError(
          `${command.name()} needs a queue: pass --queue <name> or set RINGMASTER_QUEUE`,
          ExitCode.USAGE,
        );
      }
      return options.queue;
    },
  };
}
