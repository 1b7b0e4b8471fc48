/**
 * `npm run dev:console` (Vite's dev server over console/) says where the console is: its start
 * output names the URL to open (with the build's quiet log level it used to print nothing).
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import getPort from 'get-port';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

describe('npm run dev:console', () => {
  it('prints the URL it serves the console at', async () => {
    const port = await getPort({ host: '127.0.0.1' });
    const child = spawn(
      process.execPath,
      [path.join(ROOT, 'node_modules/vite/bin/vite.js'), 'console', '--port', String(port)],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } },
    );
    let output = '';
    try {
      const url = `http://localhost:${port}/`;
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no URL printed; output: ${JSON.stringify(output)}`)),
          25_000,
        );
        const read = (chunk: Buffer) => {
          output += chunk.toString('utf8');
          if (output.includes(url)) {
            clearTimeout(timer);
            resolve();
          }
        };
        child.stdout.on('data', read);
        child.stderr.on('data', read);
        child.once('exit', (code) => {
          clearTimeout(timer);
          reject(new Error(`vite exited (${code}) before printing a URL: ${output}`));
        });
      });
      expect(output).toContain(`Local:   ${url}`);
    } finally {
      child.kill('SIGTERM');
    }
  }, 30_000);
});
