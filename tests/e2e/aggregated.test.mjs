// End-to-end test of an aggregated run on the page (issue 14): the built-in day at a
// million messages per second is computed as flows, said so in a banner, and played like
// any run: the chart and the counters follow the cursor to the fluid numbers.
// Run by .ci/test-web:  BROKERLAB_URL=http://127.0.0.1:PORT/brokerlab/ node --test aggregated.test.mjs
// playwright-core drives Debian's Chromium (never a downloaded browser).

import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BASE_URL, openPage, openBrowser, watchErrors, waitForLab } from './browser.mjs';

let page;
let errors;

before(async () => {
  ({ page, errors } = await openPage(BASE_URL, { locale: 'en-US', viewport: { width: 1280, height: 900 } }));
});

const text = (id) => page.getByTestId(id).innerText().then((t) => t.trim());
/** A counter as a number ("2,880,000,000" → 2880000000): the exact count its title gives
 * when the tile writes it short ("2.88 × 10⁹"), else its text. */
const number = async (id) => {
  const exact = await page.getByTestId(id).getAttribute('title');
  return Number((exact ?? (await text(id))).replace(/[^0-9.]/g, ''));
};
const backlogNow = async () => Number(await page.getByTestId('chart').getAttribute('data-backlog-now'));

/** Within `share` (a fraction) of `expected`, or within `floor` of it. */
function near(actual, expected, share, what, floor = 0) {
  const allowed = Math.max(Math.abs(expected) * share, floor);
  assert.ok(Math.abs(actual - expected) <= allowed, `${what}: ${actual}, expected ${expected} ± ${allowed}`);
}

test('a day at a million per second opens aggregated, plays, and the chart reaches the fluid numbers', async () => {
  await page.getByTestId('scenario').selectOption('day-at-a-million');
  const banner = page.getByTestId('aggregated-banner');
  await banner.waitFor({ state: 'visible', timeout: 10_000 });
  assert.match(await banner.innerText(), /computed as flows/i);
  // The numbers behind it are folded (the banner left the chart below a 1280×800 fold).
  const chart = await page.getByTestId('chart').boundingBox();
  assert.ok(chart.y + 150 <= 800, `the chart starts at ${chart.y}, within the first screen`);
  await page.getByTestId('aggregated-details').locator('summary').click();
  assert.match(await text('aggregated-note'), /^Aggregated mode: message by message it would need about [0-9]{1,3}(,[0-9]{3})+ message copies/);
  await page.getByTestId('aggregated-stage').waitFor({ state: 'visible' });
  assert.equal(await page.getByTestId('topology').count(), 0, 'no tokens, no topology cards');
  assert.equal(await page.getByTestId('crash').isDisabled(), true, 'nothing to crash');
  assert.equal((await page.getByTestId('crash').innerText()).trim(), 'No crashes in an aggregated run');
  // Its values come from the scenario: the parameters say where to change them, no form.
  await page.getByTestId('tab-parameters').click();
  assert.match(await text('params-aggregated'), /computed as flows .* Scenario tab/);
  assert.equal(await page.getByTestId('param-p0-rate').count(), 0, 'no field that would change nothing');
  await page.getByTestId('tab-counters').click();
  assert.match(await page.getByTestId('crash').getAttribute('title'), /aggregated mode/);
  // No latency percentiles, and the panel says why (not that nothing finished).
  assert.match(await text('latency-none'), /^An aggregated run follows rates and amounts, not single messages/);

  // Play a moment: the cursor moves (1× is 480 s of the run per second; 10× here).
  await page.getByTestId('play').click();
  await page.waitForFunction(() => parseFloat(document.querySelector('[data-testid=time]').textContent.replace(/,/g, '')) > 600,
    null, { timeout: 30_000 });
  await page.getByTestId('play').click();

  // Noon: the peak. The backlog grew by 200,000 per second for 4 hours.
  await page.getByTestId('scrubber').fill('43200');
  await page.waitForFunction(() => document.querySelector('[data-testid=scrubber-time]').textContent.startsWith('43,200.0 s'));
  near(await backlogNow(), 2_880_000_000, 0.01, 'backlog at noon (chart)');
  near(await number('backlog'), 2_880_000_000, 0.01, 'backlog at noon (counter)');
  near(await number('published'), 31_680_000_000, 0.01, 'published by noon');
  near(await number('acked'), 28_800_000_000, 0.01, 'acked by noon');
  near(Number(await page.getByTestId('chart').getAttribute('data-predicted-now')), 2_880_000_000, 0.01, 'prediction at noon');
  near(await number('aggregated-queue-0-waiting'), 2_880_000_000, 0.01, 'the queue card');
  // No steps to narrate: the line says the amounts at the cursor, not "Press Play".
  assert.match(await text('narration'), /^At 43,200\.0 s: 2,8\d\d,\d{3},\d{3} waiting\. Computed as flows/);
  // The counters balance, and their billions fit their tiles (none cut short).
  const inFlight = await number('in-flight');
  near(await number('published'), (await number('acked')) + (await number('backlog')) + inFlight, 0, 'published = acked + waiting + in flight', 3);
  const cut = await page.locator('.counter dd').evaluateAll((dds) =>
    dds.filter((d) => d.offsetParent !== null && d.scrollWidth > d.clientWidth + 1).map((d) => d.textContent));
  assert.deepEqual(cut, [], 'counters cut short');

  // The end of the day: drained since 16:00, every message acknowledged.
  await page.getByTestId('scrubber').fill('86400');
  await page.waitForFunction(() => document.querySelector('[data-testid=scrubber-time]').textContent.startsWith('86,400.0 s'));
  near(await backlogNow(), 0, 0, 'backlog at the end', 1_000);
  near(await number('published'), 57_600_000_000, 0.01, 'published in the day');
  near(await number('acked'), 57_600_000_000, 0.01, 'acked in the day');
  assert.equal(await text('play'), 'Replay');

  // Back to a message-by-message example: the banner goes, the topology returns.
  await page.getByTestId('scenario').selectOption('burst');
  await page.getByTestId('topology').waitFor({ state: 'visible' });
  assert.equal(await banner.count(), 0);
  assert.deepEqual(errors, [], 'no console errors');
});

test('a link to an aggregated run opens it aggregated', async () => {
  const before = await page.evaluate(() => location.hash);
  await page.getByTestId('scenario').selectOption('day-at-a-million');
  await page.getByTestId('aggregated-banner').waitFor({ state: 'visible', timeout: 10_000 });
  // The address follows the page once it has been still for a moment.
  await page.waitForFunction((old) => location.hash.startsWith('#s=') && location.hash !== old, before,
    { timeout: 10_000 });
  const link = page.url();

  const other = await openBrowser({ locale: 'en-US', viewport: { width: 1280, height: 900 } });
  const otherErrors = watchErrors(other.page);
  await other.page.goto(link, { waitUntil: 'load' });
  await waitForLab(other.page);
  await other.page.getByTestId('aggregated-banner').waitFor({ state: 'visible', timeout: 10_000 });
  assert.equal(await other.page.getByTestId('error-note').count(), 0, 'no refusal');
  assert.equal(await other.page.getByTestId('scenario').inputValue(), 'day-at-a-million');
  await other.page.getByTestId('scrubber').fill('43200');
  await other.page.waitForFunction(() => document.querySelector('[data-testid=scrubber-time]').textContent.startsWith('43,200.0 s'));
  const backlog = Number(await other.page.getByTestId('chart').getAttribute('data-backlog-now'));
  near(backlog, 2_880_000_000, 0.01, 'backlog at noon, opened from the link');
  assert.deepEqual(otherErrors, [], 'no console errors');
  await other.close();
});

test('ρ over the chart is the day\'s own, opened straight after the burst', async () => {
  // The burst and the day both open with 20 consumers and nothing done yet: the counters
  // were equal, and ρ kept the burst's 1.50 ("grows without bound") over the day's 0.75.
  await page.getByTestId('scenario').selectOption('burst');
  await page.getByTestId('topology').waitFor({ state: 'visible' });
  assert.equal(await text('rho-value'), '1.50');
  await page.getByTestId('scenario').selectOption('day-at-a-million');
  await page.getByTestId('aggregated-banner').waitFor({ state: 'visible', timeout: 10_000 });
  assert.equal(await text('rho-value'), '0.75', '600,000 per second against 800,000');
  assert.match(await text('rho-hint'), /^ρ < 1/);
  // And back: the burst's again.
  await page.getByTestId('scenario').selectOption('burst');
  await page.getByTestId('topology').waitFor({ state: 'visible' });
  assert.equal(await text('rho-value'), '1.50');
  assert.deepEqual(errors, [], 'no console errors');
});

test('on a phone in Spanish the day at a million stacks its lanes and nothing scrolls sideways', async () => {
  // Its three lanes stayed side by side at 390 px: the producers' lane (109 px) was too
  // narrow for its card, and the page scrolled 2 px sideways.
  const phone = await openPage(BASE_URL, {
    locale: 'es-ES', viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true,
  });
  await phone.page.getByTestId('scenario').selectOption('day-at-a-million');
  await phone.page.getByTestId('aggregated-stage').waitFor({ state: 'visible', timeout: 10_000 });
  const { wide, lanes } = await phone.page.evaluate(() => ({
    // Against 390, not innerWidth: a phone widens its layout viewport to fit wide content.
    wide: Math.max(document.documentElement.scrollWidth, window.innerWidth),
    lanes: [...document.querySelectorAll('.aggregated-stage .lane')].map((l) => {
      const r = l.getBoundingClientRect();
      return { left: Math.round(r.left), right: Math.round(r.right), fits: l.scrollWidth <= l.clientWidth + 1 };
    }),
  }));
  assert.equal(wide, 390, 'the page is as wide as the phone');
  assert.equal(lanes.length, 3);
  assert.ok(lanes.every((l) => l.left === lanes[0].left), `one lane under the other: ${JSON.stringify(lanes)}`);
  assert.ok(lanes.every((l) => l.fits), `every lane holds its cards: ${JSON.stringify(lanes)}`);
  assert.deepEqual(phone.errors, [], 'no console errors');
  await phone.close();
});

test('in large type and presenting, the three lanes share the width', async () => {
  // The four-lane rules of large type and presenting are more specific than the plain
  // three-lane one: the lanes took three of four columns and left the fourth empty.
  await page.getByTestId('scenario').selectOption('day-at-a-million');
  await page.getByTestId('aggregated-stage').waitFor({ state: 'visible', timeout: 10_000 });
  const columns = () => page.evaluate(() =>
    getComputedStyle(document.querySelector('.aggregated-stage .lanes')).gridTemplateColumns.split(' ').length);
  assert.equal(await columns(), 3, 'plain');
  await page.getByTestId('large-type').click();
  assert.equal(await columns(), 3, 'large type');
  await page.getByTestId('large-type').click();
  await page.keyboard.press('p');
  await page.locator('html.presenting').waitFor({ state: 'attached' });
  assert.equal(await columns(), 3, 'presenting');
  await page.keyboard.press('p');
  await page.getByTestId('scenario').selectOption('burst');
  assert.deepEqual(errors, [], 'no console errors');
});

test('a run stopped at its time limit says so only at the end, its producer card gives the ρ line\'s λ, and its counters fit, exact on hover', async () => {
  // mm1 with a count no message-by-message run could hold: aggregated, stopped at ten years.
  const dir = mkdtempSync(path.join(tmpdir(), 'brokerlab-aggregated-'));
  const file = path.join(dir, 'count-huge.json');
  writeFileSync(file, JSON.stringify({
    version: 2, name: 'mm1-for-ever', seed: 1,
    producers: [{ name: 'P1', arrivals: { process: 'poisson', schedule: [{ from_s: 0, rate_per_s: 0.9 }] }, count: 1e15 }],
    queues: [{ name: 'jobs', visibility_timeout_s: 3600 }],
    consumers: [{ name: 'C1', service: { exponential: { mean_s: 1.0 } }, ack: 'after_commit' }],
    sample_every_s: 1,
  }));
  try {
    await page.getByTestId('open-scenario').setInputFiles(file);
    await page.getByTestId('aggregated-banner').waitFor({ state: 'visible', timeout: 10_000 });
    await page.getByTestId('step').click();
    await page.getByTestId('step').click();
    assert.ok(await number('time') > 0, 'the cursor moved');
    assert.equal(await page.getByTestId('budget-stop').isHidden(), true, 'not stopped yet');
    assert.equal(await text('play'), 'Play');
    assert.match(await text('aggregated-producer-0'), /0\.9 per second/);
    assert.match(await text('rho-rates'), /λ = 0\.9\/s/);

    await page.getByTestId('scrubber').fill('315360000');
    await page.waitForFunction(() => document.querySelector('[data-testid=scrubber-time]').textContent.startsWith('315,360,000.0 s'));
    assert.match(await text('budget-stop'), /stopped at the time limit/);
    assert.equal(await text('play'), 'Replay');
    // Hundreds of millions: written short, the exact count in the title, nothing cut.
    const published = page.getByTestId('published');
    assert.match(await text('published'), /^\d{3}\.\d M$/);
    assert.match(await published.getAttribute('title'), /^\d{3},\d{3},\d{3}$/);
    const cut = await page.locator('.counter dd').evaluateAll((dds) =>
      dds.filter((d) => d.offsetParent !== null && d.scrollWidth > d.clientWidth + 1).map((d) => d.textContent));
    assert.deepEqual(cut, [], 'counters cut short');
    assert.deepEqual(errors, [], 'no console errors');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
