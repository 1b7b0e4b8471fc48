/**
 * Debian's Chromium for the browser tests, driven by playwright-core (no browser is ever
 * downloaded). Outside CI a missing binary skips those tests; under CI it fails them, since
 * `.ci/run` installs it.
 */
import { existsSync } from 'node:fs';

export const CHROMIUM = '/usr/bin/chromium';
export const haveChromium = existsSync(CHROMIUM);
/** Skip the browser tests: no Chromium, and not under CI. */
export const skipBrowser = !haveChromium && !process.env.CI;

/** Headless, loopback only: nothing but the server under test is ever contacted. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Throw the CI message when Chromium is missing (call first in a browser test's beforeAll). */
export function requireChromium(): void {
  if (!haveChromium) {
    throw new Error(`${CHROMIUM} is missing: CI must install Debian's chromium (.ci/run)`);
  }
}
