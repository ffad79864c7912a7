// End-to-end tests of the built page, served from a sub-path by a static server.
// Run by .ci/test-web:  BROKERLAB_URL=http://127.0.0.1:PORT/brokerlab/ node --test page.test.mjs
// playwright-core drives Debian's Chromium (never a downloaded browser).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { BASE_URL, openBrowser, waitForLab } from './browser.mjs';

const SHOTS = path.resolve(process.env.SCREENSHOT_DIR ?? 'target/screenshots');
const DOC_SHOT = process.env.DOC_SCREENSHOT ? path.resolve(process.env.DOC_SCREENSHOT) : null;
const ORIGIN = new URL(BASE_URL).origin;

/** The side tab of the controls that are in the page only while their tab is on show (or
 *  from the first time it is): `Panel::mounting` in src/model/panels.rs. */
const PANEL_OF = [
  [/^(invariant|invariants)(-|$)/, 'invariants'],
  [/^(lineage|history-hint)/, 'history'],
  [/^(logs|log-appended|log-processed|log-rebalances|log-skipped|log-\d|group-)/, 'logs'],
  [/^(param|parameters)/, 'parameters'],
  [/^(editor-|schedule-(?!mark)|scenario-editor|scenario-secret)/, 'scenario'],
  [/^(interview|hidden-|reveal-faults|revealed-faults)/, 'interview'],
];

/** The page object: every control and counter through its data-testid. */
class LabPage {
  constructor(page) {
    this.page = page;
    this.consoleErrors = [];
    this.requests = [];
    this.failed = [];
    page.on('console', (m) => m.type() === 'error' && this.consoleErrors.push(m.text()));
    page.on('pageerror', (e) => this.consoleErrors.push(String(e)));
    page.on('request', (r) => this.requests.push(r.url()));
    page.on('requestfailed', (r) => this.failed.push(`${r.url()} ${r.failure()?.errorText ?? ''}`));
  }

  /** Starts recording main-thread tasks longer than 50 ms (Long Tasks API). */
  async watchLongTasks() {
    await this.page.addInitScript(() => {
      window.__longTasksMs = [];
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) window.__longTasksMs.push(Math.round(e.duration));
      }).observe({ type: 'longtask', buffered: true });
    });
  }

  /** Durations of the long tasks seen since `mark` (an index into the record). */
  longTasks(mark = 0) {
    return this.page.evaluate((m) => window.__longTasksMs.slice(m), mark);
  }

  async open() {
    await this.page.goto(BASE_URL, { waitUntil: 'load' });
    await waitForLab(this.page);
    // Let the chart's first draw and any late request happen.
    await this.page.waitForTimeout(300);
  }

  text(id) {
    return this.page.getByTestId(id).innerText().then((t) => t.trim());
  }

  /** A counter as a number: "12,345" → 12345, "4.2 s" → 4.2. */
  async number(id) {
    const t = (await this.text(id)).replace(/,/g, '').replace(/ s$/, '');
    const n = Number(t);
    assert.ok(Number.isFinite(n), `${id} is not a number: ${t}`);
    return n;
  }

  /** Waits until a counter satisfies `ok(value)`. */
  async waitFor(id, ok, timeout = 20_000) {
    const deadline = Date.now() + timeout;
    let last;
    while (Date.now() < deadline) {
      last = await this.number(id);
      if (ok(last)) return last;
      await this.page.waitForTimeout(100);
    }
    assert.fail(`${id} never reached the expected value (last: ${last})`);
  }

  /** Brings a control into view the way a user would: opens the side tab that holds it,
   *  unfolds a card's "More" menu, shows the folded consumer cards. */
  async reveal(id) {
    // Most side panels are mounted only while their tab is on show: open the tab that
    // holds a control not in the page yet.
    const unmounted = PANEL_OF.find(([pattern]) => pattern.test(id));
    if (unmounted && (await this.page.getByTestId(id).count()) === 0) await this.tab(unmounted[1]);
    const where = await this.page.getByTestId(id).first().evaluate((node) => {
      const panel = node.closest('[role=tabpanel]');
      const more = node.closest('details');
      if (more && !more.open && node.tagName !== 'SUMMARY') more.open = true;
      return {
        tab: panel && panel.hidden ? panel.id.replace(/^panel-/, '') : null,
        folded: Boolean(node.closest('#consumer-cards[hidden]')),
      };
    });
    if (where.tab) await this.tab(where.tab);
    if (where.folded) await this.page.getByTestId('consumers-expand').click();
  }

  /** Opens a side panel by its tab: counters, story, parameters, invariants, history, logs. */
  async tab(name) {
    await this.page.getByTestId(`tab-${name}`).click();
  }

  async click(id) {
    await this.reveal(id);
    await this.page.getByTestId(id).click();
  }

  async setSpeed(value) {
    await this.page.getByTestId('speed').selectOption(String(value));
  }

  /** Simulated seconds that pass during `ms` of wall time. */
  async timeGain(ms) {
    const t0 = await this.number('time');
    await this.page.waitForTimeout(ms);
    return (await this.number('time')) - t0;
  }

  /** Pixels of the chart in the backlog line's blue (the canvas, read back). */
  chartInk() {
    return this.page.getByTestId('chart').evaluate((canvas) => {
      const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
      let n = 0;
      for (let i = 0; i < data.length; i += 4) {
        const [r, g, b] = [data[i], data[i + 1], data[i + 2]];
        if (b > 150 && r < 110 && g < 150) n += 1;
      }
      return n;
    });
  }

  async shot(name, fullPage = false) {
    const file = path.join(SHOTS, `${name}.png`);
    await this.page.screenshot({ path: file, fullPage });
    return file;
  }

  async pickScenario(name) {
    await this.page.getByTestId('scenario').selectOption(name);
  }

  /** Presses a key with the focus on the page itself (not on a button or field). */
  async press(key) {
    await this.page.evaluate(() => document.activeElement?.blur());
    await this.page.keyboard.press(key);
  }

  /** Requests to anything but the local server (data: URLs are not requests out). */
  outside() {
    return this.requests.filter((u) => !u.startsWith(`${ORIGIN}/`) && !u.startsWith('data:'));
  }
}

/** Words of the first text of each element matching `selector` that are laid out over
 *  more than one line (a word's text range has more than one box): split inside. */
function splitWords(page, selector) {
  return page.evaluate((selector) => {
    const split = [];
    for (const el of document.querySelectorAll(selector)) {
      const text = el.firstChild;
      if (!text || text.nodeType !== Node.TEXT_NODE) continue;
      for (const m of text.data.matchAll(/\S+/g)) {
        const range = document.createRange();
        range.setStart(text, m.index);
        range.setEnd(text, m.index + m[0].length);
        if (range.getClientRects().length > 1) split.push(m[0]);
      }
    }
    return split;
  }, selector);
}

let browser;
let lab;
let requestsAfterLoad;

before(async () => {
  mkdirSync(SHOTS, { recursive: true });
  browser = await openBrowser({ viewport: { width: 1280, height: 800 } });
  lab = new LabPage(browser.page);
  await lab.watchLongTasks();
});

after(async () => {
  await browser?.close();
});

test('the page loads with no console error and no request leaving localhost', async () => {
  await lab.open();
  assert.equal(await lab.page.title(), 'Broker Lab');
  assert.equal(await lab.page.getByRole('heading', { level: 1 }).innerText(), 'Broker Lab');
  assert.equal(await lab.text('time'), '0.0 s');
  assert.equal(await lab.text('play'), 'Play');
  assert.equal(await lab.text('consumers-up'), '20 / 20');
  await lab.shot('01-loaded');
  assert.deepEqual(lab.consoleErrors, []);
  assert.deepEqual(lab.failed, []);
  assert.deepEqual(lab.outside(), []);
  assert.ok(lab.requests.some((u) => u.endsWith('.wasm')), 'the wasm came from the local server');
  requestsAfterLoad = lab.requests.length;
  console.log(`long tasks while loading: ${(await lab.longTasks()).join(', ') || 'none'} (ms)`);
});

test('play advances simulated time, grows the backlog and draws it on the chart', async () => {
  const inkBefore = await lab.chartInk();
  await lab.click('play');
  assert.equal(await lab.text('play'), 'Pause');
  await lab.waitFor('time', (t) => t >= 20);
  assert.ok((await lab.number('published')) > 10_000);
  assert.ok((await lab.number('backlog')) > 2_000, 'the burst outruns the consumers');
  assert.ok((await lab.number('oldest-age')) > 1);
  // The chart redraws when samples arrive: more of the backlog's blue on the canvas.
  await lab.page.waitForTimeout(200);
  const ink = await lab.chartInk();
  assert.ok(ink > inkBefore + 150, `chart ink ${inkBefore} → ${ink}`);
  const narration = await lab.text('narration');
  assert.match(narration, /^At [\d,]+(\.\d{1,3})? s: /);
  await lab.shot('02-playing');
});

test('the speed menu changes how fast simulated time passes', async () => {
  await lab.setSpeed(1);
  const slow = await lab.timeGain(1_000);
  await lab.setSpeed(20);
  const fast = await lab.timeGain(1_000);
  await lab.setSpeed(10);
  assert.ok(slow > 0.4 && slow < 1.6, `1×: ${slow} simulated s in 1 s`);
  assert.ok(fast > 4 * slow, `20× (${fast}) is much faster than 1× (${slow})`);
});

test('crashing a consumer changes the counters, and its message comes back later', async () => {
  assert.equal(await lab.number('crashes'), 0);
  const crashLabel = await lab.text('crash');
  assert.equal(crashLabel, 'Crash worker-1');
  await lab.click('crash');
  assert.equal(await lab.number('crashes'), 1);
  assert.equal(await lab.text('consumers-up'), '19 / 20');
  assert.match(await lab.text('events'), /worker-1 crashed/);
  await lab.shot('03-crashed');
  // It restarts 5 simulated seconds later; the message it held is redelivered when its
  // 30 s lease runs out.
  await lab.page.getByTestId('consumers-up').filter({ hasText: '20 / 20' }).waitFor({ timeout: 20_000 });
  await lab.waitFor('redelivered', (n) => n >= 1, 30_000);
  const events = await lab.text('events');
  assert.match(events, /restarted/);
  assert.match(events, /lease of #\d+/);
  await lab.shot('04-redelivered');
});

test('pause stops simulated time', async () => {
  await lab.click('play');
  assert.equal(await lab.text('play'), 'Play');
  const gain = await lab.timeGain(800);
  assert.equal(gain, 0);
  await lab.shot('05-paused');
});

test('the whole burst plays to the end, drains, and matches the prediction', async () => {
  await lab.setSpeed(20);
  const mark = (await lab.longTasks()).length;
  await lab.click('play');
  await lab.page.getByTestId('play').filter({ hasText: 'Replay' }).waitFor({ timeout: 90_000 });
  // Responsiveness: DESIGN.md's budget (no main-thread task over 50 ms while playing) is
  // measured and printed, not asserted, as timings on a shared CI machine are noisy (a
  // busy 2-core runner has shown single 200–700 ms stalls); what is asserted is that no
  // frame ever blocks the page for a whole second (a frame simulates for at most 10 ms).
  const long = await lab.longTasks(mark);
  console.log(`long tasks (> 50 ms) while playing at 20×: ${long.length} (ms: ${long.join(', ') || 'none'})`);
  assert.ok(long.every((ms) => ms < 1_000), `no main-thread task of a second or more: ${long}`);
  assert.equal(await lab.number('backlog'), 0);
  assert.equal(await lab.number('in-flight'), 0);
  const t = await lab.number('time');
  assert.ok(t > 179 && t < 200, `ends near 180 s: ${t}`);
  assert.equal(await lab.number('acked'), await lab.number('published'), 'every message was processed');
  const file = await lab.shot('06-finished');
  if (DOC_SHOT) {
    mkdirSync(path.dirname(DOC_SHOT), { recursive: true });
    copyFileSync(file, DOC_SHOT);
  }
});

test('reset starts over, paused at zero', async () => {
  await lab.click('reset');
  assert.equal(await lab.text('time'), '0.0 s');
  assert.equal(await lab.number('crashes'), 0);
  assert.equal(await lab.text('play'), 'Play');
});

test('picking a scenario loads it paused, with its description and topology', async () => {
  await lab.pickScenario('crash-after-commit');
  assert.equal(await lab.text('play'), 'Play');
  assert.match(await lab.text('scenario-description'), /crashes before its ack/);
  assert.equal(await lab.text('step-index'), '0');
  assert.equal(await lab.text('time'), '0.0 s');
  assert.match(await lab.text('consumer-0'), /C1/);
  assert.equal(await lab.page.getByTestId('consumer-1').count(), 0, 'one consumer');
  assert.match(await lab.text('queue-0-counts'), /waiting 0/);
  await lab.shot('08-scenario-picked', true);
});

test('"Crash after next commit" on a consumer card, then play: a redelivery and a duplicate effect', async () => {
  await lab.click('consumer-0-crash-after-commit');
  assert.match(await lab.text('consumer-0-state'), /armed: crash after commit/);
  await lab.shot('09-armed', true);
  await lab.click('play');
  await lab.waitFor('redelivered', (n) => n === 1);
  await lab.waitFor('duplicate-effects', (n) => n === 1);
  await lab.page.getByTestId('play').filter({ hasText: 'Replay' }).waitFor({ timeout: 20_000 });
  assert.equal(await lab.number('crashes'), 1);
  await lab.tab('story'); // the event log follows the run while its tab is on show
  assert.match(await lab.text('log'), /\(duplicate\)/);
  await lab.shot('10-duplicate-effect', true);
});

test('"Drop next ack" and "Inject poison" on the cards, then play: the poison fails its handler', async () => {
  await lab.press('r');
  await lab.click('consumer-0-drop-ack');
  assert.match(await lab.text('consumer-0-state'), /next ack will be lost/);
  assert.equal(await lab.page.getByTestId('producer-0-crash-after-publish').count(), 0, 'no outbox');
  await lab.click('producer-0-poison');
  await lab.click('play');
  await lab.page.getByTestId('play').filter({ hasText: 'Replay' }).waitFor({ timeout: 20_000 });
  assert.ok((await lab.number('redelivered')) >= 1);
  await lab.tab('story');
  assert.match(await lab.text('log'), /poison message/);
  assert.match(await lab.text('log'), /malformed/);
  await lab.press('r');
});

test('stepping forward and back, and the keyboard shortcuts', async () => {
  await lab.press('r');
  assert.equal(await lab.text('step-index'), '0');
  assert.equal(await lab.number('duplicate-effects'), 0);
  await lab.click('step');
  assert.equal(await lab.text('step-index'), '1');
  await lab.press('ArrowRight');
  await lab.press('ArrowRight');
  await lab.press('ArrowRight');
  assert.equal(await lab.text('step-index'), '4');
  await lab.press('ArrowLeft');
  assert.equal(await lab.text('step-index'), '3');
  await lab.click('back');
  assert.equal(await lab.text('step-index'), '2');
  assert.equal(await lab.text('step-time'), '1.0 s');
  for (let i = 0; i < 10; i += 1) await lab.press('ArrowRight');
  assert.equal(await lab.text('step-index'), '6', 'the run has six steps');
  assert.equal(await lab.number('duplicate-effects'), 1);
  assert.equal(await lab.number('redelivered'), 1);
  await lab.press('ArrowLeft');
  assert.equal(await lab.number('duplicate-effects'), 0, 'back before the duplicate');
  assert.equal(await lab.number('redelivered'), 1);
  await lab.shot('11-stepped-back', true);

  await lab.setSpeed(10);
  await lab.press('+');
  assert.equal(await lab.page.getByTestId('speed').inputValue(), '20');
  await lab.press('-');
  await lab.press('-');
  assert.equal(await lab.page.getByTestId('speed').inputValue(), '5');
  // Space on the focused Play button toggles once, not twice (key and click).
  await lab.press('r');
  await lab.page.getByTestId('play').focus();
  await lab.page.keyboard.press(' ');
  assert.equal(await lab.text('play'), 'Pause');
  await lab.page.keyboard.press(' ');
  assert.equal(await lab.text('play'), 'Play');
  await lab.press('r');
  await lab.press(' ');
  assert.equal(await lab.text('play'), 'Pause');
  await lab.page.getByTestId('play').filter({ hasText: 'Replay' }).waitFor({ timeout: 20_000 });
  assert.equal(await lab.number('duplicate-effects'), 1);
});

test('the event log filters by message id and explains bad input', async () => {
  await lab.tab('story');
  const all = await lab.page.getByTestId('log').locator('li').count();
  assert.ok(all >= 10, `${all} lines`);
  await lab.page.getByTestId('log-filter').fill('abc');
  assert.match(await lab.text('log-filter-error'), /not a message id/);
  assert.equal(await lab.page.getByTestId('log').locator('li').count(), all);
  await lab.page.getByTestId('log-filter').fill('#0');
  assert.equal(await lab.page.getByTestId('log-filter-error').isHidden(), true);
  const only = await lab.page.getByTestId('log').locator('li').count();
  assert.ok(only > 0 && only < all, `${only} of ${all}`);
  for (const line of await lab.page.getByTestId('log').locator('li').allInnerTexts()) {
    assert.match(line, /#0\b/);
  }
  await lab.page.getByTestId('log').scrollIntoViewIfNeeded();
  await lab.shot('12-log-filtered');
  await lab.page.getByTestId('log-filter').fill('');
  // A message id in a line filters the log to that message.
  await lab.tab('story');
  await lab.page.getByTestId('log-msg').first().click();
  assert.equal(await lab.page.getByTestId('log-filter').inputValue(), '#0');
  assert.equal(await lab.page.getByTestId('log').locator('li').count(), only);
  // …and opens its history beside the stage; the events tab shows the log again.
  assert.equal(await lab.page.getByTestId('tab-history').getAttribute('aria-selected'), 'true');
  await lab.tab('story');
  await lab.page.getByTestId('log-filter').fill('');
});

test('clicking a message id in the log opens its history, in order', async () => {
  await lab.tab('story');
  await lab.page.getByTestId('log-msg').first().click();
  const panel = lab.page.getByTestId('lineage');
  await panel.waitFor({ state: 'visible' });
  assert.match(await lab.text('lineage-title'), /^History of #0 \(up to step 6\)$/);
  // The rows are the diagram's text alternative, inside a closed <details>: read their text.
  const rows = await lab.page.getByTestId('lineage-row').allTextContents();
  const order = [/committed the effect of #0/, /crashed after committing/, /lease of #0/,
    /again \(attempt 2\)/, /applied 2 times/, /acked #0/];
  let at = 0;
  for (const pattern of order) {
    const found = rows.slice(at).findIndex((r) => pattern.test(r));
    assert.ok(found >= 0, `${pattern} after row ${at}: ${rows.join(' | ')}`);
    at += found + 1;
  }
  // A wide diagram scrolls in its own box: the panel keeps the side column's width.
  const widths = await panel.evaluate((p) => ({
    panel: p.getBoundingClientRect().width,
    side: p.closest('.side').getBoundingClientRect().width,
    diagram: p.querySelector('svg.seq').getBoundingClientRect().width,
  }));
  assert.ok(widths.panel <= widths.side + 1, JSON.stringify(widths));
  await panel.scrollIntoViewIfNeeded();
  await lab.shot('13-lineage');
  await lab.click('lineage-close');
  assert.equal(await panel.isHidden(), true);
  await lab.tab('story');
  await lab.page.getByTestId('log-filter').fill('');
});

test('pause when an invariant breaks: playing stops at the duplicate and names the message', async () => {
  await lab.pickScenario('crash-after-commit');
  await lab.tab('invariants');
  await lab.page.getByTestId('invariants-pause').check();
  await lab.click('play');
  await lab.page.getByTestId('invariant-effect-once-msg').waitFor({ timeout: 20_000 });
  assert.notEqual(await lab.text('play'), 'Pause');
  assert.equal(await lab.text('step-index'), '6');
  assert.match(await lab.text('invariant-effect-once-verdict'), /broken/);
  assert.equal(await lab.text('invariant-effect-once-msg'), '#0');
  await lab.page.getByTestId('invariants').scrollIntoViewIfNeeded();
  await lab.shot('14-invariant-broken');
  await lab.tab('invariants');
  await lab.page.getByTestId('invariants-pause').uncheck();
});

test('a log scenario shows its partition lanes, and a member crash triggers a rebalance', async () => {
  await lab.pickScenario('log-consumer-groups');
  await lab.tab('logs');
  await lab.page.getByTestId('logs').waitFor({ state: 'visible' });
  await lab.click('group-0-member-0-crash');
  await lab.setSpeed(10);
  await lab.click('play');
  await lab.waitFor('log-rebalances', (n) => n >= 1);
  await lab.waitFor('log-appended', (n) => n > 0);
  if ((await lab.text('play')) === 'Pause') await lab.click('play');
  assert.match(await lab.text('group-0-partition-0'), /^P0 · offsets \d+\.\.\d+ · committed \d+ · (owned by .+|no owner) · lag \d+$/);
  assert.ok((await lab.number('log-processed')) >= 0);
  await lab.page.getByTestId('logs').scrollIntoViewIfNeeded();
  await lab.shot('15-log-groups');
  await lab.pickScenario('crash-after-commit');
});

test('nothing reached the network after load, and nothing was logged as an error', async () => {
  assert.equal(lab.requests.length, requestsAfterLoad, `new requests: ${lab.requests.slice(requestsAfterLoad)}`);
  assert.deepEqual(lab.consoleErrors, []);
  assert.deepEqual(lab.failed, []);
  assert.equal(await lab.page.locator('[data-testid=error-panel], [data-testid=error-note]').count(), 0);
});

test('on a projector (150% zoom) the page fits and the chart stays sharp', async () => {
  const big = await openBrowser({ viewport: { width: 1280, height: 720 }, deviceScaleFactor: 1.5 });
  try {
    const projector = new LabPage(big.page);
    await projector.open();
    await projector.click('play');
    await projector.waitFor('time', (t) => t >= 30);
    await projector.click('play');
    const fit = await projector.page.evaluate(() => {
      const canvas = document.querySelector('[data-testid=chart]');
      return {
        overflow: document.documentElement.scrollWidth - window.innerWidth,
        canvas: [canvas.width, canvas.clientWidth * devicePixelRatio],
        fontPx: parseFloat(getComputedStyle(document.querySelector('[data-testid=backlog]')).fontSize),
      };
    });
    assert.ok(fit.overflow <= 0, `no horizontal scrolling (overflow ${fit.overflow}px)`);
    assert.ok(Math.abs(fit.canvas[0] - fit.canvas[1]) <= 1, `one canvas pixel per screen pixel: ${fit.canvas}`);
    assert.ok(fit.fontPx >= 20, `counter values are large: ${fit.fontPx}px`);
    await projector.shot('07-projector');
    assert.deepEqual(projector.consoleErrors, []);
    assert.deepEqual(projector.outside(), []);
  } finally {
    await big.close();
  }
});

test('if the WebAssembly cannot load, the page says so instead of loading forever', async () => {
  const broken = await openBrowser({ viewport: { width: 1280, height: 800 } });
  try {
    await broken.page.route('**/*.wasm', (route) => route.fulfill({ status: 404, body: 'gone' }));
    await broken.page.goto(BASE_URL);
    const message = broken.page.getByRole('alert');
    await message.waitFor({ timeout: 15_000 });
    assert.match(await message.innerText(), /^Broker Lab could not start: /);
  } finally {
    await broken.close();
  }
});

// --- message tokens on the topology ---------------------------------------------------------

/** The token canvas's data attributes (what it draws). */
function tokens() {
  return lab.page.getByTestId('tokens').evaluate((c) => ({ ...c.dataset }));
}

/** A screenshot of the topology panel alone (tokens included). */
async function topologyShot(name) {
  const file = path.join(SHOTS, `${name}.png`);
  await lab.page.getByTestId('topology').screenshot({ path: file });
  return file;
}

/** Waits until the token canvas's data satisfy `ok`. */
async function waitForTokens(ok, timeout = 20_000) {
  const deadline = Date.now() + timeout;
  let last;
  while (Date.now() < deadline) {
    last = await tokens();
    if (ok(last)) return last;
    await lab.page.waitForTimeout(50);
  }
  assert.fail(`the tokens never matched: ${JSON.stringify(last)}`);
}

test('stepping one event on mm1 shows its message token, and outlines the cards involved', async () => {
  await lab.pickScenario('mm1');
  await waitForTokens((d) => d.tokens === '0' && d.labels === '');
  assert.equal(await lab.page.getByTestId('token-legend').locator('li svg').count(), 10);
  // The first events create the message; a token appears with the step that stores it.
  for (let i = 0; i < 5 && (await tokens()).labels === ''; i += 1) {
    await lab.click('step');
    await lab.page.waitForTimeout(50);
  }
  const t = await waitForTokens((d) => Number(d.tokens) >= 1);
  assert.match(t.labels, /^publish #0\b/);
  assert.equal(t.aggregated, '0', 'one token is no crowd');
  // The token stays at its destination while paused, and the narrated cards are outlined.
  assert.ok((await lab.page.locator('[data-node].narrated').count()) >= 1);
  assert.equal(await lab.page.locator('[data-node="queue-0"].narrated').count(), 1);
  await topologyShot('16-token-step');
});

test('the burst at high speed counts its flights per edge beyond the tokens drawn', async () => {
  await lab.pickScenario('burst');
  await lab.setSpeed(20);
  await lab.click('play');
  const t = await waitForTokens((d) => Number(d.aggregated) > 1_000);
  assert.ok(Number(t.tokens) <= 150, `at most 150 tokens drawn: ${t.tokens}`);
  assert.ok(Number(t.tokens) > 0);
  assert.match(t.kinds, /deliver/);
  await topologyShot('17-tokens-burst');
  await lab.click('play');
  await lab.setSpeed(10);
});

test('crash after commit: stepping shows the redelivery and the duplicate effect as tokens', async () => {
  await lab.pickScenario('crash-after-commit');
  for (let i = 0; i < 6; i += 1) await lab.press('ArrowRight');
  assert.equal(await lab.text('step-index'), '6');
  const t = await waitForTokens((d) => /duplicate #0·2/.test(d.labels));
  assert.match(t.labels, /redeliver #0·2/);
  assert.match(t.labels, /deliver #0(,|$)/, 'the first delivery came before');
  await topologyShot('18-tokens-redelivery');
});

test('with reduced motion, a step still shows its tokens (at their destination)', async () => {
  await lab.page.emulateMedia({ reducedMotion: 'reduce' });
  try {
    await lab.pickScenario('mm1');
    for (let i = 0; i < 5 && (await tokens()).labels === ''; i += 1) {
      await lab.click('step');
      await lab.page.waitForTimeout(50);
    }
    await waitForTokens((d) => Number(d.tokens) >= 1);
    assert.deepEqual(lab.consoleErrors, []);
  } finally {
    await lab.page.emulateMedia({ reducedMotion: null });
  }
});

test('a history is a sequence diagram: lifelines, and one labelled arrow per fact in time order', async () => {
  await lab.pickScenario('crash-after-commit');
  for (let i = 0; i < 6; i += 1) await lab.click('step');
  await lab.tab('story');
  await lab.page.getByTestId('log-msg').first().click();
  const panel = lab.page.getByTestId('lineage');
  await panel.waitFor({ state: 'visible' });
  const svg = lab.page.getByTestId('lineage-svg');
  await svg.waitFor({ state: 'visible' });
  const heads = await svg.getByTestId('lineage-lifeline').allTextContents();
  assert.deepEqual(heads, ['producerorders', 'queueorders', 'consumerC1', 'databaseeffects']);
  const arrows = svg.getByTestId('lineage-arrow');
  const labels = await arrows.locator('text.label').allTextContents();
  assert.deepEqual(labels, [
    'created', 'publish', 'stored · copy 0', 'deliver · attempt 1', 'processing starts · attempt 1',
    'effect committed', '✗ consumer crashed', '✗ lease expired (attempt 1): visible again',
    'deliver · attempt 2', 'processing starts · attempt 2', '⚠ DUPLICATE effect: applied 2×', 'ack',
  ]);
  const times = await arrows.locator('text.time').allTextContents();
  assert.equal(times.length, labels.length);
  const secs = times.map((t) => Number(t.replace(/ s$/, '')));
  assert.ok(secs.every((t, i) => i === 0 || t >= secs[i - 1]), `times in order: ${times}`);
  const kinds = await arrows.evaluateAll((gs) => gs.map((g) => g.dataset.kind));
  assert.equal(kinds[10], 'duplicate');
  assert.deepEqual(kinds.filter((k) => k === 'failure').length, 2);
  // Labels are SVG text nodes, and the same rows exist as a list for screen readers.
  assert.equal(await svg.locator('text').first().evaluate((t) => t instanceof SVGTextElement), true);
  assert.equal(await lab.page.getByTestId('lineage-row').count(), labels.length);
  // One number of decimals for the whole history (not "1 s" beside "1.5 s").
  const decimals = new Set(times.map((t) => (t.replace(/ s$/, '').split('.')[1] ?? '').length));
  assert.equal(decimals.size, 1, `one way of writing times: ${times}`);
  assert.ok(!decimals.has(0), `${times}`);
  // The side panel shows part of the diagram; enlarged, every lifeline is in view.
  const svgBox = await svg.boundingBox();
  await lab.click('lineage-enlarge');
  const wideBox = await panel.boundingBox();
  const viewport = lab.page.viewportSize();
  assert.ok(wideBox.width > viewport.width * 0.9, `enlarged to ${wideBox.width}px`);
  assert.ok(wideBox.width >= svgBox.width, `the diagram (${svgBox.width}px) fits in ${wideBox.width}px`);
  await panel.screenshot({ path: path.join(SHOTS, '19-lineage-enlarged.png') });
  await lab.click('lineage-enlarge');
  assert.ok((await panel.boundingBox()).width < viewport.width / 2, 'back to the side');
  await panel.scrollIntoViewIfNeeded();
  await panel.screenshot({ path: path.join(SHOTS, '19-lineage-sequence.png') });
  // Escape closes it; the close button too.
  await lab.press('Escape');
  assert.equal(await panel.isHidden(), true);
  await lab.tab('story');
  await lab.page.getByTestId('log-msg').first().click();
  await panel.waitFor({ state: 'visible' });
  await lab.click('lineage-close');
  assert.equal(await panel.isHidden(), true);
  await lab.tab('story');
  await lab.page.getByTestId('log-filter').fill('');
});

test('per-key order: the reordered account pauses at the late deposit and names it', async () => {
  await lab.pickScenario('ordering-account');
  await lab.tab('invariants');
  assert.match(await lab.text('invariant-key-order-verdict'), /holds/);
  await lab.page.getByTestId('invariants-pause').check();
  await lab.click('play');
  await lab.page.getByTestId('invariant-key-order-msg').waitFor({ timeout: 20_000 });
  // Paused at the breach, not at the end of the run (it goes on to step 12).
  assert.equal(await lab.text('play'), 'Play');
  assert.equal(await lab.text('step-index'), '8');
  assert.match(await lab.text('invariant-key-order-verdict'), /broken/);
  assert.equal(await lab.text('invariant-key-order-msg'), '#0');
  assert.match(await lab.text('invariant-key-order'), /key 7 version 1 after version 4; first broke at step 8 /);
  assert.match(await lab.text('invariant-effect-once-verdict'), /holds/);
  assert.match(await lab.text('invariant-no-loss-verdict'), /holds/);
  await lab.page.getByTestId('invariants').scrollIntoViewIfNeeded();
  await lab.shot('20-invariant-key-order');
  // The message opens its history, which ends with the late effect.
  await lab.click('invariant-key-order-msg');
  assert.match(await lab.text('lineage-title'), /^History of #0 \(up to step 8\)$/);
  const labels = await lab.page.getByTestId('lineage-svg').locator('text.label').allTextContents();
  assert.equal(labels.at(-2), 'effect committed', labels.join(' | '));
  await lab.click('lineage-close');
  await lab.tab('invariants');
  await lab.page.getByTestId('invariants-pause').uncheck();
});

// ---- Controls: timeline scrubber, seed, help overlay, large type, latency percentiles ----

/** Moves the timeline scrubber to `t` simulated seconds and waits for the seek to finish. */
async function scrubTo(t, timeout = 60_000) {
  await lab.page.getByTestId('scrubber').fill(String(t));
  await lab.page.waitForFunction(
    () => document.querySelector('[data-testid=seeking]').textContent === '',
    null,
    { timeout },
  );
}

/** The counters that describe a state of the run. */
async function countersNow() {
  const out = {};
  for (const id of ['time', 'backlog', 'in-flight', 'published', 'delivered', 'acked', 'redelivered', 'crashes', 'consumers-up']) {
    out[id] = await lab.text(id);
  }
  out.step = await lab.text('step-index');
  return out;
}

test('the timeline scrubber seeks exactly, back and forth, with a crash kept in the run', async () => {
  await lab.pickScenario('burst');
  assert.equal(await lab.text('step-index'), '0');
  assert.equal(await lab.page.getByTestId('scrubber').getAttribute('max'), '181');
  await scrubTo(60);
  assert.equal(await lab.text('scrubber-time'), '60.0 s / 181.0 s');
  assert.equal(await lab.number('time'), 60);
  assert.equal(await lab.text('play'), 'Play', 'seeking pauses');
  const at60 = await countersNow();
  assert.ok(Number(at60.published.replace(/,/g, '')) > 150_000, `3,000/s for 60 s: ${at60.published}`);
  await lab.click('crash');
  await scrubTo(90);
  const at90 = await countersNow();
  assert.equal(at90.crashes, '1');
  await scrubTo(20);
  assert.equal(await lab.number('time'), 20);
  assert.equal(await lab.number('crashes'), 0, 'before the crash');
  await scrubTo(90);
  assert.deepEqual(await countersNow(), at90, 'the second visit to 90 s equals the first, crash included');
  await scrubTo(30);
  await scrubTo(90);
  assert.deepEqual(await countersNow(), at90);
  // Keys on the focused slider move it by a tenth of a second.
  await lab.page.getByTestId('scrubber').focus();
  await lab.page.keyboard.press('ArrowRight');
  await lab.page.waitForFunction(() => document.querySelector('[data-testid=seeking]').textContent === '');
  assert.equal(await lab.number('time'), 90.1);
  assert.equal(await lab.text('scrubber-time'), '90.1 s / 181.0 s');
  // The very end of the 300,000-message burst: the run finishes there.
  const started = Date.now();
  await scrubTo(181);
  console.log(`# seeking the burst from 90 s to its end took ${Date.now() - started} ms`);
  await lab.page.getByTestId('play').filter({ hasText: 'Replay' }).waitFor({ timeout: 10_000 });
  const end = await lab.number('time');
  assert.ok(end > 179 && end < 181, `the burst ends near 180 s: ${end}`);
  // Its timeline ends there too, not a second later.
  assert.match(await lab.text('scrubber-time'), /^(\d+\.\d s) \/ \1$/);
  assert.ok(Number(await lab.page.getByTestId('scrubber').getAttribute('max')) < 181);
  assert.equal(await lab.number('backlog'), 0);
  assert.equal(await lab.number('crashes'), 1);
  await lab.shot('21-scrubbed-to-end');
  // And straight back to the start of the run.
  await scrubTo(0);
  assert.equal(await lab.number('time'), 0);
  assert.equal(await lab.number('crashes'), 0);
});

test('a seed can be set, is shown, and bad input is explained without changing it', async () => {
  await lab.pickScenario('mm1');
  const seed = lab.page.getByTestId('seed');
  assert.match(await seed.inputValue(), /^\d+$/, 'the scenario seed is shown');
  await seed.fill('12345');
  await seed.press('Enter');
  assert.equal(await seed.inputValue(), '12345');
  assert.equal(await lab.text('step-index'), '0', 'a new seed starts a new run');
  await scrubTo(60);
  const with12345 = await countersNow();
  await seed.fill('not a number');
  await seed.press('Enter');
  assert.match(await lab.text('seed-problem'), /not a seed/);
  assert.equal(await seed.getAttribute('aria-invalid'), 'true');
  // Typing "?" in the field types it, it does not open help.
  await seed.press('?');
  assert.equal(await lab.page.getByTestId('help').isVisible(), false);
  await scrubTo(0);
  await scrubTo(60);
  assert.deepEqual(await countersNow(), with12345, 'the run still uses seed 12345');
  await seed.fill('54321');
  await seed.press('Enter');
  assert.equal(await lab.text('seed-problem'), '');
  await scrubTo(60);
  assert.notDeepEqual(await countersNow(), with12345, 'another seed, another run');
  await seed.fill('12345');
  await seed.press('Enter');
  await scrubTo(60);
  assert.deepEqual(await countersNow(), with12345, 'the same seed, the same run');
  await lab.click('new-seed');
  assert.match(await seed.inputValue(), /^\d+$/);
  assert.notEqual(await seed.inputValue(), '12345');
});

test('"?" opens the help dialog with every shortcut; Escape closes it and gives the focus back', async () => {
  await lab.press('r');
  await lab.press('?');
  const help = lab.page.getByRole('dialog', { name: 'Help' });
  await help.waitFor({ state: 'visible' });
  assert.equal(await help.getAttribute('aria-modal'), 'true');
  await lab.page.waitForFunction(() => document.querySelector('[data-testid=help]').contains(document.activeElement));
  const keys = await lab.text('help-keys');
  for (const key of ['space', '→', '←', 'r', '+ / −', '?', 'Escape']) assert.ok(keys.includes(key), `${key} in ${keys}`);
  assert.match(await help.innerText(), /Timeline/);
  assert.match(await help.innerText(), /Counters/);
  await lab.shot('22-help');
  // Page shortcuts are off while the dialog is open: space does not start the run.
  await lab.page.keyboard.press(' ');
  assert.equal(await lab.text('play'), 'Play');
  await lab.page.keyboard.press('Escape');
  await help.waitFor({ state: 'hidden' });
  // Opened from its button, it gives the focus back to the button.
  await lab.click('help-button');
  await help.waitFor({ state: 'visible' });
  await lab.page.keyboard.press('Escape');
  await help.waitFor({ state: 'hidden' });
  await lab.page.waitForFunction(() => document.activeElement?.dataset.testid === 'help-button');
});

test('large type scales the text and the controls up, and back', async () => {
  const size = (id) =>
    lab.page.getByTestId(id).evaluate((el) => parseFloat(getComputedStyle(el).fontSize));
  const toggle = lab.page.getByTestId('large-type');
  assert.equal(await toggle.getAttribute('aria-pressed'), 'false');
  const [counter, button] = [await size('backlog'), await size('play')];
  await toggle.click();
  // Whatever happens below, later tests get normal type back.
  try {
    assert.equal(await toggle.getAttribute('aria-pressed'), 'true');
    assert.ok(await size('backlog') >= counter * 1.3, `counter ${counter} → ${await size('backlog')}`);
    assert.ok(await size('play') >= button * 1.3, `button ${button} → ${await size('play')}`);
    const layout = await lab.page.evaluate(() => {
      const side = document.querySelector('.side').getBoundingClientRect();
      const stage = [...document.querySelectorAll('.stage > *')].map((el) => el.getBoundingClientRect());
      const apart = stage.every((r) => r.right <= side.left + 1 || r.bottom <= side.top + 1);
      return { overflow: document.documentElement.scrollWidth - window.innerWidth, apart };
    });
    assert.ok(layout.overflow <= 0, `no horizontal scrolling (overflow ${layout.overflow}px)`);
    assert.ok(layout.apart, 'the stage and the side panels do not overlap');
    await lab.shot('23-large-type');
  } finally {
    if ((await toggle.getAttribute('aria-pressed')) === 'true') await toggle.click();
  }
  assert.equal(await toggle.getAttribute('aria-pressed'), 'false');
  assert.equal(await size('backlog'), counter);
});

test('latency percentiles appear in the counters after playing mm1', async () => {
  await lab.pickScenario('mm1');
  assert.match(await lab.page.locator('.latency-none').innerText(), /No message has finished/);
  await lab.click('play');
  await lab.waitFor('acked', (n) => n >= 20);
  await lab.click('play');
  const seconds = (t) => {
    const m = t.match(/^([\d.]+) (ms|s)$/);
    assert.ok(m, `a latency: ${t}`);
    return Number(m[1]) / (m[2] === 'ms' ? 1000 : 1);
  };
  await lab.tab('counters');
  await lab.page.getByTestId('latency').waitFor({ state: 'visible' });
  const p = [];
  for (const q of ['p50', 'p95', 'p99']) p.push(seconds(await lab.text(`latency-${q}`)));
  assert.ok(p[0] > 0 && p[0] <= p[1] && p[1] <= p[2], `ordered percentiles: ${p}`);
  const w = [];
  for (const q of ['p50', 'p95', 'p99']) w.push(seconds(await lab.text(`queue-wait-${q}`)));
  assert.ok(w[0] <= w[1] && w[1] <= w[2], `ordered queue waits: ${w}`);
  // Each figure keeps its unit on its own line (the side panel is narrow: "16.48 s" used to
  // break into "16.48" over "s").
  const lines = await lab.page.evaluate(() => [...document.querySelectorAll('[data-testid=latency] td')]
    .filter((td) => td.textContent.trim() !== '' && td.getClientRects().length > 0)
    .map((td) => { const r = document.createRange(); r.selectNodeContents(td); return [td.textContent.trim(), r.getClientRects().length]; }));
  assert.ok(lines.length >= 6, `latency cells: ${JSON.stringify(lines)}`);
  for (const [t, n] of lines) assert.equal(n, 1, `"${t}" on one line`);
  assert.deepEqual(lab.consoleErrors, []);
});

// --- The backlog chart: hover readout, crash markers, ρ, resizing ---------------------------

/** The chart's crash markers, as the page counts them. */
async function crashMarkers() {
  return Number(await lab.page.getByTestId('chart').getAttribute('data-crash-markers'));
}

test('hovering the chart reads out the values at that time, consistent with the counters', async () => {
  await lab.pickScenario('burst');
  await lab.setSpeed(20);
  await lab.click('play');
  await lab.waitFor('time', (t) => t >= 30);
  await lab.click('play');
  assert.equal(await lab.text('play'), 'Play');
  const hover = lab.page.getByTestId('chart-hover');
  assert.equal(await hover.isHidden(), true, 'no readout before pointing');
  await lab.page.getByTestId('chart').scrollIntoViewIfNeeded();
  const box = await lab.page.getByTestId('chart').boundingBox();
  // Right of the time cursor: the values now, the same as the counters.
  await lab.page.mouse.move(box.x + box.width - 100, box.y + box.height / 2);
  await hover.waitFor({ state: 'visible' });
  assert.equal(await lab.text('hover-time'), await lab.text('time'));
  assert.match(await hover.innerText(), /\(now\)/);
  assert.equal(await lab.number('hover-backlog'), await lab.number('backlog'));
  assert.equal(await lab.number('hover-in-flight'), await lab.number('in-flight'));
  assert.equal(await lab.text('hover-oldest'), await lab.text('oldest-age'));
  assert.equal(await lab.number('hover-dlq'), 0);
  // Further left: an earlier sample, with the fluid prediction (3,000 − 2,000)·t there.
  await lab.page.mouse.move(box.x + box.width * 0.2, box.y + box.height / 2);
  await lab.page.getByTestId('hover-time').filter({ hasNotText: await lab.text('time') }).waitFor();
  const t = await lab.number('hover-time');
  assert.ok(t > 0 && t < 30, `an earlier time: ${t}`);
  assert.equal(await lab.number('hover-predicted'), Math.round(1_000 * t));
  const backlog = await lab.number('hover-backlog');
  assert.ok(backlog > 0 && backlog < (await lab.number('backlog')), `the backlog was smaller: ${backlog}`);
  assert.equal(await lab.page.getByTestId('chart-hover-line').isVisible(), true);
  // Leaving clears it.
  await lab.page.mouse.move(5, 5);
  await hover.waitFor({ state: 'hidden' });
  assert.equal(await lab.page.getByTestId('chart-hover-line').isHidden(), true);
  // The keyboard: focusing the chart reads out the current time, and follows a step.
  await lab.page.getByTestId('chart-plot').focus();
  await hover.waitFor({ state: 'visible' });
  assert.equal(await lab.text('hover-time'), await lab.text('time'));
  await lab.page.keyboard.press('ArrowRight');
  assert.equal(await lab.number('hover-backlog'), await lab.number('backlog'));
  assert.equal(await lab.text('hover-time'), await lab.text('time'));
  await lab.page.evaluate(() => document.activeElement?.blur());
  await hover.waitFor({ state: 'hidden' });
});

test('crashing a consumer then playing marks the crash on the chart, also after a step back', async () => {
  await lab.press('r');
  assert.equal(await crashMarkers(), 0);
  await lab.setSpeed(10);
  await lab.click('play');
  await lab.waitFor('time', (t) => t >= 5);
  await lab.click('consumer-1-crash');
  await lab.setSpeed(20);
  await lab.waitFor('time', (t) => t >= 40);
  await lab.click('play');
  assert.equal(await crashMarkers(), 1);
  assert.equal(await lab.number('crashes'), 1);
  assert.match(await lab.text('chart-legend'), /crash/);
  assert.match(await lab.page.getByTestId('chart').getAttribute('aria-label'), /1 crash marked: worker-2 at \d+\.\d s/);
  await lab.press('ArrowLeft');
  assert.equal(await crashMarkers(), 1, 'the re-simulated run has the same crash');
  // The screenshot: the markers and a readout at the crash.
  await lab.page.getByTestId('chart').scrollIntoViewIfNeeded();
  const box = await lab.page.getByTestId('chart').boundingBox();
  await lab.page.mouse.move(box.x + box.width * 0.22, box.y + box.height / 2);
  await lab.page.getByTestId('chart-hover').waitFor({ state: 'visible' });
  assert.doesNotMatch(await lab.text('chart-hover'), /\(now\)/, 'an earlier sample');
  await lab.shot('24-chart-crash-and-hover');
  await lab.page.mouse.move(5, 5);
  await lab.press('r');
  assert.equal(await crashMarkers(), 0, 'a reset forgets the crash');
});

test('ρ = λ/μ is shown: below 1 (stable) for mm1, above 1 (growing) for the burst', async () => {
  await lab.pickScenario('mm1');
  assert.equal(await lab.number('rho-value'), 0.9);
  assert.match(await lab.text('rho-hint'), /^ρ < 1: stable/);
  assert.match(await lab.text('rho-rates'), /λ = 0\.9\/s arriving, μ = 1\/s capacity/);
  await lab.pickScenario('burst');
  assert.ok((await lab.number('rho-value')) > 1);
  assert.equal(await lab.number('rho-value'), 1.5);
  assert.match(await lab.text('rho-hint'), /grows without bound/);
});

test('the chart redraws at its new size when the layout or the window changes', async () => {
  const size = () => lab.page.getByTestId('chart').evaluate((c) => ({
    backing: c.width,
    shown: Math.round(c.clientWidth * devicePixelRatio),
  }));
  const before = await size();
  assert.equal(before.backing, before.shown);
  // A layout change that is not a window resize: only a ResizeObserver sees it.
  await lab.page.evaluate(() => { document.querySelector('[data-testid=chart-plot]').style.width = '520px'; });
  await lab.page.waitForFunction(() => {
    const c = document.querySelector('[data-testid=chart]');
    return c.width === Math.round(520 * devicePixelRatio);
  });
  await lab.page.evaluate(() => { document.querySelector('[data-testid=chart-plot]').style.width = ''; });
  await lab.page.waitForFunction((w) => document.querySelector('[data-testid=chart]').width === w, before.backing);
  // A narrower window (the counters move below the chart, which takes the whole width).
  const cssBefore = await lab.page.getByTestId('chart').evaluate((c) => c.clientWidth);
  await lab.page.setViewportSize({ width: 900, height: 800 });
  await lab.page.waitForFunction((css) => {
    const c = document.querySelector('[data-testid=chart]');
    return c.clientWidth !== css && c.width === Math.round(c.clientWidth * devicePixelRatio);
  }, cssBefore);
  await lab.page.setViewportSize({ width: 1280, height: 800 });
  await lab.page.waitForFunction((w) => document.querySelector('[data-testid=chart]').width === w, before.backing);
  assert.deepEqual(lab.consoleErrors, []);
});

test('scaled in to no consumer, the crash button says none is running, not that all are down; a bound stands beside what it counts', async () => {
  const page = lab.page;
  await lab.pickScenario('backpressure');
  // backpressure's queue holds at most 100 copies, in flight ones included.
  await lab.click('play');
  await page.waitForFunction(
    () => /held 100 \/ 100/.test(document.querySelector('[data-testid=queue-0-counts]').textContent),
    null, { timeout: 30_000 });
  await lab.click('play');
  // (By the time the pause lands, a copy or two may have left.)
  assert.match(await lab.text('queue-0-counts'), /^waiting \d+ · in flight \d+ · held \d+ \/ 100/);
  await lab.pickScenario('mm1');
  await lab.tab('parameters');
  const consumers = page.getByTestId('param-q0-consumers');
  await consumers.fill('0');
  await consumers.press('Tab');
  for (let i = 0; i < 6; i += 1) await lab.click('step');
  assert.equal(await lab.text('crash'), 'No consumer is running');
  assert.equal(await lab.number('crashes'), 0);
  await page.getByTestId('lang-es').click();
  assert.equal(await lab.text('crash'), 'Ningún consumidor está en marcha');
  await page.getByTestId('lang-en').click();
  await lab.pickScenario('burst');
});

test('parameters: a higher arrival rate grows the backlog and the prediction, scaling changes the consumers, a bad value is refused, step back shows the old value', async () => {
  const page = lab.page;
  await lab.pickScenario('mm1');
  const panel = page.getByTestId('parameters');
  await lab.tab('parameters');
  await panel.waitFor({ state: 'visible' });
  const rate = page.getByTestId('param-p0-rate');
  const consumers = page.getByTestId('param-q0-consumers');
  const chart = page.getByTestId('chart');
  const predicted = async () => Number(await chart.getAttribute('data-predicted-now'));
  /** Types a value into a field and leaves it (which applies it). */
  const enter = async (field, value) => {
    await field.fill(value);
    await field.press('Tab');
  };
  assert.equal(await rate.inputValue(), '0.9');
  assert.equal(await consumers.inputValue(), '1');
  assert.equal(await page.getByTestId('param-q0-service').inputValue(), '1');
  assert.match(await lab.text('params-forecast'), /λ = 0\.9 msg\/s, capacity μ = 1 msg\/s \(load ρ = 0\.90\)/);

  // Play a little, then raise the arrival rate above the service rate (λ = 5 > μ = 1).
  await lab.setSpeed(10);
  await lab.click('play');
  await lab.waitFor('time', (t) => t >= 10);
  await lab.click('play');
  await enter(rate, '5');
  const changedAt = await lab.number('time');
  const backlogAtChange = await lab.number('backlog');
  assert.equal(await predicted(), 0, 'the prediction starts from now');
  assert.match(await lab.text('params-forecast'), /λ = 5 msg\/s.*grow by about 4 per second/);
  assert.equal(await page.getByTestId('param-p0-rate-slider').inputValue(), '5');
  // Play on: the backlog rises, and the dashed prediction rises by λ − μ = 4 per second.
  await lab.click('play');
  await lab.waitFor('time', (t) => t >= changedAt + 25, 30_000);
  await lab.click('play');
  const now = await lab.number('time');
  const backlog = await lab.number('backlog');
  const expected = 4 * (now - changedAt);
  const prediction = await predicted();
  assert.ok(Math.abs(prediction - expected) <= 4 * 0.2 + 1, `prediction ${prediction}, expected about ${expected}`);
  assert.ok(backlog >= backlogAtChange + 40, `backlog ${backlogAtChange} → ${backlog}`);
  assert.ok(backlog > 0.5 * prediction && backlog < 1.5 * prediction + 10, `backlog ${backlog} follows the prediction ${prediction}`);
  assert.match(await chart.getAttribute('aria-label'), new RegExp(`${backlog} messages waiting`));
  // The chart's own line rises: read its samples back by pointing along the time axis.
  await chart.scrollIntoViewIfNeeded();
  const box = await chart.boundingBox();
  const seen = [];
  for (let f = 0.1; f < 0.95; f += 0.05) {
    await page.mouse.move(box.x + box.width * f, box.y + box.height / 2);
    const hover = page.getByTestId('chart-hover');
    if (await hover.isHidden()) continue;
    if (/\(now\)/.test(await hover.innerText())) break;
    seen.push([await lab.number('hover-time'), await lab.number('hover-backlog')]);
  }
  await page.mouse.move(5, 5);
  const before = seen.filter(([t]) => t < changedAt);
  const after = seen.filter(([t]) => t > changedAt + 5);
  assert.ok(before.length > 0 && after.length > 1, `samples read from the chart: ${JSON.stringify(seen)}`);
  assert.ok(after.at(-1)[1] > Math.max(...before.map(([, b]) => b)) + 20, `the line rises after the change: ${JSON.stringify(seen)}`);

  // Scale out: new consumer cards appear, the capacity in the forecast follows.
  assert.equal(await page.getByTestId('consumer-1').count(), 0);
  await enter(consumers, '3');
  await page.getByTestId('consumer-2').waitFor({ state: 'visible' });
  assert.doesNotMatch(await lab.text('consumer-2-state'), /crashed|stop/);
  assert.match(await lab.text('params-forecast'), /capacity μ = 3 msg\/s.*grow by about 2 per second/);
  assert.equal(await lab.text('consumers-up'), '3 / 3');

  // A bad value: a message next to the field, and the value in force stays.
  await enter(rate, 'fast');
  assert.equal(await lab.text('param-p0-rate-error'), '⚠ “fast” is not a number (msg/s).');
  assert.equal(await rate.getAttribute('aria-invalid'), 'true');
  assert.equal(await rate.inputValue(), '5');
  await enter(consumers, '100');
  assert.equal(await lab.text('param-q0-consumers-error'), '⚠ Must be from 0 to 64 consumers.');
  assert.equal(await consumers.inputValue(), '3');
  assert.match(await lab.text('params-forecast'), /λ = 5 msg\/s, capacity μ = 3 msg\/s/);
  // The delivery settings: a choice applies at once, a bad bound is refused.
  await page.getByTestId('param-q0-more').locator('summary').click();
  const ack = page.getByTestId('param-q0-ack');
  assert.equal(await ack.inputValue(), 'after_commit');
  await ack.selectOption('on_delivery');
  assert.equal(await ack.inputValue(), 'on_delivery');
  const bound = page.getByTestId('param-q0-bound');
  assert.equal(await bound.inputValue(), '');
  await enter(bound, '0');
  assert.equal(await lab.text('param-q0-bound-error'), '⚠ Must be from 1 to 5,000,000 messages.');
  assert.equal(await bound.inputValue(), '');
  await enter(bound, '500');
  assert.equal(await bound.inputValue(), '500');
  assert.equal(await lab.text('param-q0-bound-error'), '');
  await panel.screenshot({ path: path.join(SHOTS, '25-parameters.png') });
  await chart.scrollIntoViewIfNeeded();
  await page.evaluate(() => document.querySelector('[data-testid=chart]').scrollIntoView({ block: 'start' }));
  await lab.shot('26-parameters-and-chart');
  // A good value clears the message.
  await enter(consumers, '1');
  assert.equal(await lab.text('param-q0-consumers-error'), '');
  assert.match(await lab.text('consumer-2-state'), /^(finishing, then stops|.* · finishing, then stops|stopped \(scaled in\))$/);

  // Step back past a change: the panel shows the value from before it.
  await enter(rate, '2');
  assert.equal(await rate.inputValue(), '2');
  await lab.click('step');
  await lab.click('step');
  for (let i = 0; i < 3; i += 1) await lab.click('back');
  assert.equal(await rate.inputValue(), '5');
  assert.match(await lab.text('params-forecast'), /λ = 5 msg\/s/);
  await lab.click('reset');
  assert.equal(await rate.inputValue(), '0.9');
  assert.equal(await ack.inputValue(), 'after_commit');
  assert.equal(await bound.inputValue(), '');
  assert.equal(await consumers.inputValue(), '1');
  assert.equal(await predicted(), 0);
  assert.deepEqual(lab.consoleErrors, []);
});

test('parameters: on a RabbitMQ queue the visibility timeout\'s place holds the consumer timeout, and a short one takes work back', async () => {
  const page = lab.page;
  await lab.pickScenario('mm1');
  await lab.tab('parameters');
  await page.getByTestId('param-q0-more').evaluate((d) => { d.open = true; });
  const label = () => page.locator('label[for="param-q0-visibility"]').innerText();
  const field = page.getByTestId('param-q0-visibility');
  assert.match(await label(), /^Visibility timeout/);
  const visibility = await field.inputValue();
  await page.getByTestId('param-q0-flavour').selectOption('rabbitmq');
  // RabbitMQ has no lease: its deadline is the consumer timeout, 30 minutes by default.
  await page.waitForFunction(() => /^Consumer timeout/.test(document.querySelector('label[for="param-q0-visibility"]').innerText));
  assert.equal(await field.inputValue(), '1800');
  await field.fill('0.5');
  await field.press('Tab');
  assert.equal(await lab.text('param-q0-visibility-error'), '');
  // Service takes about a second: most deliveries outlast half a second and come back.
  await lab.setSpeed(10);
  await lab.click('play');
  await lab.waitFor('redelivered', (n) => n >= 3, 30_000);
  await lab.click('play');
  // Back to SQS: the visibility timeout in force is the one it had.
  await page.getByTestId('param-q0-flavour').selectOption('sqs');
  await page.waitForFunction(() => /^Visibility timeout/.test(document.querySelector('label[for="param-q0-visibility"]').innerText));
  assert.equal(await field.inputValue(), visibility);
  assert.deepEqual(lab.consoleErrors, []);
});

// ----- Topology: every component, laid out automatically -----------------------------

/** Presses "Step" until `done()` holds (at most `max` steps); fails otherwise. */
async function stepUntil(lab, done, max = 200) {
  for (let i = 0; i < max; i += 1) {
    if (await done()) return;
    await lab.click('step');
  }
  assert.fail(`still not there after ${max} steps`);
}

test('the topic exchange and its bindings sit in the broker lane, before its queues', async () => {
  await lab.pickScenario('fanout-subscriptions');
  assert.equal(await lab.text('exchange-0-kind'), 'orders · topic exchange');
  assert.equal(await lab.text('exchange-0-binding-0'), 'orders.* → billing');
  assert.equal(await lab.text('exchange-0-binding-1'), 'orders.created → shipping');
  assert.equal(await lab.text('exchange-0-binding-2'), 'orders.# → audit');
  const before = await lab.page.evaluate(() => {
    const x = document.querySelector('[data-node=exchange-0]');
    const q = document.querySelector('[data-node=queue-0]');
    return Boolean(x.compareDocumentPosition(q) & Node.DOCUMENT_POSITION_FOLLOWING);
  });
  assert.ok(before, 'the exchange comes before the queues it routes to');
  for (const id of ['producer-0', 'exchange-0', 'queue-2', 'dlq-0', 'consumer-2', 'db-2']) {
    assert.equal(await lab.page.locator(`[data-node=${id}]`).count(), 1, id);
  }
});

test('an outbox producer shows its table and its relay, which crashes after a confirmed publish', async () => {
  await lab.pickScenario('outbox-relay-crash');
  assert.equal(await lab.text('relay-0-state'), 'up');
  const button = lab.page.getByTestId('relay-0').getByTestId('producer-0-crash-after-publish');
  assert.equal(await button.count(), 1, 'the relay crash lives on the relay card');
  await stepUntil(lab, async () => /outbox 1 unsent/.test(await lab.text('producer-0-state')));
  assert.match(await lab.text('producer-0-outbox'), /row #0/);
  await stepUntil(lab, async () => /^crashed/.test(await lab.text('relay-0-state')));
  assert.match(await lab.text('producer-0-outbox'), /row #0 · unsent/, 'never marked sent');
  await lab.page.getByTestId('topology').screenshot({ path: path.join(SHOTS, '27-outbox-relay.png') });
});

test('after crash-after-commit plays, the database card flags the duplicate effect', async () => {
  await lab.pickScenario('crash-after-commit');
  assert.match(await lab.text('db-0-summary'), /^effects 0 · no duplicate/);
  await lab.click('play');
  await lab.page.getByTestId('play').filter({ hasText: 'Replay' }).waitFor({ timeout: 20_000 });
  assert.match(await lab.text('db-0-summary'), /^effects 2 · ⚠ duplicates 1/);
  const row = lab.page.getByTestId('db-0-row-0');
  assert.match(await row.innerText(), /#0\s+count \+ 1\s+⚠ 2 applied · 1 duplicate/);
  assert.match(await row.getAttribute('class'), /\bdup\b/);
  const [plain, flagged] = await lab.page.evaluate(() => [
    getComputedStyle(document.querySelector('[data-testid=db-0] thead tr')).backgroundColor,
    getComputedStyle(document.querySelector('[data-testid=db-0-row-0]')).backgroundColor,
  ]);
  assert.notEqual(flagged, plain, 'the duplicate row is coloured too');
  await lab.page.getByTestId('topology').scrollIntoViewIfNeeded();
  await lab.page.getByTestId('topology').screenshot({ path: path.join(SHOTS, '28-topology-database.png') });
});

test('in Spanish at 1280×720 the database card shows its duplicate row whole, no word split', async () => {
  const small = await openBrowser({ viewport: { width: 1280, height: 720 }, locale: 'es-ES' });
  try {
    const t = new LabPage(small.page);
    await t.open();
    await t.pickScenario('crash-after-commit');
    await t.setSpeed(10);
    await t.click('play');
    await t.page.getByTestId('play').filter({ hasText: 'Repetir' }).waitFor({ timeout: 20_000 });
    const row = t.page.getByTestId('db-0-row-0');
    assert.match(await row.innerText(), /#0\s+contador \+ 1\s+⚠ 2 veces · 1 de más/);
    const scrolls = await t.page.evaluate(() => {
      const card = document.querySelector('[data-testid=db-0]');
      return card.scrollHeight > card.clientHeight + 1;
    });
    const split = await splitWords(t.page, '[data-testid=db-0] tr > *');
    assert.deepEqual({ scrolls, split }, { scrolls: false, split: [] });
    await t.page.getByTestId('topology').screenshot({ path: path.join(SHOTS, '28b-topology-database-es.png') });
  } finally {
    await small.close();
  }
});

test('"Redrive" on a dead-letter queue moves its messages back to the queue', async () => {
  await lab.pickScenario('retries-dlq-redrive');
  assert.equal(await lab.page.getByTestId('dlq-0-redrive').count(), 0, 'nothing to redrive yet');
  await lab.setSpeed(10);
  await lab.click('play');
  await lab.page.getByTestId('dlq-0-redrive').waitFor({ timeout: 20_000 });
  await lab.click('play');
  assert.ok((await lab.number('time')) < 60, 'before the scenario redrives on its own');
  const held = () => lab.text('dlq-0-state').then((t) => Number(t.replace(/,/g, '').split(' ')[0]));
  const start = await held();
  assert.ok(start > 0);
  assert.match(await lab.text('dlq-0-state'), /held · oldest: (poison|failed)/);
  await lab.click('dlq-0-redrive');
  assert.match(await lab.text('dlq-0-state'), /redriving/);
  assert.match(await lab.text('queue-0-counts'), /\(redriving\)/);
  await stepUntil(lab, async () => (await held()) < start || !/held/.test(await lab.text('dlq-0-state')));
  assert.ok((await lab.number('redriven')) >= 1);
  await lab.setSpeed(1);
});

test('on a tablet (768 px) the four lanes keep one row without overlapping; many consumers fold into a summary that expands', async () => {
  const tablet = await openBrowser({ viewport: { width: 768, height: 1024 } });
  try {
    const t = new LabPage(tablet.page);
    await t.open();
    const layout = await t.page.evaluate(() => {
      const rects = [...document.querySelectorAll('.topology .lane')].map((l) => l.getBoundingClientRect());
      const overlap = rects.some((a, i) => rects.some((b, j) => i < j
        && a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1));
      return {
        overflow: document.documentElement.scrollWidth - window.innerWidth,
        lanes: rects.length,
        overlap,
        oneRow: rects.every((r) => Math.abs(r.top - rects[0].top) < 2),
      };
    });
    assert.equal(layout.lanes, 4);
    assert.ok(layout.overflow <= 0, `no horizontal scrolling (overflow ${layout.overflow}px)`);
    assert.ok(!layout.overlap, 'lanes do not overlap');
    assert.ok(layout.oneRow, 'the four lanes stay in one row');
    // Twenty consumers: one summary card with the count; its button shows the cards.
    assert.equal(await t.text('consumers-summary-state'), '20 up · 0 in hand');
    assert.match(await t.page.getByTestId('consumers-summary').innerText(), /^20 consumers/);
    assert.equal(await t.page.getByTestId('consumer-cards').isHidden(), true);
    await t.click('consumers-expand');
    assert.equal(await t.page.getByTestId('consumer-cards').isVisible(), true);
    const list = await t.page.getByTestId('consumer-cards').evaluate((ul) => ({
      scrolls: ul.scrollHeight > ul.clientHeight && getComputedStyle(ul).overflowY === 'auto',
      cards: ul.querySelectorAll('.node.consumer').length,
    }));
    assert.deepEqual(list, { scrolls: true, cards: 20 });
    await t.click('consumers-expand');
    assert.equal(await t.page.getByTestId('consumer-cards').isHidden(), true);
    await t.page.getByTestId('topology').screenshot({ path: path.join(SHOTS, '29-topology-tablet.png') });
    assert.deepEqual(t.consoleErrors, []);
  } finally {
    await tablet.close();
  }
});

test('at 800×600, in both languages, the header keeps the scenario picker readable and presenting never scrolls sideways', async () => {
  // The picker was squeezed to an empty box beside the title and the tools, and presenting
  // ran the database lane 70 px past the page.
  for (const locale of ['en-US', 'es-ES']) {
    const small = await openBrowser({ viewport: { width: 800, height: 600 }, locale });
    try {
      const t = new LabPage(small.page);
      await t.open();
      const picker = await t.page.getByTestId('scenario').boundingBox();
      assert.ok(picker.width >= 200, `${locale}: the picker is ${picker.width}px wide`);
      const overflow = () => t.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok((await overflow()) <= 0, `${locale}: no sideways scrolling`);
      await t.page.keyboard.press('p');
      await t.page.waitForFunction(() => document.documentElement.classList.contains('presenting'));
      assert.ok((await overflow()) <= 0, `${locale}, presenting: overflow ${await overflow()}px`);
      const lanes = await t.page.evaluate(() => [...document.querySelectorAll('.topology .lane')]
        .every((l) => l.getBoundingClientRect().right <= window.innerWidth + 1));
      assert.ok(lanes, `${locale}, presenting: every lane within the page`);
      await t.page.screenshot({ path: path.join(SHOTS, `29-present-800-${locale}.png`) });
      assert.deepEqual(t.consoleErrors, []);
    } finally {
      await small.close();
    }
  }
});

// ---- The stage: topology and chart on the first screen, nothing written over the cards ----

/** Boxes (page coordinates) of every button and every piece of card text in the topology. */
function cardTextBoxes() {
  const pick = '.topology button, .topology summary, .topology .node strong, .topology .node .state, '
    + '.topology .node li, .topology .node td, .topology .node th, .topology .node .feeds, .topology .lane h3';
  // checkVisibility: also false inside a closed <details> (whose content keeps its boxes).
  return [...document.querySelectorAll(pick)]
    .filter((el) => el.checkVisibility())
    .map((el) => {
      const r = el.getBoundingClientRect();
      return { what: el.dataset.testid ?? el.textContent.trim().slice(0, 24), x: r.left, y: r.top, w: r.width, h: r.height };
    })
    .filter((b) => b.w > 0 && b.h > 0);
}

/** The canvas's drawn text and markers (its data-marks), in page coordinates. */
function drawnMarks() {
  const canvas = document.querySelector('[data-testid=tokens]');
  const origin = canvas.getBoundingClientRect();
  return (canvas.dataset.marks ?? '').split(';').filter(Boolean).map((m) => {
    const [x, y, w, h] = m.split(',').map(Number);
    return { x: x + origin.left, y: y + origin.top, w, h };
  });
}

test('at 1280×720 the topology and the chart share the first screen, before and while the burst plays', async () => {
  const small = await openBrowser({ viewport: { width: 1280, height: 720 } });
  try {
    const t = new LabPage(small.page);
    await t.open();
    const onScreen = () => t.page.evaluate(() => {
      const box = (id) => document.querySelector(`[data-testid=${id}]`).getBoundingClientRect();
      const [topology, plot] = [box('topology'), box('chart-plot')];
      return {
        scrolls: document.documentElement.scrollHeight > window.innerHeight + 1,
        topology: topology.top >= 0 && topology.bottom <= window.innerHeight,
        plot: plot.top >= 0 && plot.bottom <= window.innerHeight && plot.height >= 150,
        tabs: box('side').left >= topology.right,
      };
    });
    assert.deepEqual(await onScreen(), { scrolls: false, topology: true, plot: true, tabs: true });
    await t.setSpeed(20);
    await t.click('play');
    await t.waitFor('time', (s) => s >= 30, 60_000);
    assert.deepEqual(await onScreen(), { scrolls: false, topology: true, plot: true, tabs: true });
    await t.shot('40-stage-1280x720');
    assert.deepEqual(t.consoleErrors, []);
  } finally {
    await small.close();
  }
});

test('in Spanish at 1280×720 the header and the transport keep one row each, and the chart is on the first screen', async () => {
  // Spanish labels are longer ("Reproducir", "Tumbar worker-1", "Copiar enlace"): they must
  // not push the header or the buttons onto a second row and the chart under the fold.
  const small = await openBrowser({ viewport: { width: 1280, height: 720 }, locale: 'es-ES' });
  try {
    const t = new LabPage(small.page);
    await t.open();
    assert.equal(await t.page.evaluate(() => document.documentElement.lang), 'es');
    const rows = await t.page.evaluate(() => {
      const boxes = (sel) => [...document.querySelectorAll(sel)]
        .filter((e) => e.checkVisibility())
        .map((e) => e.getBoundingClientRect());
      const span = (rs) => Math.max(...rs.map((r) => r.bottom)) - Math.min(...rs.map((r) => r.top));
      const middle = (id) => {
        const r = document.querySelector(`[data-testid=${id}]`).getBoundingClientRect();
        return (r.top + r.bottom) / 2;
      };
      const box = (id) => document.querySelector(`[data-testid=${id}]`).getBoundingClientRect();
      const [topology, plot] = [box('topology'), box('chart-plot')];
      return {
        header: span(boxes('header.top :is(.scenario, .share, .files-wrap, .tools) :is(button, select, input, summary)')) < 60,
        transport: Math.abs(middle('crash') - middle('timeline')) < 12 && Math.abs(middle('play') - middle('crash')) < 4,
        scrolls: document.documentElement.scrollHeight > window.innerHeight + 1,
        topology: topology.top >= 0 && topology.bottom <= window.innerHeight,
        plot: plot.top >= 0 && plot.bottom <= window.innerHeight && plot.height >= 150,
        // The side's seven tabs in three rows, as in English (the Present button beside
        // them pushed the Spanish names onto a fourth), and none under that button.
        tabRows: new Set(boxes('.side-head .tab').map((r) => Math.round(r.top))).size <= 3,
        tabUnderPresent: boxes('.side-head .tab').some((r) => {
          const p = box('present');
          return r.left < p.right && r.right > p.left && r.top < p.bottom && r.bottom > p.top;
        }),
      };
    });
    assert.deepEqual(rows, {
      header: true, transport: true, scrolls: false, topology: true, plot: true, tabRows: true, tabUnderPresent: false,
    });
    // Playing, the step count reaches six figures ("Paso 202.306"): the transport keeps its
    // row (on one line the readout pushed the timeline onto a row of its own).
    await t.setSpeed(20);
    await t.click('play');
    await t.page.waitForFunction(() => Number(document.querySelector('[data-testid=step-index]')
      .textContent.replace(/\./g, '')) >= 100_000, null, { timeout: 30_000 });
    await t.click('play');
    const oneRow = await t.page.evaluate(() => {
      const middle = (id) => {
        const r = document.querySelector(`[data-testid=${id}]`).getBoundingClientRect();
        return (r.top + r.bottom) / 2;
      };
      return Math.abs(middle('play') - middle('timeline')) < 12;
    });
    assert.ok(oneRow, `one row at step ${await t.text('step-index')}`);
    await t.shot('40b-stage-1280x720-es');
    assert.deepEqual(t.consoleErrors, []);
  } finally {
    await small.close();
  }
});

test('while the burst plays at 20×, no count, label or marker is drawn over a button or card text', async () => {
  const small = await openBrowser({ viewport: { width: 1280, height: 720 } });
  try {
    const t = new LabPage(small.page);
    await t.open();
    await t.setSpeed(20);
    await t.click('play');
    await t.page.getByTestId('crash').click();
    let seen = 0;
    const hits = [];
    for (let i = 0; i < 25; i += 1) {
      await t.page.waitForTimeout(200);
      const { marks, boxes } = await t.page.evaluate(
        ([marksFn, boxesFn]) => ({ marks: eval(marksFn)(), boxes: eval(boxesFn)() }),
        [`(${drawnMarks})`, `(${cardTextBoxes})`],
      );
      seen += marks.length;
      for (const m of marks) {
        for (const b of boxes) {
          if (m.x < b.x + b.w - 0.5 && b.x < m.x + m.w - 0.5 && m.y < b.y + b.h - 0.5 && b.y < m.y + m.h - 0.5) {
            hits.push(`${JSON.stringify(m)} over ${b.what}`);
          }
        }
      }
    }
    assert.ok(seen > 20, `the canvas wrote counts while the burst played (${seen} boxes seen)`);
    assert.deepEqual(hits.slice(0, 5), []);
    await t.shot('41-stage-busy');
  } finally {
    await small.close();
  }
});

test('large type draws the chart and the token counts larger too, at 1920×1080', async () => {
  const big = await openBrowser({ viewport: { width: 1920, height: 1080 } });
  try {
    const t = new LabPage(big.page);
    await t.open();
    const scale = () => t.page.getByTestId('chart').getAttribute('data-text-scale').then(Number);
    const before = await scale();
    assert.ok(Math.abs(before - 1.125) < 0.01, `a big screen already scales type a little: ${before}`);
    await t.click('large-type');
    await t.page.waitForFunction(
      (b) => Number(document.querySelector('[data-testid=chart]').dataset.textScale) > b * 1.2,
      before,
      { timeout: 5_000 },
    );
    assert.ok((await scale()) >= 1.5 - 0.01, `chart text scale ${await scale()}`);
    const shown = await t.page.evaluate(() => {
      const box = (id) => document.querySelector(`[data-testid=${id}]`).getBoundingClientRect();
      return { topology: box('topology').bottom <= window.innerHeight, overflow: document.documentElement.scrollWidth - window.innerWidth };
    });
    assert.deepEqual(shown, { topology: true, overflow: 0 });
    await t.setSpeed(20);
    await t.click('play');
    await t.waitFor('time', (s) => s >= 10, 60_000);
    // Tokens and their counts are drawn larger too.
    const radius = Number(await t.page.getByTestId('tokens').getAttribute('data-token-radius'));
    assert.ok(radius >= 6 * 1.5 - 0.05, `token radius ${radius}`);
    await t.shot('42-stage-1920x1080-large-type');
    assert.deepEqual(t.consoleErrors, []);
  } finally {
    await big.close();
  }
});

test('on a phone (390×844) nothing scrolls sideways and every control is at least 44 px high', async () => {
  const phone = await openBrowser({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
  try {
    const t = new LabPage(phone.page);
    await t.open();
    // Against 390, not innerWidth: a phone widens its layout viewport to fit wide content.
    const check = () => t.page.evaluate(() => ({
      overflow: Math.max(document.documentElement.scrollWidth, window.innerWidth) - 390,
      small: [...document.querySelectorAll('button, summary, select, input')]
        .filter((el) => el.checkVisibility() && el.type !== 'range')
        // A checkbox is touched through its label.
        .map((el) => [el, el.type === 'checkbox' ? el.closest('label') ?? el : el])
        .map(([el, target]) => [el.dataset.testid ?? el.textContent.trim().slice(0, 20), Math.round(target.getBoundingClientRect().height)])
        .filter(([, h]) => h < 44),
    }));
    assert.deepEqual(await check(), { overflow: 0, small: [] });
    for (const tab of ['story', 'parameters', 'invariants', 'counters']) {
      await t.tab(tab);
      assert.deepEqual(await check(), { overflow: 0, small: [] }, `with the ${tab} tab open`);
    }
    await t.click('consumers-expand');
    await t.click('consumer-0-more');
    assert.deepEqual(await check(), { overflow: 0, small: [] }, 'with the consumer cards and a menu open');
    await t.shot('43-stage-390x844', true);
    assert.deepEqual(t.consoleErrors, []);
  } finally {
    await phone.close();
  }
});

test('the side tabs: arrow keys move between them, and a message history opens in view', async () => {
  await lab.pickScenario('crash-after-commit');
  await lab.tab('counters');
  await lab.page.getByTestId('tab-counters').focus();
  await lab.page.keyboard.press('ArrowRight');
  assert.equal(await lab.page.getByTestId('tab-story').getAttribute('aria-selected'), 'true');
  assert.equal(await lab.page.evaluate(() => document.activeElement.dataset.testid), 'tab-story');
  assert.equal(await lab.page.getByTestId('panel-story').isVisible(), true);
  assert.equal(await lab.page.getByTestId('panel-counters').isHidden(), true);
  await lab.page.keyboard.press('ArrowLeft');
  assert.equal(await lab.page.getByTestId('tab-counters').getAttribute('aria-selected'), 'true');
  // No log in this scenario: no logs tab.
  assert.equal(await lab.page.getByTestId('tab-logs').isHidden(), true);
  for (let i = 0; i < 6; i += 1) await lab.click('step');
  await lab.tab('story');
  await lab.page.getByTestId('log-msg').first().click();
  const history = lab.page.getByTestId('lineage');
  await history.waitFor({ state: 'visible' });
  const inView = await history.evaluate((el) => {
    const r = el.getBoundingClientRect();
    return r.top >= 0 && r.top < window.innerHeight;
  });
  assert.ok(inView, 'the history is on screen without scrolling the page');
  await lab.click('lineage-close');
  assert.equal(await lab.page.getByTestId('history-hint').isVisible(), true);
});

// ---- Share links: the address carries the state ---------------------------------------

/** What a moment of a run shows: the numbers a link must bring back. */
async function moment(p) {
  return {
    scenario: await p.page.getByTestId('scenario').inputValue(),
    step: await p.text('step-index'),
    time: await p.text('time'),
    published: await p.text('published'),
    acked: await p.text('acked'),
    backlog: await p.text('backlog'),
    crashes: await p.text('crashes'),
    markers: await p.page.getByTestId('chart').getAttribute('data-crash-markers'),
  };
}

/** Opens `url` in a fresh browser and waits for the page. */
async function openAt(url) {
  const browser2 = await openBrowser({ viewport: { width: 1280, height: 800 } });
  const p = new LabPage(browser2.page);
  await p.page.goto(url, { waitUntil: 'load' });
  await waitForLab(p.page);
  await p.page.waitForTimeout(300);
  return { p, close: browser2.close };
}

test('a copied link opens the same moment: step, counters, crash marker, paused', async () => {
  const first = await openBrowser({ viewport: { width: 1280, height: 800 } });
  let second;
  try {
    const t = new LabPage(first.page);
    await t.open();
    await t.pickScenario('mm1');
    await t.setSpeed(10);
    await t.click('play');
    await t.waitFor('time', (s) => s >= 5);
    await t.click('crash');
    await t.tab('parameters');
    const rate = t.page.getByTestId('param-p0-rate');
    await rate.fill('0.5');
    await rate.press('Tab');
    await t.waitFor('time', (s) => s >= 15);
    if ((await t.text('play')) === 'Pause') await t.click('play');
    await t.click('copy-link');
    assert.match(await t.text('share-notice'), /Link copied/);
    const link = await t.page.evaluate(() => location.href);
    assert.match(link, /\/brokerlab\/#s=v1\.[A-Za-z0-9_-]+$/);
    assert.ok(link.length < 600, `a short link: ${link.length} characters`);
    const before = await moment(t);
    assert.equal(before.crashes, '1');
    second = await openAt(link);
    assert.deepEqual(await moment(second.p), before);
    assert.equal(await second.p.text('play'), 'Play', 'paused there');
    // The rate change came along: the parameters say 0.5.
    await second.p.tab('parameters');
    assert.equal(await second.p.page.getByTestId('param-p0-rate').inputValue(), '0.5');
    assert.deepEqual(second.p.consoleErrors, []);
    // The notice goes away by itself.
    await t.page.waitForFunction(
      () => document.querySelector('[data-testid=share-notice]').textContent === '',
      null,
      { timeout: 5_000 },
    );
  } finally {
    await second?.close();
    await first.close();
  }
});

test('a damaged or hostile link opens the example and says in one sentence what was wrong', async () => {
  const base = new URL(BASE_URL);
  for (const bad of ['v1.%%%', 'v1.AAAA', 'v7.abc', 'hello', `v1.${'A'.repeat(70_000)}`]) {
    const { p, close } = await openAt(`${base.origin}${base.pathname}#s=${bad}`);
    try {
      const note = await p.text('error-note');
      assert.match(note, /This link could not be opened: .+\.$/, bad.slice(0, 12));
      assert.equal(await p.page.getByTestId('scenario').inputValue(), 'burst');
      assert.equal(await p.page.locator('.error-note *').count(), 1, 'no markup beyond the label');
      await p.click('step');
      assert.equal(await p.text('step-index'), '1', 'the example runs');
      assert.deepEqual(p.consoleErrors, []);
    } finally {
      await close();
    }
  }
});

test('an address with something after # that is not a link says so and opens the example', async () => {
  const base = new URL(BASE_URL);
  for (const bad of ['garbage!!<b>x</b>', 'x'.repeat(100_000)]) {
    const { p, close } = await openAt(`${base.origin}${base.pathname}#${bad}`);
    try {
      const note = await p.text('error-note');
      assert.match(note, /is not a Broker Lab link: the example opened instead\.$/, bad.slice(0, 12));
      assert.equal(await p.page.locator('.error-note *').count(), 1, 'no markup beyond the label');
      assert.equal(await p.page.getByTestId('scenario').inputValue(), 'burst');
      assert.deepEqual(p.consoleErrors, []);
    } finally {
      await close();
    }
  }
});

test('garbage pasted into the address of an open page is said, and the run on show stays', async () => {
  const base = new URL(BASE_URL);
  const { p, close } = await openAt(`${base.origin}${base.pathname}`);
  try {
    await p.pickScenario('mm4');
    await p.page.waitForFunction(() => document.querySelector('[data-testid=scenario]').value === 'mm4');
    await p.click('step');
    await p.click('step');
    assert.equal(await p.text('step-index'), '2');
    const cases = [
      ['#garbage!!<b>x</b>', /is not a Broker Lab link: the run on show stays\.$/],
      ['#s=v1.AAAA', /This link could not be opened: .+\.$/],
    ];
    for (const [hash, said] of cases) {
      await p.page.evaluate((h) => { location.hash = h; }, hash);
      await p.page.waitForFunction(
        () => document.querySelector('[data-testid=error-note]')?.textContent.trim().length > 0,
        null,
        { timeout: 5_000 },
      );
      assert.match(await p.text('error-note'), said, hash);
      assert.equal(await p.page.locator('.error-note *').count(), 1, 'no markup beyond the label');
      assert.equal(await p.page.getByTestId('scenario').inputValue(), 'mm4', 'not the opening example');
      assert.equal(await p.text('step-index'), '2', 'the run stays where it was');
      // The address holds the run's own link again, and the page was not reloaded.
      await p.page.waitForFunction(() => location.hash.startsWith('#s=v1.'), null, { timeout: 5_000 });
      await p.click('step');
      assert.equal(await p.text('step-index'), '3');
      await p.click('back');
      assert.equal(await p.text('step-index'), '2');
      assert.deepEqual(p.consoleErrors, []);
    }
  } finally {
    await close();
  }
});

test('the checked-in link of format version 1 still opens at its step', async () => {
  const v1 = readFileSync(new URL('../../core/tests/links/v1-burst.txt', import.meta.url), 'utf8').trim();
  const base = new URL(BASE_URL);
  const { p, close } = await openAt(`${base.origin}${base.pathname}#s=${v1}`);
  try {
    assert.equal(await p.page.getByTestId('scenario').inputValue(), 'burst');
    assert.equal(Number((await p.text('step-index')).replace(/,/g, '')), 4210);
    assert.equal(await p.page.getByTestId('error-note').count(), 0);
  } finally {
    await close();
  }
});

test('a link whose step lies past the end of its run opens at the last step and says so', async () => {
  // Made by `brokerlab link crash-after-commit --step 1900000`.
  const text = readFileSync(new URL('../../core/tests/links/past-the-end-crash-after-commit.txt', import.meta.url), 'utf8').trim();
  const base = new URL(BASE_URL);
  const { p, close } = await openAt(`${base.origin}${base.pathname}#s=${text}`);
  try {
    assert.equal(await p.page.getByTestId('scenario').inputValue(), 'crash-after-commit');
    const note = await p.text('error-note');
    const said = note.match(/This link's moment \(step 1,900,000\) is past the end of its run, which ends at step ([\d,]+): it opened there\.$/);
    assert.ok(said, note);
    assert.equal(await p.text('step-index'), said[1], 'it shows the step it names');
    assert.equal(await p.page.locator('.error-note *').count(), 1, 'no markup beyond the label');
    assert.deepEqual(p.consoleErrors, []);
  } finally {
    await close();
  }
});

test('a member crash: the logs panel and the member cards say the group is rebalancing', async () => {
  await lab.pickScenario('log-consumer-groups');
  await lab.tab('logs');
  await lab.page.getByTestId('logs').waitFor({ state: 'visible' });
  assert.equal(await lab.page.getByTestId('group-0-rebalancing').count(), 0);
  assert.match(await lab.text('group-0-member-0-state'), /^ledger-1: up · .* · owns P0, P1$/);
  await lab.click('group-0-member-0-crash');
  await lab.page.getByTestId('group-0-rebalancing').waitFor({ state: 'visible' });
  // Cooperative rebalancing (the default): the survivor keeps its partitions flowing.
  assert.match(await lab.text('group-0-rebalancing'), /cooperatively/);
  assert.match(await lab.text('group-0-member-0-state'), /^ledger-1: crashed · restarts in/);
  assert.match(await lab.text('group-0-member-1-state'), /^ledger-2: up · .* · owns P2, P3$/);
  assert.match(await lab.text('member-0-1-state'), /^up · .* · owns P2, P3$/);
  assert.doesNotMatch(await lab.page.getByTestId('member-0-1').getAttribute('class'), /\brebalancing\b/);
  await lab.page.getByTestId('topology').screenshot({ path: path.join(SHOTS, '30-topology-logs.png') });
});

test('adding a partition to a log while it runs: the groups rebalance onto one more partition', async () => {
  await lab.pickScenario('log-consumer-groups');
  await lab.tab('logs');
  await lab.page.getByTestId('logs').waitFor({ state: 'visible' });
  assert.equal(await lab.text('log-0-size'), 'account-events: 4 partitions Add a partition');
  const before = await lab.number('log-rebalances');
  await lab.click('log-0-add-partition');
  assert.match(await lab.text('log-0-size'), /^account-events: 5 partitions/);
  assert.equal(await lab.number('log-rebalances'), before + 2, 'both groups rebalance');
  await lab.page.getByTestId('group-0-partition-4').waitFor({ state: 'visible' });
  await lab.page.getByTestId('group-1-partition-4').waitFor({ state: 'visible' });
  // Back one step: the log has its 4 partitions again.
  await lab.click('back');
  assert.match(await lab.text('log-0-size'), /^account-events: 4 partitions/);
  assert.deepEqual(lab.consoleErrors, []);
  await lab.pickScenario('crash-after-commit');
});

test('the event log forgets its message filter when another scenario loads', async () => {
  // Message #3 of one scenario is not message #3 of the next: a filter kept across a
  // load showed "no step is about that message" with no visible reason.
  await lab.tab('story');
  await lab.page.getByTestId('log-filter').fill('#3');
  await lab.pickScenario('mm1');
  assert.equal(await lab.page.getByTestId('log-filter').inputValue(), '');
  for (let i = 0; i < 4; i += 1) await lab.click('step');
  assert.ok((await lab.page.getByTestId('log-msg').count()) > 0, 'the new run logs its messages');
  await lab.pickScenario('crash-after-commit');
});

test('publishes lost to a crashed broker count in the Lost tile, as the invariant says', async () => {
  // mm1 publishes without confirms: while the broker is down its messages vanish before
  // they are stored. The tile said "Lost 0" beside a broken "no message lost".
  await lab.pickScenario('mm1');
  await lab.tab('counters');
  await lab.click('broker-toggle');
  await lab.setSpeed(20);
  await lab.click('play');
  await lab.page.getByTestId('lost-before-stored').waitFor({ state: 'visible', timeout: 20_000 });
  await lab.click('play');
  const [lost, unstored] = [await lab.number('lost'), await lab.number('lost-before-stored')];
  assert.ok(unstored > 0 && lost >= unstored, `lost ${lost}, before stored ${unstored}`);
  await lab.setSpeed(1);
  await lab.pickScenario('crash-after-commit');
});

test('an inbox keyed by the account takes later operations for duplicates: lost, and said so', async () => {
  // inbox-key-scope: 'by-account' keys its inbox by the account; both withdrawals on
  // account 42 are skipped as duplicates of the deposit, acked and never done.
  await lab.pickScenario('inbox-key-scope');
  await lab.tab('counters');
  await scrubTo(3.2);
  assert.match(await lab.text('narration'), /by-account tried to record #1 in its inbox, which is keyed by the entity: key 42 already has a row, from #0, a different message/);
  await scrubTo(20);
  assert.equal(await lab.text('db-0-summary'), 'effects 4 · no duplicate · inbox rows 4');
  assert.equal(await lab.text('db-1-summary'), 'effects 2 · no duplicate · inbox rows 2, keyed by the entity');
  const row42 = async (i) => (await lab.page.getByTestId('db-' + i).innerText()).match(/key 42\s+balance (\d+)/)[1];
  assert.deepEqual([await row42(0), await row42(1)], ['50', '100']);
  assert.equal(await lab.number('lost'), 2, 'the Lost tile counts the two withdrawals');
  assert.equal(await lab.number('duplicate-effects'), 0, 'no effect twice');
  assert.equal(await lab.number('duplicates-skipped'), 2, 'the deposit\u2019s redelivery, on each queue');
  await lab.tab('invariants');
  assert.match(await lab.text('invariant-no-loss-verdict'), /broken/);
  assert.match(await lab.text('invariant-no-loss'), /of these, 2 taken for duplicates by an inbox keyed by the entity/);
  assert.equal(await lab.text('invariant-no-loss-msg'), '#1');
  // The withdrawal's history says what happened to it.
  await lab.click('invariant-no-loss-msg');
  const labels = await lab.page.getByTestId('lineage-svg').locator('text.label').allTextContents();
  assert.ok(labels.some((l) => l.startsWith('taken for a duplicate of #0 (same key 42 in the inbox)')), labels.join(' | '));
  await lab.click('lineage-close');
  await lab.pickScenario('crash-after-commit');
});

test('a handler that trusts the broker applies withdrawals made with stolen credentials: the card and the invariant say so', async () => {
  // untrusted-source: 'partner-api' (its credentials stolen) publishes two well-formed
  // withdrawals for a tenant it has no authority over; 'checked' dead-letters them, 'unchecked' applies them.
  await lab.pickScenario('untrusted-source');
  await lab.tab('counters');
  await scrubTo(2.8);
  assert.equal(await lab.text('db-1-summary'), "effects 2 · no duplicate · inbox rows 2 · source's authority not checked");
  await scrubTo(3.6);
  assert.match(await lab.text('narration'), /unchecked trusts whatever the broker delivers, so it never checked that partner-api may ask for #2/);
  // The stolen credentials of 'reports' are not on the exchange's list: refused at the door.
  assert.equal(await lab.text('exchange-0-publishers'), 'only payments-api, partner-api may publish');
  await scrubTo(20);
  assert.match(await lab.text('narration'), /The broker refused #5: reports may not publish to payments \(access refused\)/);
  assert.equal(await lab.text('db-0-summary'), 'effects 3 · no duplicate · inbox rows 3');
  assert.equal(await lab.text('db-1-summary'), "effects 4 · no duplicate · inbox rows 5 · ⚠ unauthorised effects 2 (source's authority not checked)");
  const row42 = async (i) => (await lab.page.getByTestId('db-' + i).innerText()).match(/key 42\s+balance (\d+)/)[1];
  assert.deepEqual([await row42(0), await row42(1)], ['70', '0']);
  assert.equal(await lab.number('lost'), 0, 'nothing is lost');
  assert.equal(await lab.number('dead-lettered'), 2, "both, on 'checked' only");
  await lab.tab('invariants');
  assert.match(await lab.text('invariant-authorized-verdict'), /broken/);
  assert.match(await lab.text('invariant-authorized'), /Only authorised effects — 2 effects applied for sources without the authority to ask for them, by handlers that trust the broker; first broke at step 9/);
  assert.equal(await lab.text('invariant-authorized-msg'), '#2');
  assert.match(await lab.text('invariant-no-loss-verdict'), /holds/);
  // The stolen withdrawal's history says its source was never checked.
  await lab.click('invariant-authorized-msg');
  const labels = await lab.page.getByTestId('lineage-svg').locator('text.label').allTextContents();
  assert.ok(labels.some((l) => l.startsWith("its source's authority never checked")), labels.join(' | '));
  await lab.click('lineage-close');
  await lab.tab('story');
  await lab.page.getByTestId('log-filter').fill('#5');
  await lab.page.getByTestId('log-msg').first().click();
  const refused = await lab.page.getByTestId('lineage-svg').locator('text.label').allTextContents();
  assert.ok(refused.includes('✗ refused: this producer may not publish here'), refused.join(' | '));
  await lab.click('lineage-close');
  await lab.tab('story');
  await lab.page.getByTestId('log-filter').fill('');
  await lab.pickScenario('crash-after-commit');
});

test('a replay window refuses the redriven payments for their age, and the dead-letter queue says why', async () => {
  // replay-window: the outage's payments are redriven at 40 s; 'windowed' refuses each
  // again (30-35 s old against a 20 s window), 'open' applies them.
  await lab.pickScenario('replay-window');
  await lab.tab('counters');
  await scrubTo(60);
  await lab.tab('story');
  await lab.page.getByTestId('log-filter').fill('#9');
  assert.match(await lab.text('log'), /#9 is older than windowed's consumer accepts \(its replay window\)/);
  await lab.page.getByTestId('log-filter').fill('');
  await lab.tab('counters');
  assert.equal(await lab.text('dlq-0-state'), '18 held · oldest: older than the replay window');
  assert.equal(await lab.text('dlq-1-state'), 'empty');
  assert.equal(await lab.text('db-0-summary'), 'effects 42 · no duplicate · inbox rows 42');
  assert.equal(await lab.text('db-1-summary'), 'effects 60 · no duplicate · inbox rows 60');
  assert.equal(await lab.number('lost'), 0);
  await lab.pickScenario('crash-after-commit');
});

test('a run left with messages no consumer will take says it stalled, not that it drained', async () => {
  // queue-vs-topic: one subscriber crashes for good; the messages for it wait for ever.
  await lab.pickScenario('queue-vs-topic');
  assert.equal(await lab.page.getByTestId('stalled').isHidden(), true, 'not before the end');
  await lab.page.getByTestId('scrubber').focus();
  await lab.page.keyboard.press('End');
  await lab.page.getByTestId('stalled').waitFor({ state: 'visible', timeout: 20_000 });
  // A short word on screen; the sentence on hover and for a screen reader.
  const full = 'stalled: messages wait that no consumer will ever take';
  assert.equal(await lab.page.getByTestId('stalled-short').innerText(), 'stalled');
  assert.equal(await lab.page.getByTestId('stalled').getAttribute('title'), full);
  assert.equal(await lab.page.getByRole('status').filter({ hasText: full }).count(), 1);
  // A touch screen has no hover: tapping the word shows the sentence, tapping again hides it.
  const tip = lab.page.getByTestId('stalled-tip');
  assert.equal(await tip.isHidden(), true);
  await lab.page.getByTestId('stalled-short').click();
  assert.equal(await tip.innerText(), full);
  assert.equal(await lab.page.getByTestId('stalled-short').getAttribute('aria-expanded'), 'true');
  await lab.page.getByTestId('stalled-short').click();
  assert.equal(await tip.isHidden(), true);
  assert.ok((await lab.number('backlog')) > 0, 'the messages it means are in the backlog');
  await lab.pickScenario('crash-after-commit');
  assert.equal(await lab.page.getByTestId('stalled').isHidden(), true);
});

test('in Spanish at 1280×720 the stalled run fits the transport bar on one line', async () => {
  // "atascada: quedan mensajes que ningún consumidor tomará" took three lines under the
  // step readout and made the bar taller.
  const small = await openBrowser({ viewport: { width: 1280, height: 720 }, locale: 'es-ES' });
  try {
    const t = new LabPage(small.page);
    await t.open();
    const bar = () => t.page.locator('.transport').first().boundingBox();
    const before = await bar();
    await t.pickScenario('queue-vs-topic');
    await t.page.getByTestId('scrubber').focus();
    await t.page.keyboard.press('End');
    const stalled = t.page.getByTestId('stalled');
    await stalled.waitFor({ state: 'visible', timeout: 20_000 });
    const lineHeight = await stalled.evaluate((n) => parseFloat(getComputedStyle(n).lineHeight) || 20);
    const box = await stalled.boundingBox();
    assert.ok(box.height < 1.5 * lineHeight, `one line: ${box.height} px`);
    assert.equal((await bar()).height, before.height, 'the bar keeps its height');
    assert.equal(await stalled.getAttribute('title'), 'atascada: quedan mensajes que ningún consumidor tomará');
    assert.deepEqual(t.consoleErrors, []);
  } finally {
    await small.close();
  }
});

test('on a phone (390×844) the help dialog puts each definition under its term', async () => {
  const phone = await openBrowser({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
  try {
    const t = new LabPage(phone.page);
    await t.open();
    await t.click('help-button');
    const help = t.page.getByRole('dialog', { name: 'Help' });
    await help.waitFor({ state: 'visible' });
    const rows = await t.page.evaluate(() => [...document.querySelectorAll('.help-list dt')].map((dt) => {
      const [term, definition] = [dt, dt.nextElementSibling].map((n) => n.getBoundingClientRect());
      return { under: definition.top >= term.bottom - 1, width: Math.round(definition.width) };
    }));
    assert.ok(rows.length > 10, 'the help lists its rows');
    assert.deepEqual(rows.filter((r) => !r.under), [], 'every definition under its term');
    assert.ok(Math.min(...rows.map((r) => r.width)) > 250, 'each the dialog’s width');
    assert.deepEqual(t.consoleErrors, []);
  } finally {
    await phone.close();
  }
});

test('presenting in Spanish, no card title is split inside a word', async () => {
  const small = await openBrowser({ viewport: { width: 1280, height: 720 }, locale: 'es-ES' });
  try {
    const t = new LabPage(small.page);
    await t.open();
    await t.press('p');
    await t.page.waitForFunction(() => document.documentElement.classList.contains('presenting'));
    const split = await splitWords(t.page, '.topology .node strong, .topology .node .state');
    assert.deepEqual(split, [], 'it read "20 consumidore / s"');
    assert.deepEqual(t.consoleErrors, []);
  } finally {
    await small.close();
  }
});

test('every stop of Tab on the stage is something the eye can see', async () => {
  // The chart's caption is for screen readers, out of sight: its λ and μ were focusable
  // terms, so Tab stopped twice on nothing visible (a 1-px box, both at one spot).
  const small = await openBrowser({ viewport: { width: 1280, height: 720 } });
  try {
    const t = new LabPage(small.page);
    await t.open();
    await t.page.locator('body').focus();
    const stops = [];
    for (let i = 0; i < 80; i += 1) {
      await t.page.keyboard.press('Tab');
      const stop = await t.page.evaluate(() => {
        const e = document.activeElement;
        if (!e || e === document.body) return null;
        const r = e.getBoundingClientRect();
        const clipped = e.closest('figcaption, .sr-only, .legend-note');
        const hidden = clipped && getComputedStyle(clipped).clipPath !== 'none';
        return { what: e.dataset.testid || e.tagName, w: r.width, h: r.height, hidden: !!hidden };
      });
      if (stop === null) break;
      stops.push(stop);
    }
    assert.ok(stops.length > 20, `Tab walked the page: ${stops.length} stops`);
    const unseen = stops.filter((s) => s.hidden || s.w < 4 || s.h < 4);
    assert.deepEqual(unseen, [], 'Tab stopped where nothing shows');
    assert.ok(stops.some((s) => s.what === 'term-rho'), 'the ρ note\'s terms are still reached');
  } finally {
    await small.close();
  }
});

test('opening a history from the keyboard and closing it keeps the focus on the side area', async () => {
  // The message's link sits in the Events panel, which the history replaces: the focus
  // fell back to the page's start, and Tab went on from the language switch.
  await lab.pickScenario('crash-after-commit');
  await lab.page.getByTestId('scrubber').focus();
  await lab.page.keyboard.press('End');
  await lab.tab('story');
  await lab.page.getByTestId('log-msg').first().focus();
  await lab.page.keyboard.press('Enter');
  await lab.page.getByTestId('lineage').waitFor({ state: 'visible' });
  const focused = () => lab.page.evaluate(() => document.activeElement?.dataset.testid ?? document.activeElement?.tagName);
  await lab.page.waitForFunction(() => document.activeElement?.dataset.testid === 'lineage-title', null, { timeout: 5_000 })
    .catch(() => {});
  assert.equal(await focused(), 'lineage-title', 'the history takes the focus');
  await lab.page.keyboard.press('Escape');
  await lab.page.getByTestId('lineage').waitFor({ state: 'hidden' });
  // The focus moves on the next frame, once the history is out of sight.
  await lab.page.waitForFunction(() => document.activeElement?.dataset.testid === 'tab-history', null, { timeout: 5_000 })
    .catch(() => {});
  assert.equal(await focused(), 'tab-history', 'closing gives it to the History tab, not the page');
  await lab.tab('story');
});

test('large type in Spanish at 1280×720: nothing in the header is drawn over anything else', async () => {
  // The scenario picker, capped at 22rem, let its 12rem select run over "Semilla".
  const small = await openBrowser({ viewport: { width: 1280, height: 720 }, locale: 'es-ES' });
  try {
    const t = new LabPage(small.page);
    await t.open();
    await t.click('large-type');
    await t.page.waitForFunction(() => document.documentElement.classList.contains('large-type'));
    const overlaps = await t.page.evaluate(() => {
      const parts = [...document.querySelectorAll('header.top label, header.top select, header.top input, header.top button, header.top summary')]
        // Laid out and on show: not out of sight, nor inside the closed Files menu.
        .filter((e) => e.checkVisibility({ checkVisibilityCSS: true }) && !e.closest('.sr-only'))
        .map((e) => ({ what: e.dataset.testid || e.textContent.trim().slice(0, 20), r: e.getBoundingClientRect() }));
      const out = [];
      for (let i = 0; i < parts.length; i += 1) {
        for (let j = i + 1; j < parts.length; j += 1) {
          const [a, b] = [parts[i].r, parts[j].r];
          const inside = (p, q) => p.left >= q.left && p.right <= q.right && p.top >= q.top && p.bottom <= q.bottom;
          if (inside(a, b) || inside(b, a)) continue; // a field within its own label
          if (a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1) {
            out.push(`${parts[i].what} × ${parts[j].what}`);
          }
        }
      }
      return out;
    });
    assert.deepEqual(overlaps, []);
  } finally {
    await small.close();
  }
});

test('a refused seed is said without moving the page, the click that left the field lands, Escape gives the seed back', async () => {
  // The sentence took a row of the header when the field lost the focus: everything under
  // it moved about 96 px down, and the click that moved the focus hit nothing.
  const small = await openBrowser({ viewport: { width: 1280, height: 800 } });
  try {
    const t = new LabPage(small.page);
    await t.open();
    const seed = t.page.getByTestId('seed');
    const before = await seed.inputValue();
    const tab = t.page.getByTestId('tab-scenario');
    const top = async () => (await tab.boundingBox()).y;
    const tabTop = await top();
    await seed.fill('1x');
    await tab.click();
    assert.match(await t.text('seed-problem'), /not a seed/);
    assert.equal(await top(), tabTop, 'the tabs stay where they were');
    assert.equal(await tab.getAttribute('aria-selected'), 'true', 'one click opened the tab');
    await seed.click();
    await seed.press('Escape');
    assert.equal(await seed.inputValue(), before, 'Escape puts the seed in use back');
    assert.equal(await t.text('seed-problem'), '');
    assert.equal(await seed.getAttribute('aria-invalid'), 'false');
    assert.deepEqual(t.consoleErrors, []);
  } finally {
    await small.close();
  }
});

test('a parameter\'s refusal goes once the field holds a valid value again, the value in force included', async () => {
  await lab.open();
  const page = lab.page;
  await lab.pickScenario('mm4');
  await lab.tab('parameters');
  const enter = async (field, value) => {
    await field.fill(value);
    await field.press('Tab');
  };
  const rate = page.getByTestId('param-p0-rate');
  const inForce = await rate.inputValue();
  await enter(rate, 'abc');
  assert.equal(await lab.text('param-p0-rate-error'), '⚠ “abc” is not a number (msg/s).');
  assert.equal(await rate.inputValue(), inForce, 'the value in force stays');
  await enter(rate, inForce);
  assert.equal(await lab.text('param-p0-rate-error'), '', 'the value in force, typed back');
  assert.equal(await rate.getAttribute('aria-invalid'), 'false');
  // A power of ten is a number: out of range, not "not a number".
  await enter(rate, '1e9');
  assert.equal(await lab.text('param-p0-rate-error'), '⚠ Must be from 0 to 1,000,000 msg/s.');

  await lab.reveal('param-q0-bound');
  const bound = page.getByTestId('param-q0-bound');
  assert.equal(await bound.inputValue(), '', 'no bound');
  await enter(bound, 'abc');
  assert.equal(await lab.text('param-q0-bound-error'), '⚠ “abc” is not a number (messages).');
  await enter(bound, '');
  assert.equal(await lab.text('param-q0-bound-error'), '', 'empty is no bound, the value in force');
});

test('requests a crashed producer turned away are counted under More and on its card', async () => {
  await lab.open();
  const page = lab.page;
  await lab.pickScenario('lost-confirm');
  await lab.tab('counters');
  await page.getByTestId('step').click();
  await page.getByTestId('step').click();
  await lab.click('producer-0-toggle');
  while (await page.getByTestId('step').isEnabled()) await page.getByTestId('step').click();
  assert.equal(await lab.number('requests-refused'), 2);
  assert.match(await lab.text('producer-0-jobs'), /1 completed · 0 failed · 2 turned away while down$/);
});
