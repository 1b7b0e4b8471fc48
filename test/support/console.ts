/**
 * The browser tests' harness for the console (test/server/console*.e2e.test.ts): the built
 * console, headless Chromium driven by playwright-core with a fresh profile, pages that record
 * every console error, and waits on what the page shows. Screenshots go to
 * test-results/console/.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { CHROMIUM, CHROMIUM_ARGS, requireChromium } from './chromium.js';

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

/** Build console/dist when it is missing or older than its sources (vite build, ~1 s). */
export function ensureConsoleBuilt(): void {
  const built = path.join(CONSOLE, 'dist', 'index.html');
  const sources = Math.max(
    newest(path.join(CONSOLE, 'src')),
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
