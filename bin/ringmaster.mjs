#!/usr/bin/env node
/**
 * `npx ringmaster …` (package.json `bin`): runs the compiled CLI, dist/cli/main.js, when the
 * package is built (`npm run build`, or `npm start`'s prestart), else its TypeScript source,
 * src/cli/main.ts, through tsx (a devDependency, so a dev checkout after `npm ci` runs it
 * without a build). RINGMASTER_CLI_FROM=source|dist picks one (test/cli/launcher.test.ts).
 */
import { existsSync } from 'node:fs';

const built = new URL('../dist/cli/main.js', import.meta.url);
const source = new URL('../src/cli/main.ts', import.meta.url);
const from = process.env.RINGMASTER_CLI_FROM;

/** The CLI module: `run(argv) → exit code`. */
async function load() {
  if (from !== 'source' && existsSync(built)) return import(built.href);
  if (from !== 'dist' && existsSync(source)) {
    let tsImport;
    try {
      ({ tsImport } = await import('tsx/esm/api'));
    } catch {
      return null;
    }
    return tsImport(source.href, import.meta.url);
  }
  return null;
}

const cli = await load();
if (cli === null) {
  process.stderr.write(
    from === 'dist'
      ? 'ringmaster: dist/cli/main.js is not built: run `npm run build`\n'
      : 'ringmaster: the CLI is not built and tsx is not installed: run `npm ci` then `npm run build`\n',
  );
  process.exitCode = 5;
} else {
  process.exitCode = await cli.run(process.argv.slice(2));
}
