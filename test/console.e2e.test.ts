/**
 * The admin console end to end (issue 6): Debian's headless Chromium, driven by playwright-core,
 * against the real server over a real Redis. It opens the console, sees the ring, pauses a group
 * by clicking and sees it leave the ring and its reason change, resumes it and sees it return,
 * sets a limit below its work in flight and sees "parked", clears it; loses the server and sees
 * "reconnecting…", then the resynced ring once it is back; and, with AUTH_TOKENS set, signs in
 * with a read token (no action buttons) and an admin token. The page must log no error.
 * Screenshots of every step go to test-results/console/.
 *
 * Needs /usr/bin/chromium (`apt-get install -y chromium`; `.ci/run` installs it). Without it the
 * file is skipped, except under CI, where it fails.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ringmaster } from '../src/lanes/index.js';
import { queueName } from './pubsub.support.js';
import { useTestRedis } from './support/redis.js';
import { startTestServer, type TestServer } from './support/server.js';

const CHROMIUM = '/usr/bin/chromium';
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CONSOLE = path.join(ROOT, 'console');
const SHOTS = path.join(ROOT, 'test-results', 'console');
const haveChromium = existsSync(CHROMIUM);
const skip = !haveChromium && !process.env.CI;

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
function ensureConsoleBuilt(): void {
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
async function waitText(locator: Locator, pattern: RegExp, timeout = 10_000): Promise<string> {
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

/** The groups on the ring, in the order drawn (ghosts of groups that left are not counted). */
const ringOf = (page: Page): Promise<string[]> =>
  page
    .locator('[data-testid="ring"] button[data-on-ring="true"]')
    .evaluateAll((chips) => chips.map((c) => c.getAttribute('data-group') ?? ''));

async function waitRing(page: Page, expected: string[], timeout = 10_000): Promise<void> {
  const deadline = Date.now() + timeout;
  let ring: string[] = [];
  for (;;) {
    ring = await ringOf(page);
    if (JSON.stringify(ring) === JSON.stringify(expected)) return;
    if (Date.now() > deadline) {
      throw new Error(`ring is ${JSON.stringify(ring)}, expected ${JSON.stringify(expected)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const shot = async (page: Page, name: string): Promise<void> => {
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`) });
};

describe.skipIf(skip)(
  skip
    ? `console end to end — SKIPPED: ${CHROMIUM} is not installed (apt-get install -y chromium)`
    : 'console end to end in headless Chromium',
  () => {
    const redis = useTestRedis();
    let context: BrowserContext;
    let profile: string;

    beforeAll(async () => {
      if (!haveChromium) {
        throw new Error(`${CHROMIUM} is missing: CI must install Debian's chromium (.ci/run)`);
      }
      ensureConsoleBuilt();
      mkdirSync(SHOTS, { recursive: true });
      const { chromium } = await import('playwright-core');
      // A new, empty profile; no network but loopback is ever touched.
      profile = mkdtempSync(path.join(os.tmpdir(), 'ringmaster-chromium-'));
      context = await chromium.launchPersistentContext(profile, {
        executablePath: CHROMIUM,
        headless: true,
        args: [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--disable-quic',
          '--no-first-run',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
        ],
        viewport: { width: 1400, height: 900 },
      });
    }, 60_000);

    afterAll(async () => {
      await context?.close();
      if (profile) rmSync(profile, { recursive: true, force: true });
    });

    /** A new tab that records every console error and uncaught exception. */
    async function openPage(): Promise<{ page: Page; errors: string[] }> {
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error') errors.push(message.text());
      });
      page.on('pageerror', (error) => errors.push(`uncaught: ${error.message}`));
      return { page, errors };
    }

    it('shows the ring live, and steers a group by clicking: pause, resume, park, clear', async () => {
      const server: TestServer = await startTestServer(redis.url);
      const { page, errors } = await openPage();
      const queue = queueName('console');
      try {
        const q = server.server.engine.queue(queue);
        // acme: 2 jobs in flight and 4 waiting; globex and initech: 3 waiting each.
        for (let i = 0; i < 6; i += 1) await q.enqueue('acme', { i });
        for (let i = 0; i < 2; i += 1) await q.claim({ leaseMs: 600_000 });
        for (const group of ['globex', 'initech']) {
          for (let i = 0; i < 3; i += 1) await q.enqueue(group, { i });
        }
        await server.server.engine.queue(queueName('other')).enqueue('solo', null);

        // Open the console and pick the queue in the list.
        await page.goto(`${server.server.url}/`);
        await page.locator('.queue-item', { hasText: queue }).click();
        await waitRing(page, ['acme', 'globex', 'initech']);
        await waitText(page.getByTestId('link'), /live/);
        const head = page.locator('[data-testid="ring"] .chip-head');
        expect(await head.getAttribute('data-group')).toBe('acme');
        await page.locator('table.groups tr[data-group="initech"]').waitFor();
        await shot(page, '01-ring');

        // The group's detail: why it runs.
        await page.locator('table.groups tr[data-group="acme"]').click();
        const reason = page.getByTestId('reason');
        await waitText(reason, /^On the ring at position \d of 3/);
        await shot(page, '02-detail');

        // Pause: acme leaves the ring (a ghost marks where it stood), the reason changes, and the
        // action is confirmed by the live feed.
        await page.getByRole('button', { name: 'Pause' }).click();
        await waitRing(page, ['globex', 'initech']);
        await waitText(
          reason,
          /^Paused: it gets no turns until resumed \(4 pending, 2 in flight\)/,
        );
        await waitText(page.getByTestId('outcome'), /Paused — confirmed by the live feed/);
        await waitText(page.getByTestId('ring-log'), /−acme/);
        await page.locator('table.groups tr[data-group="acme"] .badge-paused').waitFor();
        await shot(page, '03-paused');

        // Resume: it returns to the ring.
        await page.getByRole('button', { name: 'Resume' }).click();
        await waitRing(page, ['globex', 'initech', 'acme']);
        await waitText(reason, /^On the ring at position 3 of 3/);
        await waitText(page.getByTestId('outcome'), /Resumed — confirmed by the live feed/);
        await shot(page, '04-resumed');

        // A limit below the work in flight (2): parked, off the ring.
        await page.getByLabel('New limit').fill('1');
        await page.getByRole('button', { name: 'Set limit' }).click();
        await waitRing(page, ['globex', 'initech']);
        await waitText(
          reason,
          /^Parked: the limit was lowered below the work in flight, 2 must finish first \(2 in flight, limit 1\)/,
        );
        await waitText(page.getByTestId('outcome'), /Limit 1 — confirmed by the live feed/);
        await page.locator('[data-testid="detail"] .badge-parked').waitFor();
        await shot(page, '05-parked');

        // A refused input is said in words, and changes nothing.
        await page.getByLabel('New limit').fill('2000000');
        await page.getByRole('button', { name: 'Set limit' }).click();
        await waitText(page.getByTestId('outcome'), /failed\. Not accepted: .*limit/i);
        await shot(page, '06-refused');

        // Clear the limit: back on the ring.
        await page.getByRole('button', { name: 'Clear limit' }).click();
        await waitRing(page, ['globex', 'initech', 'acme']);
        await waitText(reason, /^On the ring at position 3 of 3/);
        await shot(page, '07-cleared');

        expect(errors).toEqual([]);
      } finally {
        await page.close();
        await server.stop();
      }
    }, 60_000);

    it('shows that it is reconnecting when the server goes away, and resyncs when it is back', async () => {
      let server: TestServer = await startTestServer(redis.url);
      const { page, errors } = await openPage();
      const queue = queueName('reconnect');
      const direct = new Redis(redis.url);
      try {
        const q = server.server.engine.queue(queue);
        for (const group of ['north', 'south', 'east']) await q.enqueue(group, null);
        await page.goto(`${server.server.url}/#queue=${queue}`);
        await waitRing(page, ['north', 'south', 'east']);
        await waitText(page.getByTestId('link'), /live/);
        expect(errors).toEqual([]);

        // The server stops: the console says so.
        const port = new URL(server.server.url).port;
        await server.stop();
        await waitText(page.getByTestId('link'), /reconnecting/);
        await shot(page, '08-reconnecting');

        // Meanwhile the ring changes in Redis; then the server is back on the same port.
        await new Ringmaster(direct).queue(queue).pause('south');
        server = await startTestServer(redis.url, { PORT: port });
        await waitText(page.getByTestId('link'), /live/, 20_000);
        await waitRing(page, ['north', 'east'], 20_000);
        await shot(page, '09-resynced');

        // The only errors are the browser's own reports of the refused connections.
        const unexpected = errors.filter(
          (e) => !/ERR_CONNECTION_REFUSED|WebSocket connection to .* failed/.test(e),
        );
        expect(unexpected).toEqual([]);
      } finally {
        direct.disconnect();
        await page.close();
        await server.stop();
      }
    }, 60_000);

    it('asks for a token once; a read token sees no action buttons, an admin token does', async () => {
      const readToken = 'read-token-for-the-console-e2e';
      const adminToken = 'admin-token-for-the-console-e2e';
      const server = await startTestServer(redis.url, {
        AUTH_TOKENS: `read:${readToken},admin:${adminToken}`,
      });
      const { page, errors } = await openPage();
      const queue = queueName('auth');
      try {
        await server.server.engine.queue(queue).enqueue('tenant-a', null);
        await page.goto(`${server.server.url}/#queue=${queue}&group=tenant-a`);
        await page.getByTestId('token-form').waitFor();
        await shot(page, '10-token');

        await page.getByLabel('Token').fill(readToken);
        await page.getByRole('button', { name: 'Continue' }).click();
        await waitRing(page, ['tenant-a']);
        await waitText(page.getByTestId('role'), /read-only/);
        await waitText(page.getByTestId('reason'), /^On the ring at position 1 of 1/);
        expect(await page.getByTestId('actions').count()).toBe(0);
        await shot(page, '11-read-only');

        // The token is kept for the tab: a reload does not ask again.
        await page.reload();
        await waitRing(page, ['tenant-a']);
        expect(await page.getByTestId('token-form').count()).toBe(0);

        await page.getByRole('button', { name: 'Sign out' }).click();
        await page.getByLabel('Token').fill(adminToken);
        await page.getByRole('button', { name: 'Continue' }).click();
        await waitText(page.getByTestId('role'), /admin/);
        await page.getByTestId('actions').waitFor();
        await page.getByRole('button', { name: 'Pause' }).click();
        await waitRing(page, []);
        await waitText(page.getByTestId('reason'), /^Paused/);
        await shot(page, '12-admin');

        expect(errors).toEqual([]);
      } finally {
        await page.close();
        await server.stop();
      }
    }, 60_000);
  },
);
