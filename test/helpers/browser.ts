// A real browser for the console's end-to-end tests: Debian's chromium driven by playwright-core, headless, with a
// fresh profile. `describeBrowser` skips without it (the set-up printed one line) — except with CI=true, where the
// suite fails. Set-up: `npm test` does it (test/setup/global-setup.ts runs scripts/setup-browser.sh).
import { chromium, type Browser, type BrowserContextOptions } from 'playwright-core';
import { describe, inject, it } from 'vitest';
import { browserStatus, CHROMIUM } from '../setup/parts.js';

const status = browserStatus();
const inCI = process.env.CI === 'true';
let warned = false;

export function describeBrowser(name: string, fn: () => void): void {
  if (!status.ready && inCI) {
    const reason = status.reason ?? 'no browser';
    describe(name, () => {
      it('needs chromium', () => {
        throw new Error(`a browser is required in CI but unavailable: ${reason}`);
      });
    });
    return;
  }
  if (!status.ready && !warned && inject('familiarSetupSkipped').length === 0) {
    warned = true;
    console.warn(`[browser tests skipped] ${status.reason ?? ''}`);
  }
  // A browser, a daemon and page loads: slower than the suite's default per test.
  describe.skipIf(!status.ready)(name, { timeout: 90_000 }, fn);
}

export const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync',
];

/** Chromium, headless; each launch gets a fresh profile folder (playwright passes a new --user-data-dir). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
}

/** The three ways the screenshots look at a page: a desktop in light and dark, and a phone. */
export const VIEWS = {
  light: { colorScheme: 'light', viewport: { width: 1280, height: 820 } },
  dark: { colorScheme: 'dark', viewport: { width: 1280, height: 820 } },
  phone: { colorScheme: 'light', viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 1 },
} as const satisfies Record<string, BrowserContextOptions>;
