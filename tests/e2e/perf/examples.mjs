// Every example in the picker (lessons included), one after another on one page: the
// main thread's long tasks (over 50 ms, PerformanceObserver) while it loads from the
// picker, while it plays at 20× for 2.5 s, and while the page seeks to its end. Prints
// one line per example ("-" for none); issue 14's budget is none anywhere.
//   URL=http://127.0.0.1:8765/brokerlab/ node tests/e2e/perf/examples.mjs
// Measurements only: nothing here passes or fails (docs/performance.md has a reading).
import { chromium } from 'playwright-core';

const url = process.env.URL ?? 'http://127.0.0.1:8080/';
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--no-sandbox'] });
const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
await page.addInitScript(() => {
  window.__long = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__long.push(e.duration);
  }).observe({ type: 'longtask', buffered: true });
  localStorage.setItem('brokerlab.tour.seen', '1');
});
await page.goto(url);
await page.locator('main[data-ready=true]').waitFor({ state: 'attached', timeout: 60_000 });
const names = await page.getByTestId('scenario')
  .evaluate((s) => [...s.options].map((o) => o.value).filter(Boolean));
/** The long tasks since the last call, in ms ("-" for none). */
const taken = async () => {
  const ms = await page.evaluate(() => window.__long.splice(0));
  return ms.length ? ms.map((x) => x.toFixed(0)).join(', ') : '-';
};
let worst = 0;
console.log('| example | load: long tasks (ms) | play at 20×, 2.5 s | seek to the end |');
console.log('|---|---|---|---|');
try {
  for (const name of names) {
    await taken();
    await page.getByTestId('scenario').selectOption(name);
    await page.waitForTimeout(700);
    const load = await taken();
    await page.getByTestId('speed').selectOption('20');
    await page.getByTestId('play').click();
    await page.waitForTimeout(2_500);
    // A run that ended by itself is already paused.
    if ((await page.getByTestId('play').textContent()) !== 'Play') await page.getByTestId('play').click();
    const play = await taken();
    await page.getByTestId('scrubber').evaluate((s) => {
      s.value = s.max;
      s.dispatchEvent(new Event('input', { bubbles: true }));
    });
    await page.waitForFunction(() => document.querySelector('[data-testid=seeking]')?.textContent === '',
      null, { timeout: 120_000 });
    await page.waitForTimeout(300);
    const seek = await taken();
    for (const cell of [load, play, seek]) {
      if (cell !== '-') worst = Math.max(worst, ...cell.split(', ').map(Number));
    }
    console.log(`| ${name} | ${load} | ${play} | ${seek} |`);
  }
} finally {
  await browser.close();
}
console.log(`\n${names.length} examples; longest task: ${worst ? `${worst} ms` : 'none over 50 ms'}`);
