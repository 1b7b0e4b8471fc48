/**
 * The package.json and README of each package `npm run pack` makes (DESIGN.md §4.1, "The
 * package"), from the root package.json, so the name, version, licence, engines and every
 * dependency range are stated once, there.
 */
import { LAZY } from '../bundle.mjs';

/** What the engine (src/lanes) imports besides Node's built-ins: its package's dependencies. */
export const ENGINE_DEPENDENCIES = ['cluster-key-slot', 'croner', 'ioredis'];

/** The name of the server's package. */
export const SERVER_NAME = 'ringmaster-server';

/** `names` with the root's ranges; throws naming one the root does not depend on. */
function ranges(root, names) {
  return Object.fromEntries(
    names.map((name) => {
      const range = root.dependencies?.[name];
      if (range === undefined) throw new Error(`package.json has no dependency ${name}`);
      return [name, range];
    }),
  );
}

/** What both packages take from the root as it is. */
const common = (root) => ({
  version: root.version,
  license: root.license,
  type: root.type,
  engines: root.engines,
});

/** The engine's package.json: `ringmaster`, dist/lanes and dist/lua, ioredis. */
export function enginePackage(root) {
  return {
    name: root.name,
    ...common(root),
    description: 'Per-tenant (per-group) concurrency control for Redis job queues',
    main: root.main,
    types: root.types,
    exports: root.exports,
    files: ['dist/lanes', 'dist/lua'],
    dependencies: ranges(root, ENGINE_DEPENDENCIES),
  };
}

/** The server's package.json: `ringmaster-server`, the bundled server and CLI, the console. */
export function serverPackage(root) {
  return {
    name: SERVER_NAME,
    ...common(root),
    description: `${root.description}: the server, its console and the ringmaster CLI`,
    bin: { ...root.bin, [SERVER_NAME]: 'bin/ringmaster-server.mjs' },
    files: ['bin', 'dist', 'console/dist', 'schema.graphql'],
    // What its bundles leave out (scripts/bundle.mjs): GraphiQL's page, pino-pretty.
    dependencies: ranges(root, LAZY),
  };
}

/** The engine's README. */
export const engineReadme = (root) => `# ${root.name}

Per-tenant (per-group) concurrency control for Redis job queues: the engine of Ringmaster,
\`Ringmaster\`, \`Queue\`, \`Worker\` and \`Reaper\`, over ioredis 5, which installs with it. A
program that imports ioredis itself, as below, names version 5 (the latest is another major,
whose \`Redis\` the engine does not take), and npm keeps one copy:

\`\`\`sh
npm install ${root.name} ioredis@5
\`\`\`

\`\`\`ts
import { Redis } from 'ioredis';
import { Queue, Worker } from '${root.name}';

const connection = new Redis(process.env.REDIS_URL ?? 'redis://localhost:6379');
connection.on('error', (err) => console.error('redis:', err.message)); // it reconnects by itself
const queue = new Queue('orders', { connection });
await queue.setLimit('acme', 5); // at most 5 of acme's jobs run at once
await queue.enqueue('acme', { orderId: 42 });
new Worker('orders', async (job) => console.log(job.payload), { connection, concurrency: 16 });
\`\`\`

The API is the contract of \`docs/DESIGN.md\` §4.1 in the project's repository; its README says
the rest. The GraphQL server, its console and the \`ringmaster\` CLI are the
\`${SERVER_NAME}\` package.
`;

/** The server's README. */
export const serverReadme = (root) => `# ${SERVER_NAME}

Ringmaster's server: the GraphQL API over a Redis that \`${root.name}\` workers use, the admin
console, and the \`ringmaster\` command line.

\`\`\`sh
npm install -g ${SERVER_NAME}
REDIS_URL=redis://localhost:6379 ringmaster-server
ringmaster --help
\`\`\`

Its settings (environment variables) are \`docs/DESIGN.md\` §6 in the project's repository, and
its README says the rest.
`;
