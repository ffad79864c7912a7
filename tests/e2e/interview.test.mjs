// End-to-end tests of interview mode (issue 13): the review's ten questions as a
// checklist with notes, a fault scheduled in secret (out of the schedule, the timeline and
// the Scenario tab), the reveal, and a link that opens the same interview.
// Run by .ci/test-web:  BROKERLAB_URL=http://127.0.0.1:PORT/brokerlab/ node --test interview.test.mjs
// playwright-core drives Debian's Chromium (never a downloaded browser).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BASE_URL, openPage } from './browser.mjs';

const openAt = (url) => openPage(url);

const text = (page, id) => page.getByTestId(id).innerText().then((t) => t.trim());

let link;

test('an interviewer notes answers and hides a fault the candidate must find', async () => {
  const { page, errors } = await openAt(BASE_URL);
  await page.getByTestId('scenario').selectOption('mm4');
  await page.getByTestId('tab-interview').click();
  assert.equal(await page.locator('.review-row').count(), 10, 'the ten questions');
  assert.match(await page.locator('.review-row').nth(4).innerText(), /^Confirmation/);
  await page.getByTestId('review-0').check();
  await page.getByTestId('review-4').check();
  await page.getByTestId('review-note-4').fill('Acks after the commit; <b>not</b> before.');
  await page.getByTestId('review-note-4').blur();

  // A consumer slowed down four times at 5 s, in secret.
  await page.getByTestId('hidden-schedule-kind').selectOption('slow-consumer');
  await page.getByTestId('hidden-schedule-at').fill('5');
  await page.getByTestId('hidden-schedule-extra').fill('4');
  await page.getByTestId('hidden-schedule-add').click();
  assert.equal(await text(page, 'hidden-count'), 'One fault is hidden.');
  assert.equal(await page.getByTestId('hidden-error').innerText(), '');
  // Nowhere to be seen: not on the timeline, not in the Scenario tab.
  assert.equal(await page.getByTestId('schedule-mark').count(), 0);
  await page.getByTestId('tab-scenario').click();
  assert.equal(await page.getByTestId('scenario-secret').isVisible(), true);
  assert.equal(await page.getByTestId('scenario-editor').isVisible(), false);
  assert.equal(await page.getByTestId('schedule-item').count(), 0);
  // The picker does not say the example was edited, and no file shows the fault in plain text.
  assert.doesNotMatch(await page.getByTestId('scenario').locator('option:checked').innerText(), /edited/);
  await page.getByTestId('files').locator('summary').click();
  let downloaded = false;
  page.once('download', () => { downloaded = true; });
  await page.getByTestId('save-scenario').click();
  assert.match(await page.getByTestId('error-note').innerText(), /A fault is hidden for the interview/);
  await page.keyboard.press('Escape');
  await page.waitForTimeout(300);
  assert.equal(downloaded, false, 'no file while the fault is hidden');

  await page.waitForTimeout(800);
  link = await page.evaluate(() => location.href);
  assert.match(link, /#s=v1\./);

  // The candidate plays; the interviewer reveals.
  assert.match(await text(page, 'rho-hint'), /stable/, 'ρ = 0.90 before the fault');
  await page.getByTestId('speed').selectOption('10');
  await page.getByTestId('play').click();
  await page.waitForFunction(() => parseFloat(document.querySelector('[data-testid=step-time]').textContent) > 8);
  await page.getByTestId('play').click();
  // Once it has struck, the ρ line follows the slowed consumer (μ = 3.25/s): it said
  // "stable" while the backlog climbed.
  assert.match(await text(page, 'rho-hint'), /grows without bound/);
  await page.getByTestId('tab-interview').click();
  assert.equal(await text(page, 'reveal-faults'), 'Reveal the hidden fault', 'one fault, in the singular');
  await page.getByTestId('reveal-faults').click();
  assert.match(await text(page, 'revealed-faults'), /^at 5\.0 s: C1 works 4× slower$/);
  assert.equal(await page.getByTestId('reveal-faults').isDisabled(), true);
  assert.equal(await page.getByTestId('schedule-mark').count(), 1, 'on the timeline once revealed');
  assert.deepEqual(errors, []);
});

test('the interview link opens the same interview, the fault still hidden', async () => {
  assert.ok(link, 'the previous test made a link');
  const { page, errors } = await openAt(link);
  await page.getByTestId('tab-interview').click();
  assert.equal(await page.getByTestId('review-0').isChecked(), true);
  assert.equal(await page.getByTestId('review-1').isChecked(), false);
  assert.equal(await page.getByTestId('review-4').isChecked(), true);
  assert.equal(await page.getByTestId('review-note-4').inputValue(), 'Acks after the commit; <b>not</b> before.');
  assert.equal(await page.locator('.review b').count(), 0, 'a note is never markup');
  assert.equal(await text(page, 'hidden-count'), 'One fault is hidden.');
  assert.equal(await page.getByTestId('schedule-mark').count(), 0);
  await page.getByTestId('reveal-faults').click();
  assert.match(await text(page, 'revealed-faults'), /^at 5\.0 s: C1 works 4× slower$/);
  assert.deepEqual(errors, []);
});

test('a hidden crash is told when it strikes, never announced before nor called planned', async () => {
  const { page, errors } = await openAt(BASE_URL);
  await page.getByTestId('scenario').selectOption('mm4');
  await page.getByTestId('tab-interview').click();
  // C1 crashes at its first commit after 2 s, and restarts 3 s later: armed at 2 s,
  // striking a moment after.
  await page.getByTestId('hidden-schedule-kind').selectOption('crash-consumer-after-commit');
  await page.getByTestId('hidden-schedule-at').fill('2');
  await page.getByTestId('hidden-schedule-extra').fill('3');
  await page.getByTestId('hidden-schedule-add').click();
  assert.equal(await text(page, 'hidden-count'), 'One fault is hidden.');

  await page.getByTestId('tab-story').click();
  // Armed at 2 s, it waits for C1's next commit: meanwhile C1's card does not say so.
  for (let i = 0; i < 400 && parseFloat(await text(page, 'step-time')) < 2.01; i += 1) {
    await page.getByTestId('step').click();
  }
  assert.doesNotMatch(await text(page, 'consumer-0-state'), /armed/);
  await page.getByTestId('speed').selectOption('10');
  await page.getByTestId('play').click();
  await page.waitForFunction(() => parseFloat(document.querySelector('[data-testid=step-time]').textContent) > 7);
  await page.getByTestId('play').click();
  const events = await text(page, 'events');
  assert.match(events, /C1 crashed after committing, before sending its ack \(unannounced\)/);
  assert.match(events, /C1 restarted \(by itself, after its crash\)/);
  assert.doesNotMatch(events, /will crash|as scheduled/, 'the arming is not told; the crash is not called planned');

  // In Spanish too.
  await page.getByTestId('lang-es').click();
  const eventos = await text(page, 'events');
  assert.match(eventos, /sin aviso/);
  assert.doesNotMatch(eventos, /programado|se caerá/);
  assert.deepEqual(errors, []);
});

test('several hidden faults are spoken of in the plural, in both languages', async () => {
  const { page, errors } = await openAt(BASE_URL);
  await page.getByTestId('scenario').selectOption('mm4');
  await page.getByTestId('tab-interview').click();
  for (const at of ['5', '9']) {
    await page.getByTestId('hidden-schedule-kind').selectOption('crash-broker');
    await page.getByTestId('hidden-schedule-at').fill(at);
    await page.getByTestId('hidden-schedule-add').click();
  }
  assert.equal(await text(page, 'hidden-count'), '2 faults are hidden.');
  assert.equal(await text(page, 'reveal-faults'), 'Reveal the hidden faults');
  assert.equal(await page.locator('#hidden-fault-title').textContent(), 'Hidden faults');
  await page.getByTestId('lang-es').click();
  assert.equal(await text(page, 'reveal-faults'), 'Revelar los fallos ocultos');
  assert.deepEqual(errors, []);
});

test('the hidden-fault form offers what the scenario can take, takes a time at the end, refuses one past it, and drops a refusal with the scenario', async () => {
  const { page, errors } = await openAt(BASE_URL);
  await page.getByTestId('scenario').selectOption('mm4');
  await page.getByTestId('tab-interview').click();
  const kinds = () => page.getByTestId('hidden-schedule-kind').locator('option')
    .evaluateAll((options) => options.map((o) => o.value));
  const queueKinds = await kinds();
  assert.ok(queueKinds.includes('crash-consumer'), queueKinds.join());
  assert.ok(!queueKinds.includes('crash-member'), 'mm4 has no consumer group to crash a member of');
  assert.ok(!queueKinds.includes('crash-relay-after-publish'), 'mm4 has no outbox relay');

  // A log with groups: members to crash, no queue consumer.
  await page.getByTestId('scenario').selectOption('log-consumer-groups');
  await page.getByTestId('tab-interview').click();
  const logKinds = await kinds();
  assert.ok(logKinds.includes('crash-member') && !logKinds.includes('crash-consumer'), logKinds.join());

  // log-consumer-groups ends at 90 s: a fault at 90 s is the run's last step, taken; one
  // at 120 s would never strike.
  await page.getByTestId('hidden-schedule-kind').selectOption('crash-broker');
  await page.getByTestId('hidden-schedule-at').fill('90');
  await page.getByTestId('hidden-schedule-add').click();
  assert.equal(await text(page, 'hidden-error'), '');
  assert.equal(await text(page, 'hidden-count'), 'One fault is hidden.');
  await page.getByTestId('hidden-schedule-at').fill('120');
  await page.getByTestId('hidden-schedule-add').click();
  assert.equal(await text(page, 'hidden-error'), '⚠ The run ends at 90.0 s: schedule it no later than that.');
  assert.equal(await text(page, 'hidden-count'), 'One fault is hidden.');
  await page.getByTestId('lang-es').click();
  assert.equal(await text(page, 'hidden-error'), '⚠ La ejecución termina a los 90,0 s: prográmalo para ese momento o antes.');
  await page.getByTestId('lang-en').click();

  await page.getByTestId('hidden-schedule-kind').selectOption('crash-member');
  // Another scenario: the refusal was about the last one, and goes.
  await page.getByTestId('scenario').selectOption('mm1');
  await page.getByTestId('tab-interview').click();
  assert.equal(await text(page, 'hidden-error'), '');
  assert.equal(await page.getByTestId('hidden-schedule-kind').inputValue(), 'crash-consumer',
    'a member crash is not for mm1: the form moved to a kind it can take');
  assert.deepEqual(errors, []);
});

test('a producer’s rate changed in secret on the burst is accepted (its planned stop kept); a change past the stop is refused in plain words', async () => {
  const { page, errors } = await openAt(BASE_URL);
  assert.equal(await page.getByTestId('scenario').inputValue(), 'burst');
  await page.getByTestId('tab-interview').click();
  const hide = async (at, rate) => {
    await page.getByTestId('hidden-schedule-kind').selectOption('rate');
    await page.getByTestId('hidden-schedule-at').fill(String(at));
    await page.getByTestId('hidden-schedule-extra').fill(String(rate));
    await page.getByTestId('hidden-schedule-add').click();
  };
  await hide(30, 500);
  assert.equal(await text(page, 'hidden-error'), '');
  assert.equal(await text(page, 'hidden-count'), 'One fault is hidden.');
  await hide(100, 6000);
  assert.equal(await text(page, 'hidden-error'), '');
  assert.equal(await text(page, 'hidden-count'), '2 faults are hidden.');
  // Past the planned stop, the producer would never stop again: refused in a sentence,
  // no field path from the scenario file.
  await hide(200, 500);
  const refused = await text(page, 'hidden-error');
  assert.match(refused, /^⚠ The schedule refused it: from then on a producer would publish for ever/);
  assert.doesNotMatch(refused, /producers\[|\.count|end_s/);
  assert.equal(await text(page, 'hidden-count'), '2 faults are hidden.');
  await page.getByTestId('lang-es').click();
  assert.match(await text(page, 'hidden-error'), /^⚠ La programación lo rechazó: a partir de ahí un productor publicaría para siempre/);
  assert.deepEqual(errors, []);
});
