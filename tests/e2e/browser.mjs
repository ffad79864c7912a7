// Opening the built page in headless Chromium, shared by every end-to-end test file.
// playwright-core drives Debian's Chromium (never a downloaded browser); each browser
// gets a fresh profile (so storage starts empty) that `close()` removes.

import { after } from 'node:test';
import { chromium } from 'playwright-core';
import { mkdtempSync, rmSync } from 'node:fs';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const BASE_URL = process.env.BROKERLAB_URL ?? 'http://127.0.0.1:8080/';
export const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
/** Chromium quiet: no GPU, and none of its own traffic (the page must make none either). */
export const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const opened = [];

// Whatever a test file opened is closed when the file ends, even if a test failed.
after(async () => {
  while (opened.length) await opened.pop()();
});

/**
 * A browser with a fresh profile: `{ context, page, close }`.
 * `tourSeen` (default true) marks the first-visit tour seen before any page loads, so it
 * stays out of the way (its own tests are in firstvisit.test.mjs); `locale` sets both the
 * context's locale and Chromium's language; other options go to playwright as they are.
 */
export async function openBrowser({ tourSeen = true, locale, ...options } = {}) {
  const profile = mkdtempSync(path.join(tmpdir(), 'brokerlab-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: locale ? [...ARGS, `--lang=${locale}`] : ARGS,
    viewport: { width: 1280, height: 800 },
    ...(locale ? { locale } : {}),
    ...options,
  });
  if (tourSeen) {
    await context.addInitScript(() => {
      try {
        localStorage.setItem('brokerlab.tour.seen', '1');
      } catch {
        // No storage (an opaque origin): nothing to mark.
      }
    });
  }
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  };
  opened.push(close);
  return { context, page: context.pages()[0] ?? (await context.newPage()), close };
}

/** Collects the page's console errors and uncaught exceptions into the returned array. */
export function watchErrors(page) {
  const errors = [];
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  page.on('pageerror', (e) => errors.push(String(e)));
  return errors;
}

/**
 * Waits until the page's controls are on screen (the wasm module started) and the rest of
 * its first screen has arrived (it comes in parts, one task each; `main` says when).
 */
export async function waitForLab(page) {
  await page.getByTestId('play').waitFor({ state: 'visible', timeout: 30_000 });
  await page.locator('main[data-ready=true]').waitFor({ state: 'attached', timeout: 30_000 });
}

/**
 * A fresh browser showing `url` with its controls on screen:
 * `{ context, page, errors, close }` (options as for `openBrowser`).
 */
export async function openPage(url = BASE_URL, options = {}) {
  const browser = await openBrowser(options);
  const errors = watchErrors(browser.page);
  await browser.page.goto(url, { waitUntil: 'load' });
  await waitForLab(browser.page);
  return { ...browser, errors };
}

/**
 * The text of a version 1 share link (what follows `#s=`) holding `doc`, a link document
 * as core/src/link.rs writes it (`{ example, seed, step, view, … }`, or its JSON text):
 * its JSON deflated, in URL-safe base64. For links the page would never make (a hand-edited or forged one).
 */
export function linkOf(doc) {
  const json = typeof doc === 'string' ? doc : JSON.stringify(doc);
  return `v1.${deflateRawSync(Buffer.from(json)).toString('base64url')}`;
}

