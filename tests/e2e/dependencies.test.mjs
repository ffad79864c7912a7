// End-to-end test of load that fights back (issue 15): the metastable example's goodput
// collapses after a short slowdown and stays down though the trigger is gone; admission
// control applied from the parameters panel sheds the stale work and goodput recovers.
// Run by .ci/test-web:  BROKERLAB_URL=http://127.0.0.1:PORT/brokerlab/ node --test dependencies.test.mjs
// playwright-core drives Debian's Chromium (never a downloaded browser).

import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { openPage } from './browser.mjs';

let page;
let errors;

before(async () => {
  ({ page, errors } = await openPage(undefined, { viewport: { width: 1280, height: 900 }, locale: 'en-US' }));
});

const text = (id) => page.getByTestId(id).innerText().then((t) => t.trim());
const goodputNow = async () => Number(await page.getByTestId('chart').getAttribute('data-goodput-now'));

/** Plays at 10× until the clock reads at least `t_s`, then pauses. */
async function playTo(t_s, speed = '10') {
  await page.getByTestId('speed').selectOption(speed);
  await page.getByTestId('play').click();
  await page.waitForFunction(
    (t) => parseFloat(document.querySelector('[data-testid=time]').textContent) >= t,
    t_s,
    { timeout: 60_000 },
  );
  await page.getByTestId('play').click();
}

test('metastable failure: goodput collapses on the chart and stays down until admission control sheds load', async () => {
  await page.getByTestId('scenario').selectOption('dep-metastable');
  assert.equal(await text('step-index'), '0');
  await playTo(6, '2');
  const healthy = await goodputNow();
  assert.ok(healthy > 30, `goodput before the slowdown: ${healthy}/s`);
  const legend = page.getByTestId('chart-legend');
  assert.equal(await legend.locator('li[data-line=Goodput]').count(), 1, 'the chart draws goodput');
  assert.equal(await legend.locator('li[data-line=Throughput]').count(), 1, 'next to throughput');
  assert.doesNotMatch(await text('dep-0-protections'), /admission/);

  // The slowdown lasts 10–13 s; long after it goodput is still collapsed.
  await playTo(28);
  const collapsed = await goodputNow();
  assert.ok(collapsed < healthy / 4, `collapsed: ${collapsed}/s (was ${healthy}/s)`);
  assert.match(await text('dep-0-work'), /too late \(wasted work\)/);
  await page.getByTestId('dep-0-overloaded').waitFor({ state: 'visible' });
  // The ρ line divides by what the database serves (10 slots at 0.1 s), not by the
  // handler slots (it read μ = 30,000/s), and does not call the collapse stable.
  assert.match(await text('rho-rates'), /λ = 70\/s arriving, μ = 100\/s capacity, limited by db/);
  assert.equal(await text('rho-value'), '0.70');
  assert.match(await text('rho-hint'), /^ρ < 1, but the dependency db is overloaded/);
  assert.equal(await page.getByTestId('rho').getAttribute('data-state'), 'strained');

  // Admission control below the callers' 0.5 s timeout, from the parameters.
  await page.getByTestId('tab-parameters').click();
  const field = page.getByTestId('param-dep0-admission');
  await field.fill('0.3');
  await field.press('Tab');
  assert.equal(await text('param-dep0-admission-error'), '', 'the value is accepted');
  assert.match(await text('dep-0-protections'), /admission control/);

  await playTo(45);
  const recovered = await goodputNow();
  assert.ok(recovered > healthy / 2, `recovered: ${recovered}/s (collapsed ${collapsed}/s)`);
  assert.deepEqual(errors, [], 'no console errors');
});
