// Detail of the main thread's long tasks while the page loads, from a Chromium trace of a
// cold browser (a measurement; nothing here passes or fails). For each task over MIN_MS
// (default 20): its wall time and the thread's own CPU time in it (the rest it waited: for a
// core, or for another process to answer a synchronous request), the parts it brought, its
// top-level makeup and, for each style recalc and layout over 2 ms in it, how many elements
// or layout objects it handled and its font lookups (the `fonts` trace category:
// FontCache::GetFontPlatformData, the render-style and family-match requests to the browser
// process). Then the CPU other processes used while the page loaded, the longest task and
// the count over 50 ms.
//   URL=http://127.0.0.1:8765/brokerlab/ node tests/e2e/perf/load-detail.mjs
//   CATS=fonts,v8.wasm  trace categories on top of the timeline's (default: fonts)
//   TREE=4              also print each long task's events as a tree, 4 levels deep
//   OUT=/tmp/t.json     keep the trace (loads in chrome://tracing or Perfetto)
import { chromium } from 'playwright-core';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const url = process.env.URL ?? 'http://127.0.0.1:8080/';
const minUs = Number(process.env.MIN_MS ?? 20) * 1000;
const tree = Number(process.env.TREE ?? 0);
const extra = process.env.CATS ?? 'fonts';
const ctx = await chromium.launchPersistentContext(mkdtempSync(path.join(tmpdir(), 'p-')), {
  executablePath: '/usr/bin/chromium', headless: true, args: ['--headless', '--no-sandbox'],
  viewport: { width: 1280, height: 800 } });
await ctx.addInitScript(() => localStorage.setItem('brokerlab.tour.seen', '1'));
const page = ctx.pages()[0];
const cdp = await ctx.newCDPSession(page);
const events = [];
cdp.on('Tracing.dataCollected', (e) => events.push(...e.value));
await cdp.send('Tracing.start', {
  categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'v8',
    'blink.user_timing', ...extra.split(',').filter(Boolean)].join(','),
  transferMode: 'ReportEvents',
});
await page.goto(url);
await page.locator('main[data-ready=true]').waitFor({ state: 'attached', timeout: 60_000 });
await page.waitForTimeout(500);
const done = new Promise((resolve) => cdp.once('Tracing.tracingComplete', resolve));
await cdp.send('Tracing.end');
await done;
await ctx.close();
if (process.env.OUT) writeFileSync(process.env.OUT, JSON.stringify({ traceEvents: events }));

const tasks = events.filter((e) => e.name === 'RunTask' && e.ph === 'X');
// The page's main thread: the one that set the parts' marks. (The busiest thread is not
// always the page's: a cold browser also starts a WebUI renderer of its own, the omnibox
// popup, which can run longer than the page in all.)
const mark = events.find((e) => e.name?.startsWith('part ') && e.cat?.includes('blink.user_timing'));
const { pid, tid } = mark;
const mine = tasks.filter((t) => t.pid === pid && t.tid === tid).sort((a, b) => a.ts - b.ts);
const t0 = mine[0].ts;
const ms = (us) => (us / 1000).toFixed(1);
// Sum of the events named `name` in `list`, nested ones not counted twice.
const total = (list, name) => {
  let sum = 0, n = 0, reached = 0;
  for (const e of list) {
    if (e.name !== name || e.ts < reached) continue;
    sum += e.dur; n++; reached = e.ts + e.dur;
  }
  return { sum, n };
};
let longest = 0, over50 = 0;
for (const t of mine) {
  if (t.dur > longest) longest = t.dur;
  if (t.dur > 50_000) over50++;
}
for (const t of mine.filter((t) => t.dur >= minUs)) {
  const inner = events
    .filter((e) => e.pid === pid && e.tid === tid && e.ph === 'X' && e !== t && e.name !== 'RunTask'
      && e.ts >= t.ts && e.ts + e.dur <= t.ts + t.dur)
    .sort((a, b) => a.ts - b.ts || b.dur - a.dur);
  const by = new Map();
  let reached = 0;
  for (const e of inner) {
    if (e.ts < reached) continue;
    by.set(e.name, (by.get(e.name) ?? 0) + e.dur);
    reached = e.ts + e.dur;
  }
  const parts = events
    .filter((e) => e.cat?.includes('blink.user_timing') && e.name.startsWith('part ')
      && e.ts >= t.ts && e.ts <= t.ts + t.dur).map((e) => `[${e.name}] `).join('');
  const makeup = [...by].sort((a, b) => b[1] - a[1]).slice(0, 4)
    .map(([name, us]) => `${name} ${ms(us)}`).join(', ');
  // tdur: the thread's own CPU time; dur minus tdur is time the thread waited (for a core,
  // or for another process over a sync IPC).
  console.log(`at ${ms(t.ts - t0).padStart(6)} ms  ${ms(t.dur).padStart(5)} ms (cpu ${ms(t.tdur ?? 0)})  ${parts}${makeup}`);
  // Style and layout with their sizes, and the font lookups inside each.
  for (const e of inner) {
    if (e.name !== 'UpdateLayoutTree' && e.name !== 'Layout') continue;
    if (e.dur < 2000) continue;
    const within = inner.filter((f) => f.ts >= e.ts && f.ts + f.dur <= e.ts + e.dur);
    const font = total(within, 'FontCache::GetFontPlatformData');
    const strike = total(within, 'WebSandboxSupportLinux::GetWebFontRenderStyleForStrike');
    const match = total(within, 'FontDataManager::onMatchFamilyStyle');
    const a = e.args ?? {};
    const size = e.name === 'Layout'
      ? `objects ${a.beginData?.dirtyObjects}/${a.beginData?.totalObjects}`
      : `elements ${a.elementCount ?? '?'}`;
    console.log(`         ${e.name.padEnd(16)} ${ms(e.dur).padStart(5)} ms (cpu ${ms(e.tdur ?? 0)})  ${size}; font lookups ${font.n} ${ms(font.sum)} ms (render style IPC ${strike.n} ${ms(strike.sum)}, family match ${match.n} ${ms(match.sum)})`);
  }
  if (tree) {
    const stack = [];
    for (const e of inner) {
      while (stack.length && e.ts >= stack[stack.length - 1]) stack.pop();
      const depth = stack.length;
      stack.push(e.ts + e.dur);
      if (depth < tree && e.dur >= 500) {
        console.log(`    ${ms(e.ts - t.ts).padStart(6)} +${ms(e.dur).padStart(5)}  ${'  '.repeat(depth)}${e.name}`);
      }
    }
  }
}
const fonts = total(events.filter((e) => e.pid === pid && e.tid === tid && e.ph === 'X').sort((a, b) => a.ts - b.ts), 'FontCache::GetFontPlatformData');
// Other threads that ran while the page loaded (from the first task to ready): competitors
// for the machine's cores.
const t1 = mine[mine.length - 1].ts;
const others = new Map();
for (const t of tasks) {
  if (t.pid === pid && t.tid === tid) continue;
  if (t.ts < t0 || t.ts > t1) continue;
  const k = `${t.pid}/${t.tid}`;
  others.set(k, (others.get(k) ?? 0) + (t.tdur ?? 0));
}
const names = new Map();
for (const e of events) {
  if (e.ph === 'M' && e.name === 'process_name') names.set(e.pid, e.args.name);
  if (e.ph === 'M' && e.name === 'process_labels') names.set(`l${e.pid}`, e.args.labels);
}
const busy = [...others].sort((a, b) => b[1] - a[1]).slice(0, 3).map(([k, us]) => {
  const p = Number(k.split('/')[0]);
  return `${names.get(p) ?? p}${names.get(`l${p}`) ? ` (${names.get(`l${p}`)})` : ''} ${ms(us)}`;
});
console.log(`other threads' cpu while loading (ms): ${busy.join(', ')}`);
console.log(`longest ${ms(longest)} ms, tasks over 50 ms: ${over50}; font lookups in the load: ${fonts.n}, ${ms(fonts.sum)} ms`);
