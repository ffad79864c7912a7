// End-to-end tests of importing a real setup (issue 16): a RabbitMQ definitions file
// opens as a scenario with its queues on the stage and the import's notes listed; a file
// that is not one is refused in one sentence and the run on show stays.
// Run by .ci/test-web:
//   BROKERLAB_URL=http://127.0.0.1:PORT/brokerlab/ node --test import.test.mjs
// playwright-core drives Debian's Chromium (never a downloaded browser).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openPage } from './browser.mjs';

const FIXTURES = fileURLToPath(new URL('../../core/tests/import/', import.meta.url));

let page;
let files;
let consoleErrors;

before(async () => {
  files = mkdtempSync(path.join(tmpdir(), 'brokerlab-import-files-'));
  ({ page, errors: consoleErrors } = await openPage());
});

after(() => {
  if (files) rmSync(files, { recursive: true, force: true });
});

const text = (id) => page.getByTestId(id).innerText().then((t) => t.trim());
const step = async () => Number((await text('step-index')).replace(/,/g, ''));
const queueNames = () => page.locator('li.node.queue > strong').allInnerTexts();

async function pick(name) {
  await page.getByTestId('scenario').selectOption(name);
  assert.equal(await text('step-index'), '0', `${name} loads at its start`);
}

/** Puts a file on the Files menu's hidden RabbitMQ import input, as its dialog does. */
async function importRabbitmq(file) {
  await page.getByTestId('import-rabbitmq').setInputFiles(file);
}

test('a RabbitMQ definitions file opens with its queues and the import’s notes', async () => {
  await pick('mm1');
  await importRabbitmq(path.join(FIXTURES, 'rabbitmq-supported.json'));
  await page.waitForFunction(() => document.querySelector('[data-testid=scenario]').value === 'rabbitmq-import');
  assert.equal(await step(), 0, 'an import opens at its start');
  assert.equal(await page.getByTestId('error-note').count(), 0);
  assert.deepEqual(await queueNames(), ['orders', 'emails', 'audit', 'orders.dead']);

  const notes = page.getByTestId('import-notes');
  await notes.waitFor({ state: 'visible' });
  const items = await notes.locator('li').allInnerTexts();
  assert.ok(items.some((t) => /^Assumed a producer publishing to “shop”/.test(t)), items.join('\n'));
  assert.ok(items.some((t) => /^Assumed one consumer per queue/.test(t)), items.join('\n'));

  await page.getByTestId('import-notes-dismiss').click();
  assert.equal(await notes.count(), 0, 'dismissed');
  assert.deepEqual(await queueNames(), ['orders', 'emails', 'audit', 'orders.dead'], 'the scenario stays');
  assert.deepEqual(consoleErrors, []);
});

test('unsupported parts are listed by name, as text', async () => {
  await importRabbitmq(path.join(FIXTURES, 'rabbitmq-unsupported.json'));
  const notes = page.getByTestId('import-notes');
  await notes.waitFor({ state: 'visible' });
  const items = await notes.locator('li').allInnerTexts();
  for (const name of ['by-header', 'events', 'ha-all']) {
    assert.ok(items.some((t) => t.includes(`“${name}”`)), `${name} is named:\n${items.join('\n')}`);
  }
  assert.equal(await notes.locator('li *').count(), 0, 'plain text, no markup');
});

test('a file that is not definitions is refused in one sentence, and the run stays', async () => {
  await pick('mm1');
  await page.getByTestId('step').click();
  await page.getByTestId('step').click();
  const junk = path.join(files, 'junk.json');
  writeFileSync(junk, '{"queues": [<b>hi</b>');
  await importRabbitmq(junk);
  const note = page.getByTestId('error-note');
  await note.waitFor({ state: 'visible' });
  assert.match(await note.innerText(), /The file is not valid JSON: [^\n]+\.$/);
  assert.equal(await page.locator('.error-note *').count(), 1, 'no markup beyond the label');
  assert.equal(await step(), 2, 'the previous run is kept');
  assert.equal(await page.getByTestId('scenario').inputValue(), 'mm1');
  assert.equal(await page.getByTestId('import-notes').count(), 0);
  assert.deepEqual(consoleErrors, []);
});

test('a file whose queues were all left out says why, in either language', async () => {
  await pick('mm1');
  const long = path.join(files, 'long-name.json');
  writeFileSync(long, JSON.stringify({ queues: [{ name: 'q'.repeat(500), vhost: '/' }] }));
  await importRabbitmq(long);
  const note = page.getByTestId('error-note');
  await note.waitFor({ state: 'visible' });
  assert.match(
    await note.innerText(),
    /There is nothing to simulate: .+ Ignored queue “q+…”: its name is longer than the model's 64 characters\.$/,
  );
  await page.getByTestId('lang-es').click();
  assert.match(await note.innerText(), /No hay nada que simular: .+ su nombre supera los 64 caracteres que admite el modelo\.$/);
  await page.getByTestId('lang-en').click();
  assert.equal(await page.getByTestId('scenario').inputValue(), 'mm1', 'the run on show stays');
  assert.deepEqual(consoleErrors, []);
});

test('an imported Kafka group keeps a crashed member’s partitions for its session timeout', async () => {
  await pick('mm1');
  const file = path.join(files, 'kafka-session.json');
  writeFileSync(file, JSON.stringify({
    topics: [{ name: 'payments', partitions: 2 }],
    groups: [{ name: 'ledger', topic: 'payments', members: 2, commit: 'manual', session_timeout_ms: 30000 }],
    producers: [{ topic: 'payments', rate_per_s: 5, count: 100 }],
  }));
  await page.getByTestId('import-kafka').setInputFiles(file);
  await page.waitForFunction(() => document.querySelector('[data-testid=scenario]').value === 'kafka-import');
  await page.getByTestId('tab-logs').click();
  const member = page.getByTestId('group-0-member-1-state');
  await member.waitFor({ state: 'visible' });
  assert.equal(await text('group-0-member-1-state'), 'ledger-2: up · waiting for records · owns P1');
  await page.getByTestId('group-0-member-1-crash').click();
  // Kafka's coordinator waits for the session timeout: no rebalance, P1 stays ledger-2's.
  assert.equal(
    await text('group-0-member-1-state'),
    'ledger-2: crashed · restarts in 5.0 s · still in the group for 30.0 s · owns P1',
  );
  assert.equal(await page.getByTestId('group-0-rebalancing').count(), 0);
  await page.getByTestId('lang-es').click();
  assert.equal(
    await text('group-0-member-1-state'),
    'ledger-2: caído · se reinicia en 5,0 s · aún en el grupo durante 30,0 s más · tiene P1',
  );
  await page.getByTestId('lang-en').click();
  assert.deepEqual(consoleErrors, []);
});
