// Browser performance run of the built site (issue 14): frame times, main-thread long
// tasks (PerformanceObserver) and JS heap while the page loads, plays the burst at 20×,
// seeks to the end, opens a message's history, loads and plays another example, and
// plays a stage crowded with about 500 flights at once. Prints a Markdown table.
// Timings are measurements, never pass/fail: run it with .ci/perf-web.
//   BROKERLAB_URL=http://127.0.0.1:PORT/brokerlab/ node tests/e2e/perf/browser.mjs

import { chromium } from 'playwright-core';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const BASE_URL = process.env.BROKERLAB_URL ?? 'http://127.0.0.1:8080/';
/** PERF_TRACE=1 also records a Chromium trace and splits the long tasks by kind of work.
 * Tracing slows the page down itself: compare traced runs only with traced runs. */
const TRACE = process.env.PERF_TRACE === '1';
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--no-first-run', '--enable-precise-memory-info',
  '--disable-background-networking'];

/** Installs the recorders before the page's scripts run: long tasks and frame gaps. */
function recorders() {
  window.__perf = { longTasks: [], frames: [], recording: false };
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__perf.longTasks.push({ at: e.startTime, ms: e.duration });
  }).observe({ type: 'longtask', buffered: true });
  let last = performance.now();
  const tick = (now) => {
    if (window.__perf.recording) window.__perf.frames.push(now - last);
    last = now;
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
  localStorage.setItem('brokerlab.tour.seen', '1');
}

const percentile = (xs, p) => {
  if (xs.length === 0) return 0;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};

/** What a main-thread task's time went to, by trace event name (top-level ones only). */
const KINDS = {
  FunctionCall: 'script', EvaluateScript: 'script', 'v8.callFunction': 'script', FireAnimationFrame: 'script',
  EventDispatch: 'script', TimerFire: 'script', FunctionCallV8: 'script',
  UpdateLayoutTree: 'style', Layout: 'layout', PrePaint: 'paint', Paint: 'paint', Layerize: 'paint',
  MinorGC: 'gc', MajorGC: 'gc', 'V8.GC_SCAVENGER': 'gc', 'V8.GC_MARK_COMPACTOR': 'gc',
};

/** Starts a Chromium trace of the main thread's tasks (DevTools' timeline categories). */
async function startTrace(cdp) {
  const events = [];
  cdp.on('Tracing.dataCollected', (e) => events.push(...e.value));
  await cdp.send('Tracing.start', {
    categories: 'devtools.timeline,disabled-by-default-devtools.timeline,v8',
    transferMode: 'ReportEvents',
  });
  return events;
}

/**
 * Stops the trace and splits each main-thread task over 50 ms into what it spent on script
 * (wasm included), style, layout, paint and garbage collection: `{ tasks, ms: {kind: total} }`.
 */
async function longTaskMakeup(cdp, events) {
  const done = new Promise((resolve) => cdp.once('Tracing.tracingComplete', resolve));
  await cdp.send('Tracing.end');
  await done;
  const main = events.find((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain');
  const onMain = events.filter((e) => main && e.pid === main.pid && e.tid === main.tid && e.ph === 'X');
  const long = onMain.filter((e) => e.name === 'RunTask' && e.dur > 50_000);
  const ms = {};
  for (const task of long) {
    const end = task.ts + task.dur;
    let reached = task.ts; // top-level children only: skip events nested in one counted
    const inside = onMain
      .filter((e) => e !== task && e.ts >= task.ts && e.ts + e.dur <= end && KINDS[e.name])
      .sort((a, b) => a.ts - b.ts);
    for (const e of inside) {
      if (e.ts < reached) continue;
      ms[KINDS[e.name]] = (ms[KINDS[e.name]] ?? 0) + e.dur / 1000;
      reached = e.ts + e.dur;
    }
  }
  return { tasks: long.map((t) => t.dur / 1000), ms };
}

/** Runs `action` while recording; returns frame and long-task figures for it. */
async function measure(page, name, action) {
  const cdp = TRACE ? await page.context().newCDPSession(page) : null;
  const events = TRACE ? await startTrace(cdp) : null;
  await page.evaluate(() => {
    window.__perf.frames = [];
    window.__perf.mark = performance.now();
    window.__perf.recording = true;
  });
  const t0 = Date.now();
  await action();
  const wall = Date.now() - t0;
  const data = await page.evaluate(() => {
    window.__perf.recording = false;
    const since = window.__perf.mark;
    return {
      frames: window.__perf.frames,
      long: window.__perf.longTasks.filter((t) => t.at >= since).map((t) => t.ms),
      heap: performance.memory ? performance.memory.usedJSHeapSize : 0,
    };
  });
  const makeup = TRACE ? await longTaskMakeup(cdp, events) : null;
  if (cdp) await cdp.detach();
  return {
    makeup,
    name,
    wallMs: wall,
    frames: data.frames.length,
    frameP50: percentile(data.frames, 50),
    frameP95: percentile(data.frames, 95),
    frameMax: Math.max(0, ...data.frames),
    longTasks: data.long.length,
    longMax: Math.max(0, ...data.long),
    heapMB: data.heap / 1e6,
  };
}

const profile = mkdtempSync(path.join(tmpdir(), 'brokerlab-perf-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: CHROMIUM,
  headless: true,
  args: ARGS,
  viewport: { width: 1280, height: 800 },
});
await context.addInitScript(recorders);
const page = context.pages()[0] ?? (await context.newPage());
const rows = [];
try {
  // Loading: from navigation to the whole first screen on the page (it arrives in parts,
  // the controls first), long tasks since the start; a moment more, for the observer.
  const t0 = Date.now();
  await page.goto(BASE_URL, { waitUntil: 'load' });
  await page.getByTestId('play').waitFor({ state: 'visible', timeout: 60_000 });
  await page.locator('main[data-ready=true]').waitFor({ state: 'attached', timeout: 60_000 });
  const loadWall = Date.now() - t0;
  await page.waitForTimeout(300);
  const load = await page.evaluate(() => ({
    long: window.__perf.longTasks.map((t) => t.ms),
    heap: performance.memory ? performance.memory.usedJSHeapSize : 0,
  }));
  rows.push({
    name: 'load the page (burst), to its whole first screen',
    wallMs: loadWall,
    frames: 0,
    frameP50: 0,
    frameP95: 0,
    frameMax: 0,
    longTasks: load.long.length,
    longMax: Math.max(0, ...load.long),
    heapMB: load.heap / 1e6,
  });
  await page.getByTestId('speed').selectOption('20');
  rows.push(await measure(page, 'play the burst at 20× for 8 s', async () => {
    await page.getByTestId('play').click();
    await page.waitForTimeout(8_000);
    await page.getByTestId('play').click();
  }));
  rows.push(await measure(page, 'seek to the end of the burst (181 s)', async () => {
    const slider = page.getByTestId('scrubber');
    await slider.evaluate((s) => {
      s.value = s.max;
      s.dispatchEvent(new Event('input', { bubbles: true }));
    });
    await page.waitForFunction(() => document.querySelector('[data-testid=seeking]').textContent === '',
      null, { timeout: 120_000 });
  }));
  rows.push(await measure(page, 'open the history of the first message', async () => {
    await page.getByTestId('tab-story').click();
    await page.getByTestId('log-msg').first().click();
    await page.getByTestId('lineage').waitFor({ state: 'visible', timeout: 120_000 });
  }));
  rows.push(await measure(page, 'load another example (mm4) from the picker', async () => {
    await page.getByTestId('scenario').selectOption('mm4');
    await page.waitForFunction(() => document.querySelector('[data-testid=consumers-up]')?.textContent.trim() === '4 / 4',
      null, { timeout: 60_000 });
    await page.waitForTimeout(300);
  }));
  rows.push(await measure(page, 'play mm4 (M/M/4, 90 %) at 20× for 8 s', async () => {
    await page.getByTestId('speed').selectOption('20');
    await page.getByTestId('play').click();
    await page.waitForTimeout(8_000);
    await page.getByTestId('play').click();
  }));
  // The stage crowded with flights: 165 messages a second, each flying four edges
  // (publish, deliver, effect, ack) for 0.9 s, asks for about 500 tokens at once. The
  // page draws at most TOKENS_MAX (src/model/flights.rs) and counts the rest on badges.
  const crowded = path.join(profile, '500-tokens.json');
  writeFileSync(crowded, JSON.stringify({
    version: 2,
    name: '500-tokens',
    seed: 5,
    producers: [{ name: 'shop', arrivals: { process: 'constant', schedule: [{ from_s: 0, rate_per_s: 165 }, { from_s: 600, rate_per_s: 0 }] } }],
    queues: [{ name: 'orders', visibility_timeout_s: 30 }],
    consumers: [{ name: 'worker', replicas: 6, service: { fixed: { seconds: 0.03 } }, ack: 'after_commit' }],
    sample_every_s: 1,
  }));
  await page.getByTestId('open-scenario').setInputFiles(crowded);
  await page.waitForFunction(() => document.querySelector('[data-testid=consumers-up]')?.textContent.trim() === '6 / 6',
    null, { timeout: 60_000 });
  await page.getByTestId('speed').selectOption('1');
  let most = { drawn: 0, wanted: 0 };
  const crowdedRow = await measure(page, 'a 500-token stage at 1× for 8 s', async () => {
    await page.getByTestId('play').click();
    for (let i = 0; i < 16; i++) {
      await page.waitForTimeout(500);
      const now = await page.getByTestId('tokens').evaluate((c) => ({
        drawn: Number(c.dataset.tokens), counted: Number(c.dataset.aggregated) }));
      most = { drawn: Math.max(most.drawn, now.drawn), wanted: Math.max(most.wanted, now.drawn + now.counted) };
    }
    await page.getByTestId('play').click();
  });
  crowdedRow.name += ` (at most ${most.drawn} tokens drawn and ${most.wanted} flights on show at once)`;
  rows.push(crowdedRow);
} finally {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
}

const ms = (x) => x.toFixed(1);
console.log('| what | wall (ms) | frames | frame p50 / p95 / max (ms) | long tasks (> 50 ms) | longest (ms) | JS heap after (MB) |');
console.log('|---|---|---|---|---|---|---|');
for (const r of rows) {
  console.log(`| ${r.name} | ${r.wallMs} | ${r.frames} | ${ms(r.frameP50)} / ${ms(r.frameP95)} / ${ms(r.frameMax)} | ${r.longTasks} | ${ms(r.longMax)} | ${r.heapMB.toFixed(1)} |`);
}
if (!TRACE) process.exit(0);
console.log('');
console.log('What the long tasks (over 50 ms, from a Chromium trace) were made of:');
console.log('');
console.log('| what | tasks (ms) | script incl. wasm (ms) | style (ms) | layout (ms) | paint (ms) | GC (ms) |');
console.log('|---|---|---|---|---|---|---|');
for (const r of rows.filter((r) => r.makeup)) {
  const m = r.makeup.ms;
  const v = (k) => ms(m[k] ?? 0);
  console.log(`| ${r.name} | ${r.makeup.tasks.map(ms).join(', ') || '—'} | ${v('script')} | ${v('style')} | ${v('layout')} | ${v('paint')} | ${v('gc')} |`);
}
