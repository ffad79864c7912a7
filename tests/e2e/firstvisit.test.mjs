// End-to-end tests of the first visit: the tour, the grouped scenario picker, the terms'
// definitions and the help's list of card controls.
// Run by .ci/test-web:  BROKERLAB_URL=http://127.0.0.1:PORT/brokerlab/ node --test firstvisit.test.mjs
// Unlike page.test.mjs, these browsers do not mark the tour seen before loading.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { BASE_URL, openBrowser, waitForLab, watchErrors } from './browser.mjs';

const SHOTS = path.resolve(process.env.SCREENSHOT_DIR ?? 'target/screenshots');

/** A fresh browser profile (so a first visit), with the page loaded. */
async function firstVisit(viewport = { width: 1280, height: 800 }, initScript = null) {
  const { context, page, close } = await openBrowser({ tourSeen: false, viewport });
  if (initScript) await context.addInitScript(initScript);
  const errors = watchErrors(page);
  await page.goto(BASE_URL, { waitUntil: 'load' });
  await waitForLab(page);
  return { page, errors, close };
}

/** Do two boxes share any area? */
function overlaps(a, b) {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

/** The tour's card and the element its step outlines, once the card has settled. */
async function tourBoxes(page) {
  await page.waitForTimeout(150);
  const card = await page.getByTestId('tour').boundingBox();
  const target = await page.locator('[data-tour-target]').boundingBox();
  return { card, target };
}

test('a first visit shows the tour beside each part it explains; Skip hides it for good', async () => {
  mkdirSync(SHOTS, { recursive: true });
  const { page, errors } = await firstVisit();
  const tour = page.getByTestId('tour');
  await tour.waitFor({ state: 'visible' });
  assert.equal(await tour.getAttribute('role'), 'dialog');
  assert.match(await page.getByTestId('tour-progress').innerText(), /1 of 5/);
  await page.waitForFunction(() => document.querySelector('[data-testid=tour]').contains(document.activeElement));
  assert.ok(await page.getByTestId('tour-back').isDisabled(), 'no Back on the first step');
  const titles = [];
  for (let step = 0; step < 5; step += 1) {
    assert.equal(await tour.getAttribute('data-step'), String(step));
    titles.push(await page.getByTestId('tour-title').innerText());
    const { card, target } = await tourBoxes(page);
    assert.ok(target, `step ${step} outlines what it explains`);
    assert.ok(!overlaps(card, target), `step ${step} (${titles[step]}): the card ${JSON.stringify(card)} covers ${JSON.stringify(target)}`);
    assert.ok(card.y >= 0 && card.y + card.height <= 800, `step ${step}: the card is on screen`);
    if (step === 1) await page.screenshot({ path: path.join(SHOTS, '40-tour-topology.png') });
    if (step < 4) await page.getByTestId('tour-next').click();
  }
  assert.deepEqual(titles.slice(0, 1), ['Play, step, speed']);
  assert.equal(await page.getByTestId('tour-next').innerText(), 'Done');
  await page.getByTestId('tour-back').click();
  assert.equal(await tour.getAttribute('data-step'), '3');
  // Keys pressed in the card do not reach the page: space presses the focused button.
  await page.getByTestId('tour-next').focus();
  await page.keyboard.press(' ');
  assert.equal(await tour.getAttribute('data-step'), '4');
  assert.equal(await page.getByTestId('play').innerText(), 'Play', 'space did not start the run');
  await page.getByTestId('tour-skip').click();
  await tour.waitFor({ state: 'hidden' });
  assert.equal(await page.locator('[data-tour-target]').count(), 0, 'no outline left');
  // Nothing opened this tour: the focus goes to the Tour button, not to the page's start.
  await page.waitForFunction(() => document.activeElement?.dataset.testid === 'tour-button', null, { timeout: 5_000 });
  await page.reload({ waitUntil: 'load' });
  await waitForLab(page);
  await page.waitForTimeout(300);
  assert.equal(await tour.count(), 0, 'a reload does not show the tour again');
  assert.deepEqual(errors, []);
});

test('the header button restarts the tour; Escape skips it and gives the focus back', async () => {
  const { page } = await firstVisit();
  const tour = page.getByTestId('tour');
  await tour.waitFor({ state: 'visible' });
  await page.keyboard.press('Escape');
  await tour.waitFor({ state: 'hidden' });
  await page.getByTestId('tour-button').click();
  await tour.waitFor({ state: 'visible' });
  assert.equal(await tour.getAttribute('data-step'), '0');
  await page.getByTestId('tour-next').click();
  assert.equal(await tour.getAttribute('data-step'), '1');
  await page.keyboard.press('Escape');
  await tour.waitFor({ state: 'hidden' });
  await page.waitForFunction(() => document.activeElement?.dataset.testid === 'tour-button');
  // Restarted, it begins at the first step again.
  await page.getByTestId('tour-button').click();
  assert.equal(await tour.getAttribute('data-step'), '0');
});

test('?tour=off keeps the tour closed on a first visit', async () => {
  const { page } = await firstVisit();
  await page.goto(`${BASE_URL}?tour=off`, { waitUntil: 'load' });
  await waitForLab(page);
  await page.evaluate(() => localStorage.clear());
  await page.reload({ waitUntil: 'load' });
  await waitForLab(page);
  await page.waitForTimeout(300);
  assert.equal(await page.getByTestId('tour').count(), 0);
});

test('without local storage the tour still shows, and Skip closes it without an error', async () => {
  const { page, errors } = await firstVisit({ width: 1280, height: 800 }, () => {
    Object.defineProperty(window, 'localStorage', {
      get() {
        throw new DOMException('storage is disabled', 'SecurityError');
      },
    });
  });
  const tour = page.getByTestId('tour');
  await tour.waitFor({ state: 'visible' });
  await page.getByTestId('tour-skip').click();
  await tour.waitFor({ state: 'hidden' });
  await page.getByTestId('play').click();
  assert.equal(await page.getByTestId('play').innerText(), 'Pause', 'the page works');
  assert.deepEqual(errors, []);
});

test('on a phone the tour is a sheet along an edge, inside the screen', async () => {
  const { page } = await firstVisit({ width: 390, height: 844 });
  const tour = page.getByTestId('tour');
  await tour.waitFor({ state: 'visible' });
  for (let step = 0; step < 5; step += 1) {
    await page.waitForTimeout(150);
    assert.match(await tour.getAttribute('class'), /sheet/);
    const card = await tour.boundingBox();
    assert.ok(card.x >= 0 && card.x + card.width <= 390 + 0.5, `step ${step}: within the width`);
    assert.ok(card.y >= 0 && card.y + card.height <= 844 + 0.5, `step ${step}: within the height`);
    const next = await page.getByTestId('tour-next').boundingBox();
    assert.ok(next.height >= 44, 'a thumb-sized button');
    if (step === 0) await page.screenshot({ path: path.join(SHOTS, '41-tour-phone.png') });
    await page.getByTestId('tour-next').click();
  }
  await tour.waitFor({ state: 'hidden' });
  // The timeline is dragged with a thumb too (it was 32 px tall).
  const timeline = await page.locator('.timeline input[type=range]').first().boundingBox();
  assert.ok(timeline.height >= 44, `timeline ${timeline.height} px tall`);
});

test('the scenario picker groups readable titles by topic, and choosing one loads it', async () => {
  const { page } = await firstVisit();
  await page.keyboard.press('Escape');
  const picker = page.getByTestId('scenario');
  const groups = await picker.locator('optgroup').evaluateAll((gs) =>
    gs.map((g) => ({ label: g.label, options: [...g.querySelectorAll('option')].map((o) => [o.value, o.textContent]) })),
  );
  assert.ok(groups.length >= 5, `groups: ${groups.map((g) => g.label)}`);
  const labels = groups.map((g) => g.label);
  for (const topic of ['Load and capacity', 'Delivery guarantees', 'Ordering', 'Logs and consumer groups']) {
    assert.ok(labels.includes(topic), `${topic} in ${labels}`);
  }
  const options = groups.flatMap((g) => g.options);
  assert.equal(options.length, await picker.locator('option').count(), 'every option is in a group');
  for (const [value, text] of options) {
    assert.notEqual(text, value, `${value} is shown by its title`);
    assert.match(text, / /, `“${text}” reads as words`);
  }
  assert.equal(new Set(options.map((o) => o[1])).size, options.length, 'titles are unique');
  assert.equal(await picker.inputValue(), 'burst');
  await picker.selectOption({ label: 'Crash between commit and ack: a duplicate' });
  assert.equal(await picker.inputValue(), 'crash-after-commit');
  assert.match(await page.getByTestId('scenario-description').innerText(), /crashes before its ack/);
  assert.equal(await page.getByTestId('consumer-1').count(), 0, 'its one consumer');
});

test('focusing a term shows its definition; Escape and leaving hide it', async () => {
  const { page } = await firstVisit();
  await page.keyboard.press('Escape');
  const rho = page.getByTestId('rho').getByTestId('term-rho');
  const tip = page.getByTestId('rho').getByTestId('term-rho-tip');
  assert.ok(await tip.isHidden());
  await rho.focus();
  await tip.waitFor({ state: 'visible' });
  assert.match(await tip.innerText(), /λ\/μ/);
  assert.equal(await rho.getAttribute('aria-describedby'), await tip.getAttribute('id'));
  assert.equal(await tip.getAttribute('role'), 'tooltip');
  await page.keyboard.press('Escape');
  await tip.waitFor({ state: 'hidden' });
  // Tab reaches the next term (λ) and shows its definition.
  await page.keyboard.press('Tab');
  const lambdaTip = page.getByTestId('rho').getByTestId('term-lambda-tip');
  await lambdaTip.waitFor({ state: 'visible' });
  assert.match(await lambdaTip.innerText(), /arrival rate/);
  await page.keyboard.press('Tab');
  await lambdaTip.waitFor({ state: 'hidden' });
  // In the parameters: hovering the prefetch label.
  await page.getByTestId('tab-parameters').click();
  await page.getByTestId('param-q0-more').locator('summary').click();
  const prefetch = page.getByTestId('parameters').getByTestId('term-prefetch');
  await prefetch.hover();
  const prefetchTip = page.getByTestId('parameters').getByTestId('term-prefetch-tip');
  await prefetchTip.waitFor({ state: 'visible' });
  assert.match(await prefetchTip.innerText(), /unacked/);
  for (const slug of ['lambda', 'ack', 'lease']) {
    assert.ok((await page.getByTestId(`term-${slug}`).count()) > 0, `${slug} is defined somewhere on the page`);
  }
  await page.screenshot({ path: path.join(SHOTS, '42-term-prefetch.png') });
  // On a consumer card: the lease line, once a delivery holds one.
  await page.getByTestId('scenario').selectOption('short-lease');
  const lease = page.getByTestId('consumer-0-lease');
  for (let i = 0; i < 40 && !(await lease.isVisible()); i += 1) await page.getByTestId('step').click();
  assert.match(await lease.innerText(), /lease/);
  await lease.getByTestId('term-lease').focus();
  const leaseTip = lease.getByTestId('term-lease-tip');
  await leaseTip.waitFor({ state: 'visible' });
  assert.match(await leaseTip.innerText(), /visibility timeout/);
  // On a database card that keeps an inbox: its summary defines the inbox.
  await page.getByTestId('scenario').selectOption('outbox-relay-crash');
  const summary = page.getByTestId('db-0-summary');
  assert.match(await summary.innerText(), /inbox rows 0/);
  await summary.getByTestId('term-inbox').hover();
  const inboxTip = summary.getByTestId('term-inbox-tip');
  await inboxTip.waitFor({ state: 'visible' });
  assert.match(await inboxTip.innerText(), /already processed/);
});

test('the help lists every control on the cards', async () => {
  const { page } = await firstVisit();
  await page.keyboard.press('Escape');
  const buttonsOn = async () =>
    page.getByTestId('topology').locator('button').evaluateAll((bs) => bs.map((b) => b.textContent.trim()));
  const seen = new Set(await buttonsOn());
  for (const name of ['outbox-relay-crash', 'retries-dlq-redrive', 'crash-after-commit']) {
    await page.getByTestId('scenario').selectOption(name);
    for (const b of await buttonsOn()) seen.add(b);
  }
  await page.getByTestId('help-button').click();
  const list = await page.getByTestId('help-card-controls').innerText();
  for (const control of ['Crash after next commit', 'Drop next ack', 'Inject poison', 'Slow ×4', 'Redrive', 'Crash after next publish', 'Drop next confirm']) {
    assert.ok(list.includes(control), `${control} is in the help`);
  }
  for (const button of seen) assert.ok(list.includes(button), `the card button “${button}” is in the help`);
  const terms = await page.getByTestId('help-terms').innerText();
  for (const word of ['λ', 'μ', 'ρ', 'lease', 'prefetch', 'ack', 'inbox', 'offset', 'lag']) {
    assert.ok(terms.includes(word), `${word} in the help's terms`);
  }
});
