/**
 * The browser tests' harness for the console (test/server/console*.e2e.test.ts): the built
 * console, headless Chromium driven by playwright-core with a fresh profile, pages that record
 * every console error, one test's server, tab and queue (`openConsole`), and waits on what the
 * page shows (a text, a job table's rows). Screenshots go to test-results/console/.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { type Queue, type QueueKeys, queueKeys } from '../../src/lanes/internal.js';
import { CHROMIUM, CHROMIUM_ARGS, requireChromium } from './chromium.js';
import { queueName, waitFor } from './pubsub.js';
import { startTestServer, type TestServer } from './server.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CONSOLE = path.join(ROOT, 'console');
export const SHOTS = path.join(ROOT, 'test-results', 'console');

/** The newest modification time under `dir` (ms). */
function newest(dir: string): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(file) : statSync(file).mtimeMs);
  }
  return latest;
}

/**
 * Build console/dist when it is missing or older than its sources (vite build, ~1 s): its own,
 * and `src/`, whose shared words it bundles (src/cli/groupStanding.ts, src/overrideWords.ts, …).
 */
export function ensureConsoleBuilt(): void {
  const built = path.join(CONSOLE, 'dist', 'index.html');
  const sources = Math.max(
    newest(path.join(CONSOLE, 'src')),
    newest(path.join(ROOT, 'src')),
    statSync(path.join(CONSOLE, 'index.html')).mtimeMs,
    statSync(path.join(CONSOLE, 'vite.config.ts')).mtimeMs,
  );
  if (existsSync(built) && statSync(built).mtimeMs >= sources) return;
  execFileSync(process.execPath, [path.join(ROOT, 'node_modules/vite/bin/vite.js'), 'build'], {
    cwd: CONSOLE,
    env: { ...process.env, NODE_ENV: 'production' },
    stdio: 'pipe',
  });
}

/** Wait until `locator`'s text matches `pattern`; the last text seen is in the error. */
export async function waitText(
  locator: Locator,
  pattern: RegExp,
  timeout = 10_000,
): Promise<string> {
  const deadline = Date.now() + timeout;
  let text = '';
  for (;;) {
    text = (await locator.textContent({ timeout }).catch(() => '')) ?? '';
    if (pattern.test(text)) return text;
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${pattern} (last text: ${JSON.stringify(text)})`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The job ids of a job table's rows (`data-testid` `list`), in the order drawn. */
export const rowsOf = (page: Page, list: string): Promise<string[]> =>
  page
    .locator(`[data-testid="${list}"] tbody tr[data-job-row]`)
    .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-job-row') ?? ''));

/** Wait until the job table `list` shows exactly `expected`, in that order (10 s). */
export async function waitRows(page: Page, list: string, expected: string[]): Promise<void> {
  await waitFor(
    `${list} rows ${JSON.stringify(expected)}`,
    async () => JSON.stringify(await rowsOf(page, list)) === JSON.stringify(expected),
    { timeoutMs: 10_000, intervalMs: 50 },
  );
}

/** A screenshot of the page to test-results/console/<name>.png. */
export const shot = async (page: Page, name: string): Promise<void> => {
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`) });
};

/** The browser of a test file, and new tabs in it. */
export interface ConsoleBrowser {
  readonly context: BrowserContext;
  /** A new tab that records every console error and uncaught exception. */
  openPage(): Promise<{ page: Page; errors: string[] }>;
}

/**
 * beforeAll: build the console when stale and launch headless Chromium with a new, empty profile
 * (no network but loopback is ever touched); afterAll: close it and remove the profile.
 */
export function useConsoleBrowser(): ConsoleBrowser {
  let context: BrowserContext | undefined;
  let profile: string | undefined;

  beforeAll(async () => {
    requireChromium();
    ensureConsoleBuilt();
    mkdirSync(SHOTS, { recursive: true });
    const { chromium } = await import('playwright-core');
    profile = mkdtempSync(path.join(os.tmpdir(), 'ringmaster-chromium-'));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width: 1400, height: 900 },
    });
  }, 60_000);

  afterAll(async () => {
    await context?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  return {
    get context() {
      if (!context) throw new Error('the browser is not started (use it inside a test)');
      return context;
    },
    async openPage() {
      if (!context) throw new Error('the browser is not started (use it inside a test)');
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error') errors.push(message.text());
      });
      page.on('pageerror', (error) => errors.push(`uncaught: ${error.message}`));
      return { page, errors };
    },
  };
}

/** What one browser test works with: see {@link openConsole}. */
export interface ConsoleSession {
  server: TestServer;
  /** A new tab, and every console error and uncaught exception it logs. */
  page: Page;
  errors: string[];
  /** A new queue's name, its engine handle and its keys. */
  queue: string;
  q: Queue;
  k: QueueKeys;
  /** A plain Redis client, to check what Redis holds. */
  direct: Redis;
  /** Close the client, the tab and the server. */
  close(): Promise<void>;
}

/**
 * A test's server over `redisUrl` (with `env`), a new tab of `browser`, a plain Redis client and
 * a new queue named after `stem`. Call `close()` in a `finally`.
 */
export async function openConsole(
  browser: ConsoleBrowser,
  redisUrl: string,
  stem: string,
  env: Record<string, string> = {},
): Promise<ConsoleSession> {
  const server = await startTestServer(redisUrl, env);
  const { page, errors } = await browser.openPage();
  const queue = queueName(stem);
  const direct = new Redis(redisUrl);
  return {
    server,
    page,
    errors,
    queue,
    q: server.server.engine.queue(queue),
    k: queueKeys(server.server.engine.prefix, queue),
    direct,
    async close() {
      direct.disconnect();
      await page.close();
      await server.stop();
    },
  };
}
