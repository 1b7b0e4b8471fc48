/**
 * The server entry (`npm start`): read the configuration, build and start the server, stop it
 * cleanly on SIGINT/SIGTERM. The only module that opens sockets on import: every other can be
 * imported (by `codegen.ts`, by the tests) without starting anything.
 */
import { buildServer } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { DataDirInUseError } from './dataDirLock.js';
import { createLogger } from './logger.js';
import { RedisServerNotFoundError } from './redisProcess/index.js';
import { STARTUP_EXIT_CODE, StartupError } from './startupError.js';
import { applyV8Flags } from './v8Flags.js';

// Before anything is built: every collection from here on runs with them.
applyV8Flags();

/** A signal this soon after the first is a duplicate delivery, not a request to force (ms). */
const DUPLICATE_SIGNAL_MS = 1_000;

/**
 * A start refused for a setting the operator chose: print its one line (it names the variable,
 * its value with secrets masked, and the cause) and exit; no stack. Anything else is a bug and
 * is left to the generic path at the bottom.
 */
function refuseStart(error: unknown): void {
  if (
    error instanceof StartupError ||
    error instanceof RedisServerNotFoundError ||
    error instanceof DataDirInUseError
  ) {
    process.stderr.write(`ringmaster: ${error.message}\n`);
    process.exit(STARTUP_EXIT_CODE);
  }
}

async function main(): Promise<void> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`ringmaster: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const logger = createLogger(config.logLevel);
  let server: Awaited<ReturnType<typeof buildServer>>;
  try {
    server = await buildServer(config, logger);
  } catch (error) {
    refuseStart(error);
    throw error;
  }
  let firstSignalAt: number | undefined;
  const shutdown = (signal: NodeJS.Signals) => {
    // A second signal forces the exit, unless it follows the first at once: then it is the same
    // request delivered twice (to the whole process group by a terminal or supervisor, and again
    // by a forwarding parent such as npm or tsx), and the clean shutdown must go on.
    if (firstSignalAt !== undefined) {
      if (Date.now() - firstSignalAt > DUPLICATE_SIGNAL_MS) process.exit(1);
      return;
    }
    firstSignalAt = Date.now();
    logger.info({ signal }, 'shutting down');
    server.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
  try {
    await server.start();
  } catch (error) {
    // Say why (the port is taken, say) after stopping what did start: the embedded Redis.
    await server.stop().catch(() => {});
    refuseStart(error);
    throw error;
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`ringmaster: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
