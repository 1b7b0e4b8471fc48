/**
 * How a process that runs the server (`main.ts`, the demo) starts it: a start refused for a
 * setting the operator chose ends in one line on stderr, `ringmaster: <message>` (it names the
 * variable, its value with secrets masked, and the cause; no stack), and its exit code: 2 for a
 * value invalid as written, 3 for one refused at start (DESIGN.md §6). Starts nothing on import.
 */
import type { Logger } from 'pino';
import { buildServer, type RingmasterServer } from './app.js';
import { type Config, ConfigError, loadConfig } from './config.js';
import { DataDirInUseError } from './dataDirLock.js';
import { RedisServerNotFoundError } from './redisProcess/index.js';
import { STARTUP_EXIT_CODE, StartupError } from './startupError.js';

/** The exit code of a configuration invalid as written. */
const CONFIG_EXIT_CODE = 2;

/** Print `message` as the process's last line and exit with `code`. */
function refuse(message: string, code: number): never {
  process.stderr.write(`ringmaster: ${message}\n`);
  process.exit(code);
}

/** The configuration read from `env`; an invalid one ends the process (exit 2). */
export function configOrExit(env: NodeJS.ProcessEnv = process.env): Config {
  try {
    return loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) refuse(error.message, CONFIG_EXIT_CODE);
    throw error;
  }
}

/**
 * A start refused for a setting the operator chose ends the process with its one line (exit
 * 3); anything else is a bug and is left to the caller.
 */
function refuseStart(error: unknown): void {
  if (
    error instanceof StartupError ||
    error instanceof RedisServerNotFoundError ||
    error instanceof DataDirInUseError
  ) {
    refuse(error.message, STARTUP_EXIT_CODE);
  }
}

/**
 * Build the server and start it; `beforeStart` runs between the two (signal handlers). A
 * refused start ends the process (exit 3) after stopping what did start (the embedded Redis).
 * @throws whatever else failed (a bug): the caller prints it as one line too ({@link lastWords})
 */
export async function startOrRefuse(
  config: Config,
  logger: Logger,
  beforeStart: (server: RingmasterServer) => void = () => {},
): Promise<RingmasterServer> {
  let server: RingmasterServer;
  try {
    server = await buildServer(config, logger);
  } catch (error) {
    refuseStart(error);
    throw error;
  }
  beforeStart(server);
  try {
    await server.start();
  } catch (error) {
    // Say why (the port is taken, say) after stopping what did start: the embedded Redis.
    await server.stop().catch(() => {});
    refuseStart(error);
    throw error;
  }
  return server;
}

/** The end of a process that failed otherwise: its message as one line, exit 1. */
export function lastWords(error: unknown): never {
  refuse(error instanceof Error ? error.message : String(error), 1);
}
