/**
 * The GraphiQL that `/graphql` serves, with AUTH_TOKENS set, in Debian's headless Chromium
 * driven by playwright-core: a token typed in the Headers tab reaches a subscription
 * too — GraphiQL sends subscriptions as SSE over POST with the tab's headers, not over a
 * WebSocket whose connection_init cannot carry them — so the ring shows live; and a refused
 * token shows its error in the result pane and ends the operation, with no reconnect loop (no
 * WebSocket is ever opened, and the refused subscription is sent once).
 *
 * Needs /usr/bin/chromium (`apt-get install -y chromium`; `.ci/run` installs it). Without it the
 * file is skipped, except under CI, where it fails.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, CHROMIUM_ARGS, requireChromium, skipBrowser } from '../support/chromium.js';
import { queueName } from '../support/pubsub.js';
import { useTestRedis } from '../support/redis.js';
import { startTestServer, type TestServer } from '../support/server.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SHOTS = path.join(ROOT, 'test-results', 'graphiql');
const skip = skipBrowser;

const TOKEN = 'admin-token-for-the-graphiql-e2e';

/** Wait until `locator`'s text matches `pattern`; the last text seen is in the error. */
async function waitText(locator: Locator, pattern: RegExp, timeout = 10_000): Promise<string> {
  const deadline = Date.now() + timeout;
  let text = '';
  for (;;) {
    // Monaco draws spaces as no-break spaces, each line in its own element (no newlines).
    text = ((await locator.textContent({ timeout }).catch(() => '')) ?? '').replaceAll(
      '\u00a0',
      ' ',
    );
    if (pattern.test(text)) return text;
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${pattern} (last text: ${JSON.stringify(text)})`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Replace the Headers tab's content, as a user types it. */
async function setHeaders(page: Page, json: string): Promise<void> {
  const tab = page.getByRole('button', { name: 'Headers', exact: true });
  // Clicking the tab that is already open would fold the editor tools away.
  if (!/\bactive\b/.test((await tab.getAttribute('class')) ?? '')) await tab.click();
  // Two editor tools (Variables, Headers) exist; the Headers one is shown last.
  const editor = page.locator('.graphiql-editor-tool .graphiql-editor').last();
  await editor.click();
  await page.keyboard.press('ControlOrMeta+A');
  // Emptied first: Monaco would wrap a selection in the quote or brace typed over it.
  await page.keyboard.press('Backspace');
  await page.keyboard.insertText(json);
  const typed = await waitText(editor, /Authorization/);
  expect(typed.replace(/^\d+\s*/, '').trim()).toBe(json);
}

describe.skipIf(skip)(
  skip
    ? `GraphiQL end to end — SKIPPED: ${CHROMIUM} is not installed (apt-get install -y chromium)`
    : 'GraphiQL end to end in headless Chromium',
  () => {
    const redis = useTestRedis();
    let browser: Browser;

    beforeAll(async () => {
      requireChromium();
      mkdirSync(SHOTS, { recursive: true });
      const { chromium } = await import('playwright-core');
      browser = await chromium.launch({
        executablePath: CHROMIUM,
        headless: true,
        args: CHROMIUM_ARGS,
      });
    }, 60_000);

    afterAll(async () => {
      await browser?.close();
    });

    it('carries the Headers tab token to a subscription, and shows a refusal instead of reconnecting', async () => {
      const server: TestServer = await startTestServer(redis.url, {
        AUTH_TOKENS: `admin:${TOKEN}`,
      });
      // A new context: an empty profile, so no headers or tabs persisted by an earlier run.
      const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error') errors.push(message.text());
      });
      page.on('pageerror', (error) => errors.push(`uncaught: ${error.message}`));
      const sockets: string[] = [];
      page.on('websocket', (socket) => sockets.push(socket.url()));
      const subscriptions: string[] = [];
      page.on('request', (request) => {
        if (/^\{"query":"subscription\b/.test(request.postData() ?? '')) {
          subscriptions.push(request.method());
        }
      });
      const queue = queueName('graphiql');
      try {
        await server.server.engine.queue(queue).enqueue('first', null);
        const subscription = `subscription { ringChanged(queue: "${queue}") { ring reason } }`;
        await page.goto(`${server.endpoint}?query=${encodeURIComponent(subscription)}`);
        const result = page.locator('.graphiql-response');
        const run = page.getByRole('button', { name: /^(Execute|Stop) query/ });

        // The token in the Headers tab: the subscription runs and stays live.
        await setHeaders(page, `{"Authorization": "Bearer ${TOKEN}"}`);
        await run.click();
        await waitText(result, /"reason": "SNAPSHOT"/);
        expect(await waitText(result, /"ring"/)).toMatch(/"first"/);
        await server.server.engine.queue(queue).enqueue('acme', null);
        await waitText(result, /"acme"[\s\S]*"reason": "CHANGE"/);
        await page.screenshot({ path: path.join(SHOTS, '01-subscribed.png') });
        await page.getByRole('button', { name: /^Stop query/ }).click();
        await page.getByRole('button', { name: /^Execute query/ }).waitFor();

        // A token the server refuses: the error shows and the operation ends.
        await setHeaders(page, '{"Authorization": "Bearer not-a-token-of-this-server"}');
        await run.click();
        await waitText(result, /a valid bearer token is required[\s\S]*UNAUTHENTICATED/);
        await page.getByRole('button', { name: /^Execute query/ }).waitFor();
        await page.screenshot({ path: path.join(SHOTS, '02-refused.png') });
        // A round trip after the refusal (the schema, re-fetched), so that a retry of the
        // refused subscription, had there been one, would have been sent by now.
        const refetched = page.waitForResponse((r) =>
          /IntrospectionQuery/.test(r.request().postData() ?? ''),
        );
        await page.getByRole('button', { name: /Re-fetch GraphQL schema/ }).click();
        await refetched;

        expect(sockets).toEqual([]);
        expect(subscriptions).toEqual(['POST', 'POST']);
        // The browser reports each 401 (the schema fetch without a token, the refused run).
        expect(errors.filter((e) => !/status of 401 \(Unauthorized\)/.test(e))).toEqual([]);
      } finally {
        await context.close();
        await server.stop();
      }
    }, 60_000);
  },
);
