// The main thread's tasks while the page loads, from a Chromium trace: each task over
// MIN_MS (default 15) with what its time went to (top-level trace events). The first screen
// arrives in parts (src/model/arrival.rs), each part in a timer task of its own: the
// `TimerFire` tasks, each named by the performance mark the page sets as a part arrives
// ("part Topology").
//   URL=http://127.0.0.1:8765/brokerlab/ node tests/e2e/perf/load-tasks.mjs
//   MIN_MS=0 ... lists every task (the parts' timers included, however short).
//   WARM=1 ... traces a second load in the same browser (the first one untraced).
// Measurements only: nothing here passes or fails (docs/performance.md has a reading).
import { chromium } from 'playwright-core';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const url = process.env.URL ?? 'http://127.0.0.1:8080/';
const minUs = Number(process.env.MIN_MS ?? 15) * 1000;
const ctx = await chromium.launchPersistentContext(mkdtempSync(path.join(tmpdir(), 'p-')), {
  executablePath: '/usr/bin/chromium', headless: true, args: ['--headless', '--no-sandbox'],
  viewport: { width: 1280, height: 800 } });
await ctx.addInitScript(() => localStorage.setItem('brokerlab.tour.seen', '1'));
const page = ctx.pages()[0];
// WARM=1 loads the page once before the traced load, as a browser that has shown pages
// before (its fonts looked up, its caches warm) would.
if (process.env.WARM === '1') {
  await page.goto(url);
  await page.locator('main[data-ready=true]').waitFor({ state: 'attached', timeout: 60_000 });
  await page.goto('about:blank');
}
const cdp = await ctx.newCDPSession(page);
const events = [];
cdp.on('Tracing.dataCollected', (e) => events.push(...e.value));
await cdp.send('Tracing.start', {
  categories: 'devtools.timeline,disabled-by-default-devtools.timeline,v8,blink.user_timing',
  transferMode: 'ReportEvents',
});
await page.goto(url);
await page.locator('main[data-ready=true]').waitFor({ state: 'attached', timeout: 60_000 });
await page.waitForTimeout(500);
const done = new Promise((resolve) => cdp.once('Tracing.tracingComplete', resolve));
await cdp.send('Tracing.end');
await done;
await ctx.close();

const tasks = events.filter((e) => e.name === 'RunTask' && e.ph === 'X');
// The page's main thread: the one that set the parts' marks. (Not the busiest thread: a cold
// browser also runs a WebUI renderer of its own, the omnibox popup's, which can be busier.)
const { pid, tid } = events.find((e) => e.cat?.includes('blink.user_timing')
  && e.name.startsWith('part '));
const mine = tasks.filter((t) => t.pid === pid && t.tid === tid).sort((a, b) => a.ts - b.ts);
const t0 = mine[0].ts;
for (const t of mine.filter((t) => t.dur >= minUs)) {
  const inner = events
    .filter((e) => e.pid === pid && e.tid === tid && e.ph === 'X' && e !== t
      && e.name !== 'RunTask'
      && e.ts >= t.ts && e.ts + e.dur <= t.ts + t.dur)
    .sort((a, b) => a.ts - b.ts);
  // Top-level events only: skip what is nested in one already counted.
  const by = new Map();
  let reached = 0;
  for (const e of inner) {
    if (e.ts < reached) continue;
    by.set(e.name, (by.get(e.name) ?? 0) + e.dur / 1000);
    reached = e.ts + e.dur;
  }
  const parts = events
    .filter((e) => e.cat?.includes('blink.user_timing') && e.name.startsWith('part ')
      && e.ts >= t.ts && e.ts <= t.ts + t.dur)
    .map((e) => `[${e.name}] `).join('');
  const makeup = parts + [...by].sort((a, b) => b[1] - a[1]).slice(0, 5)
    .map(([name, ms]) => `${name} ${ms.toFixed(1)}`).join(', ');
  // cpu: the thread's own time in the task; the rest it waited (for a core, or for another
  // process to answer a synchronous request such as a font's).
  const cpu = `(cpu ${((t.tdur ?? 0) / 1000).toFixed(1)})`.padStart(11);
  console.log(`at ${((t.ts - t0) / 1000).toFixed(0).padStart(5)} ms  ${(t.dur / 1000).toFixed(1).padStart(6)} ms ${cpu}  ${makeup}`);
}
const longest = Math.max(...mine.map((t) => t.dur));
const over = mine.filter((t) => t.dur > 50_000).length;
console.log(`longest ${(longest / 1000).toFixed(1)} ms, tasks over 50 ms: ${over}`);
