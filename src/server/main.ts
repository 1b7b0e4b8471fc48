/**
 * The server entry (`npm start`): read the configuration, build and start the server, stop it
 * cleanly on SIGINT/SIGTERM. The only module that opens sockets on import: every other can be
 * imported (by `codegen.ts`, by the tests) without starting anything.
 */
import type { Logger } from 'pino';
import type { RingmasterServer } from './app.js';
import { loggerOf } from './logger.js';
import { configOrExit, lastWords, startOrRefuse } from './startOrRefuse.js';
import { applyV8Flags } from './v8Flags.js';

// Before anything is built: every collection from here on runs with them.
applyV8Flags();

/** A signal this soon after the first is a duplicate delivery, not a request to force (ms). */
const DUPLICATE_SIGNAL_MS = 1_000;

/** Stop `server` cleanly on SIGINT/SIGTERM; a second signal, later, forces the exit. */
function stopOnSignals(server: RingmasterServer, logger: Logger): void {
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
}

async function main(): Promise<void> {
  const config = configOrExit();
  const logger = await loggerOf(config);
  await startOrRefuse(config, logger, (server) => stopOnSignals(server, logger));
}

main().catch(lastWords);
