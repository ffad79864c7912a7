// End-to-end test of compare mode (issue 16): the crash-after-commit story played twice on
// one clock, as designed (A) and with an inbox (B). Both sides publish the same message and
// suffer the same crash; only A applies the effect twice, and the counters table marks that
// row. The share link is a compare link, and opening it shows the comparison again.
// Run by .ci/test-web:  BROKERLAB_URL=http://127.0.0.1:PORT/brokerlab/ node --test compare.test.mjs
// playwright-core drives Debian's Chromium (never a downloaded browser).

import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { BASE_URL, openPage, waitForLab } from './browser.mjs';

let context;
let page;
let errors;

before(async () => {
  ({ context, page, errors } = await openPage(BASE_URL, { locale: 'en-US', viewport: { width: 1280, height: 900 } }));
});

/** Files → Compare…: opens (or, when open, closes) the compare form. */
async function openCompare(p) {
  await p.getByTestId('files').locator('summary').click();
  await p.getByTestId('compare-open').click();
}

/** A counter's row in the side-by-side table: its A, B and difference cells. */
async function row(p, name) {
  const tr = p.getByTestId('compare-counters').locator(`tr[data-counter=${name}]`);
  const cell = (side) => tr.locator(`td[data-side=${side}]`).innerText().then((t) => t.trim());
  return { a: await cell('a'), b: await cell('b'), delta: await cell('delta'), differs: await tr.getAttribute('data-differs'), cls: await tr.getAttribute('class') };
}

/** Moves the timeline to its end and waits for the seek to finish. */
async function seekToEnd(p) {
  const end = await p.getByTestId('scrubber').getAttribute('max');
  await p.getByTestId('scrubber').fill(end);
  await p.waitForFunction(() => document.querySelector('[data-testid=seeking]').textContent === '', null, { timeout: 60_000 });
}

/** crash-after-commit compared with an inbox on its consumers, at the end of the run. */
async function compareInboxAtEnd(p) {
  await p.getByTestId('scenario').selectOption('crash-after-commit');
  await openCompare(p);
  await p.getByTestId('compare-free').fill('consumers.*.idempotency=inbox');
  await p.getByTestId('compare-start').click();
  await p.getByTestId('compare-target').waitFor({ state: 'visible' });
  await seekToEnd(p);
}

/** Both sides are on show, with the same message published and the duplicate only on A. */
async function assertComparedAtEnd(p) {
  await p.getByTestId('stage-a').waitFor({ state: 'visible' });
  await p.getByTestId('stage-b').waitFor({ state: 'visible' });
  assert.match(await p.getByTestId('stage-b').locator('.side-label').innerText(), /^B: with consumers\.\*\.idempotency = inbox/);
  const published = await row(p, 'published');
  assert.equal(published.a, published.b, 'the same arrivals on both sides');
  assert.equal(published.differs, 'false');
  const dup = await row(p, 'duplicate_effects');
  assert.deepEqual([dup.a, dup.b, dup.delta, dup.differs], ['1', '0', '−1', 'true']);
  assert.match(dup.cls ?? '', /\bdiffers\b/, 'the differing row is highlighted');
  assert.notEqual(await p.getByTestId('chart').getAttribute('data-variant-backlog-now'), '');
  assert.equal(await p.getByTestId('chart-legend').locator('li[data-line=VariantBacklog]').count(), 1);
}

test('compare mode: the same crash under two designs, side by side, and its link', async () => {
  await compareInboxAtEnd(page);
  await assertComparedAtEnd(page);
  // Seeking moved B by a jump too: nothing travels on either stage, and no badge counts
  // what B stepped through to catch up.
  await page.waitForTimeout(300);
  for (const side of ['stage-a', 'stage-b']) {
    const tokens = page.getByTestId(side).getByTestId('tokens');
    assert.equal((await tokens.getAttribute('data-tokens')) ?? '0', '0', `${side}: no token after a seek`);
    assert.equal((await tokens.getAttribute('data-aggregated')) ?? '0', '0', `${side}: no badge after a seek`);
  }

  // A bad change is one sentence on the page, and the comparison stays as it was.
  await openCompare(page);
  await page.getByTestId('compare-free').fill('seed=5');
  await page.getByTestId('compare-start').click();
  assert.match(await page.getByTestId('error-note').innerText(), /This change cannot be compared/);
  // So is a value side A has already (the form starts B at A's values): both sides would
  // run alike, step for step.
  await page.getByTestId('compare-free').fill('consumers.*.ack=after_commit');
  await page.getByTestId('compare-start').click();
  await page.waitForFunction(() =>
    /consumers\.\*\.ack: changes nothing/.test(document.querySelector('[data-testid=error-note]')?.textContent ?? ''));
  await openCompare(page);

  await page.getByTestId('copy-link').click();
  const link = await page.evaluate(() => location.href);
  assert.match(link, /#s=v2\.[A-Za-z0-9_-]+$/, 'a compare link');

  const second = await context.newPage();
  try {
    await second.goto(link, { waitUntil: 'load' });
    await waitForLab(second);
    await seekToEnd(second);
    await assertComparedAtEnd(second);
    await second.getByTestId('compare-stop').click();
    await second.getByTestId('stage-b').waitFor({ state: 'detached' });
    assert.equal(await second.getByTestId('compare-counters').count(), 0);
  } finally {
    await second.close();
  }
  assert.deepEqual(errors, [], 'no console errors');
});

test('switching language while comparing words every label again and breaks nothing', async () => {
  await compareInboxAtEnd(page);
  await page.getByTestId('lang-es').click();
  const target = page.getByTestId('compare-target');
  await page.waitForFunction(() => /ambos/.test(document.querySelector('[data-testid=compare-target]').textContent));
  assert.doesNotMatch(await target.innerText(), /\bboth\b/);
  // Every counter is named in Spanish, not by the core's field name.
  const table = page.getByTestId('compare-counters');
  assert.match(await table.locator('tr[data-counter=created] th').innerText(), /^Mensajes creados$/);
  assert.match(await table.locator('tr[data-counter=publish_attempts] th').innerText(), /^Intentos de publicación$/);
  // Still working: a step back moves both sides, and the page did not stop.
  await page.getByTestId('back').click();
  await page.getByTestId('lang-en').click();
  await page.waitForFunction(() => /both/.test(document.querySelector('[data-testid=compare-target]').textContent));
  assert.match(await table.locator('tr[data-counter=created] th').innerText(), /^Messages created$/);
  assert.equal(await page.getByTestId('error-panel').count(), 0, 'the page did not stop');
  await page.getByTestId('compare-stop').click();
  // Side A goes on alone, its randomness still split per producer: the same example,
  // not an edited one.
  assert.doesNotMatch(await page.getByTestId('scenario').locator('option:checked').innerText(), /edited/);
  assert.deepEqual(errors, [], 'no console errors');
});

test('the shared timeline runs to the end of the side that ends last', async () => {
  // Acking on delivery, A's story is over at 2.2 s (the crash lost the message); acking
  // after the commit, B waits for the lease to run out, delivers again and acks at 6.5 s.
  // The timeline used to stop at A's end, with B's message still "in flight".
  const p = await context.newPage();
  try {
    await p.goto(BASE_URL, { waitUntil: 'load' });
    await waitForLab(p);
    await p.getByTestId('scenario').selectOption('ack-before-effect');
    await openCompare(p);
    await p.getByTestId('compare-free').fill('consumers.*.ack=after_commit');
    await p.getByTestId('compare-start').click();
    await p.getByTestId('compare-target').waitFor({ state: 'visible' });
    assert.equal(await p.getByTestId('scrubber').getAttribute('max'), '6.5');
    await seekToEnd(p);
    const acked = await row(p, 'acked');
    assert.deepEqual([acked.a, acked.b], ['0', '1'], 'B acks the redelivered message');
    const redelivered = await row(p, 'redelivered');
    assert.deepEqual([redelivered.a, redelivered.b], ['0', '1']);
  } finally {
    await p.close();
  }
});

test('a refused change that echoes a long input is one short sentence inside its box, and the panels showing side A only say so', async () => {
  await page.getByTestId('scenario').selectOption('ack-before-effect');
  await openCompare(page);
  const note = page.getByTestId('error-note');
  for (const typed of ['seed=' + '9'.repeat(3_000), 'x'.repeat(20_000)]) {
    await page.getByTestId('compare-free').fill(typed);
    await page.getByTestId('compare-start').click();
    await note.waitFor({ state: 'visible' });
    const said = (await note.innerText()).trim();
    assert.match(said, /^Problem: This change cannot be compared: /);
    assert.ok(said.length < 200, `${said.length} characters: ${said.slice(0, 120)}`);
    assert.ok(await note.evaluate((n) => n.scrollWidth <= n.clientWidth + 1), 'nothing runs out of the box');
  }
  assert.equal(await page.getByTestId('compare-target').count(), 0, 'not comparing');

  await page.getByTestId('compare-free').fill('consumers.*.idempotency=inbox');
  await page.getByTestId('compare-start').click();
  await page.getByTestId('compare-target').waitFor({ state: 'visible' });
  await page.getByTestId('step').click();
  assert.match((await page.getByTestId('narration').innerText()).trim(), /^Side A — /);
  await page.getByTestId('tab-invariants').click();
  assert.match((await page.getByTestId('invariants-side-a').innerText()).trim(), /^Side A \(as designed\) only/);
  await page.getByTestId('compare-stop').click();
  await page.getByTestId('compare-target').waitFor({ state: 'detached' });
  assert.equal(await page.getByTestId('invariants-side-a').isHidden(), true, 'no longer comparing');
  assert.doesNotMatch((await page.getByTestId('narration').innerText()).trim(), /^Side A/);
  assert.deepEqual(errors, [], 'no console errors');
});

test('compare offers the source-authority check where a message can lack authority: checked on B, no unauthorised effect', async () => {
  if (await page.getByTestId('compare-stop').isVisible()) await page.getByTestId('compare-stop').click();
  await page.getByTestId('scenario').selectOption('untrusted-source');
  // The form may be open still from the test before.
  if (!(await page.getByTestId('compare-setting').isVisible())) await openCompare(page);
  await page.getByTestId('compare-setting').selectOption({ label: "unchecked: source's authority" });
  const labels = await page.getByTestId('compare-value').locator('option').allInnerTexts();
  assert.deepEqual(labels, ['Checked before each effect — false', 'Not checked: it trusts the broker — true']);
  await page.getByTestId('compare-value').selectOption('false');
  await page.getByTestId('compare-start').click();
  await page.getByTestId('compare-target').waitFor({ state: 'visible' });
  await seekToEnd(page);
  const unauthorized = await row(page, 'unauthorized_effects');
  assert.deepEqual([unauthorized.a, unauthorized.b, unauthorized.differs], ['2', '0', 'true']);
  const dead = await row(page, 'dead_lettered');
  assert.deepEqual([dead.a, dead.b], ['2', '4'], "B's 'unchecked' dead-letters both withdrawals too");
  const denied = await row(page, 'publishes_denied');
  assert.deepEqual([denied.a, denied.b, denied.differs], ['1', '1', 'false'], "the broker refuses 'reports' on both sides");
  await page.getByTestId('compare-stop').click();
  await page.getByTestId('stage-b').waitFor({ state: 'detached' });
  assert.deepEqual(errors, [], 'no console errors');
});
