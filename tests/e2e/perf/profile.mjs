// Where the page's main thread spends its time while playing the burst at 20× (or
// seeking to its end, PHASE=seek; loading the page, PHASE=load): a sampled CPU profile through the DevTools protocol,
// printed as the functions with the most self and inclusive time. Wasm functions show
// by name only in a build that keeps them (the release site strips them):
//   wasm-bindgen --target web --keep-debug --out-dir OUT target/wasm32-unknown-unknown/release/brokerlab-app.wasm
//   wasm-opt -Oz -g OUT/brokerlab-app_bg.wasm -o SITE/<the site's _bg.wasm name>   (and copy OUT's .js over the site's)
// then fix the two `integrity` hashes in SITE/index.html (sha384 of each new file).
//   URL=http://127.0.0.1:PORT/SITE/ node tests/e2e/perf/profile.mjs
// Measurements only: nothing here passes or fails (docs/performance.md has a reading).
import { chromium } from 'playwright-core';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
const url = process.env.URL ?? 'http://127.0.0.1:8080/';
const ctx = await chromium.launchPersistentContext(mkdtempSync(path.join(tmpdir(), 'p-')), {
  executablePath: '/usr/bin/chromium', headless: true, args: ['--headless', '--no-sandbox'], viewport: { width: 1280, height: 800 } });
await ctx.addInitScript(() => localStorage.setItem('brokerlab.tour.seen', '1'));
const page = ctx.pages()[0];
const scenario = process.env.PHASE ?? 'play';
const cdp = await ctx.newCDPSession(page);
await cdp.send('Profiler.enable');
await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
if (scenario === 'load') await cdp.send('Profiler.start');
await page.goto(url);
await page.getByTestId('play').waitFor({ state: 'visible', timeout: 60000 });
await page.locator('main[data-ready=true]').waitFor({ state: 'attached', timeout: 60000 });
if (scenario !== 'load') {
  await page.getByTestId('speed').selectOption('20');
  await cdp.send('Profiler.start');
}
if (scenario === 'load') {
  await page.waitForTimeout(1500);
} else if (scenario === 'play') {
  await page.getByTestId('play').click();
  await page.waitForTimeout(6000);
  await page.getByTestId('play').click();
} else {
  await page.getByTestId('scrubber').evaluate((s) => { s.value = s.max; s.dispatchEvent(new Event('input', { bubbles: true })); });
  await page.waitForFunction(() => document.querySelector('[data-testid=seeking]').textContent === '', null, { timeout: 120000 });
}
const { profile } = await cdp.send('Profiler.stop');
await ctx.close();
if (process.env.PROFILE_OUT) (await import('node:fs')).writeFileSync(process.env.PROFILE_OUT, JSON.stringify(profile));
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map(); const total = new Map();
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const dt = profile.timeDeltas; let sum = 0;
for (let i = 0; i < profile.samples.length; i++) {
  const d = dt[i] ?? 0; sum += d;
  let id = profile.samples[i]; const n = byId.get(id);
  const name = n.callFrame.functionName || `(${n.callFrame.url.split('/').pop()})`;
  self.set(name, (self.get(name) ?? 0) + d);
  const seen = new Set();
  while (id !== undefined) { const m = byId.get(id); const nm = m.callFrame.functionName || '(anon)'; if (!seen.has(nm)) { total.set(nm, (total.get(nm) ?? 0) + d); seen.add(nm);} id = parent.get(id); }
}
const top = (m, k) => [...m].sort((a, b) => b[1] - a[1]).slice(0, k).map(([n, t]) => `${(t / 1000).toFixed(0).padStart(7)} ms  ${n.slice(0, 150)}`).join('\n');
console.log('total sampled', (sum / 1000).toFixed(0), 'ms');
console.log('--- self'); console.log(top(self, 40));
console.log('--- total (inclusive)'); console.log(top(total, Number(process.env.TOP ?? 70)));
