// End-to-end tests of the Scenario tab (the JSON editor and the schedule of faults) and of
// the ordering policy in Parameters, on the built page served from a sub-path.
// Run:  BROKERLAB_URL=http://127.0.0.1:PORT/brokerlab/ node --test editor.test.mjs
// playwright-core drives Debian's Chromium (never a downloaded browser).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE_URL, openBrowser, waitForLab } from './browser.mjs';

/** The page through its data-testids (the same helpers as page.test.mjs). */
class LabPage {
  constructor(page) {
    this.page = page;
    this.consoleErrors = [];
    page.on('console', (m) => m.type() === 'error' && this.consoleErrors.push(m.text()));
    page.on('pageerror', (e) => this.consoleErrors.push(String(e)));
  }

  async open(url = BASE_URL) {
    await this.page.goto(url, { waitUntil: 'load' });
    await waitForLab(this.page);
    await this.page.waitForTimeout(300);
  }

  text(id) {
    return this.page.getByTestId(id).first().innerText().then((t) => t.trim());
  }

  async number(id) {
    const t = (await this.text(id)).replace(/,/g, '').replace(/ s$/, '');
    const n = Number(t);
    assert.ok(Number.isFinite(n), `${id} is not a number: ${t}`);
    return n;
  }

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

  async tab(name) {
    await this.page.getByTestId(`tab-${name}`).click();
  }

  async click(id) {
    await this.page.getByTestId(id).click();
  }

  async pickScenario(name) {
    await this.page.getByTestId('scenario').selectOption(name);
  }

  /** Waits until `n` elements carry the data-testid `id` (the page updates after the
   *  click's handler, in its next reactive pass). */
  async count(id, n, timeout = 5_000) {
    const deadline = Date.now() + timeout;
    let last;
    while (Date.now() < deadline) {
      last = await this.page.getByTestId(id).count();
      if (last === n) return;
      await this.page.waitForTimeout(50);
    }
    assert.fail(`${n} × ${id} expected, found ${last}`);
  }

  editorText() {
    return this.page.getByTestId('editor-text').inputValue();
  }

  /** Gives group `group` of built-in `scenario` one more field (`"key": value`) in the
   *  scenario editor, and applies it. */
  async setGroupField(scenario, group, field) {
    await this.pickScenario(scenario);
    await this.tab('scenario');
    const original = await this.editorText();
    const name = `"name": "${group}",`;
    assert.ok(original.includes(name), `${scenario} has a group ${group}`);
    await this.page.getByTestId('editor-text').fill(original.replace(name, `${name}\n      ${field},`));
    await this.click('editor-apply');
    assert.match(await this.text('editor-status'), /Applied/);
  }

  /** Plays at `speed` until the run is over. */
  async playToEnd(speed) {
    await this.page.getByTestId('speed').selectOption(String(speed));
    await this.click('play');
    await this.page.waitForFunction(
      () => document.querySelector('[data-testid=play]').textContent.trim() === 'Replay',
      null,
      { timeout: 30_000 },
    );
  }
}

/** The 1-based line of `text` that first contains `needle`. */
function lineOf(text, needle) {
  return text.split('\n').findIndex((l) => l.includes(needle)) + 1;
}

let browser;
let lab;

before(async () => {
  browser = await openBrowser();
  lab = new LabPage(browser.page);
  await lab.open();
});

after(async () => {
  await browser?.close();
});

test('an invalid value is marked at its field and the run stays; fixed, it applies', async () => {
  await lab.pickScenario('mm1');
  for (let i = 0; i < 3; i += 1) await lab.click('step');
  await lab.tab('scenario');
  const original = await lab.editorText();
  assert.match(original, /"visibility_timeout_s": 3600\.0/);
  const bad = original.replace('"visibility_timeout_s": 3600.0', '"visibility_timeout_s": -5.0');
  await lab.page.getByTestId('editor-text').fill(bad);
  await lab.click('editor-apply');
  const line = lineOf(bad, 'visibility_timeout_s');
  const error = await lab.text('editor-error');
  assert.match(error, new RegExp(`^⚠ Line ${line}: queues\\[0\\]\\.visibility_timeout_s: must be .+\\.$`));
  assert.equal(await lab.page.getByTestId('editor-error').getAttribute('data-line'), String(line));
  assert.equal(await lab.text('gutter-marked'), `⚠ ${line}`);
  // The caret is on that line.
  const caretLine = await lab.page.getByTestId('editor-text').evaluate(
    (el) => el.value.slice(0, el.selectionStart).split('\n').length,
  );
  assert.equal(caretLine, line);
  // The run is as it was.
  assert.equal(await lab.text('step-index'), '3');
  assert.equal(await lab.page.getByTestId('scenario').inputValue(), 'mm1');

  // The running scenario's own text applied after a refusal: the refusal goes.
  await lab.page.getByTestId('editor-text').fill(original);
  await lab.click('editor-apply');
  assert.match(await lab.text('editor-status'), /Applied/);
  assert.equal(await lab.text('editor-error'), '');
  await lab.count('gutter-marked', 0);
  for (let i = 0; i < 3; i += 1) await lab.click('step');
  await lab.page.getByTestId('editor-text').fill(bad);
  await lab.click('editor-apply');
  assert.equal(await lab.text('gutter-marked'), `⚠ ${line}`);

  // Revert puts back the running scenario.
  await lab.click('editor-revert');
  assert.equal(await lab.editorText(), original);
  await lab.count('gutter-marked', 0);

  // Fixed: applied, the run starts again, and the new value is in force.
  const good = original.replace('"visibility_timeout_s": 3600.0', '"visibility_timeout_s": 7.0');
  await lab.page.getByTestId('editor-text').fill(good);
  await lab.click('editor-apply');
  assert.match(await lab.text('editor-status'), /Applied/);

  assert.equal(await lab.text('editor-error'), '');
  assert.equal(await lab.text('step-index'), '0');
  // Still called mm1, it is no longer the built-in example: the picker says so.
  const picked = () => lab.page.getByTestId('scenario').evaluate((el) => el.selectedOptions[0].textContent);
  assert.match(await picked(), /\(edited\)$/);
  assert.match(await lab.text('scenario-description'), /^Edited: no longer the built-in example, whose description was: /);
  // A change that leaves the first step reading the same still reaches the address.
  await lab.page.waitForTimeout(600);
  const before = await lab.page.evaluate(() => location.hash);
  const described = (await lab.editorText()).replace(/"description": "[^"]*"/, '"description": "Edited."');
  await lab.page.getByTestId('editor-text').fill(described);
  await lab.click('editor-apply');
  await lab.page.waitForFunction((b) => location.hash !== b, before, { timeout: 5_000 });
  await lab.tab('parameters');
  await lab.page.getByTestId('param-q0-more').evaluate((d) => { d.open = true; });
  assert.equal(await lab.page.getByTestId('param-q0-visibility').inputValue(), '7');
  assert.deepEqual(lab.consoleErrors, []);
});

test('markup typed into a name stays text', async () => {
  await lab.tab('scenario');
  const text = await lab.editorText();
  const named = text.replace('"seed":', '"<b>seed</b>":');
  await lab.page.getByTestId('editor-text').fill(named);
  await lab.click('editor-apply');
  assert.match(await lab.text('editor-error'), /unknown field `<b>seed<\/b>`/);
  assert.equal(await lab.page.locator('[data-testid=editor-error] b').count(), 0);
  await lab.click('editor-revert');
});

test("the editor's refusal is re-worded, whole, when the language is switched", async () => {
  await lab.tab('scenario');
  await lab.page.getByTestId('editor-text').fill('{ not json');
  await lab.click('editor-apply');
  assert.equal(
    await lab.text('editor-error'),
    '⚠ Line 1: The scenario is not valid scenario JSON: keys must be in quotes, at line 1, column 3.',
  );
  await lab.click('lang-es');
  await lab.page.getByTestId('editor-error').filter({ hasText: /^⚠ Línea 1/ }).waitFor({ timeout: 5_000 });
  assert.equal(
    await lab.text('editor-error'),
    '⚠ Línea 1: Escenario no válido: no es un escenario JSON válido: las claves deben ir entre comillas en la línea 1, columna 3.',
  );
  assert.equal(await lab.page.getByTestId('editor-error').getAttribute('data-line'), '1');
  await lab.click('lang-en');
  await lab.page.getByTestId('editor-error').filter({ hasText: /^⚠ Line 1: The scenario/ }).waitFor({ timeout: 5_000 });
  await lab.click('editor-revert');
  assert.equal(await lab.text('editor-error'), '');
});

test("the schedule's refusal is re-worded when the language is switched", async () => {
  await lab.tab('scenario');
  await lab.page.getByTestId('schedule-at').fill('abc');
  await lab.click('schedule-add');
  assert.equal(await lab.text('schedule-error'), '⚠ “abc” is not a number (s).');
  await lab.click('lang-es');
  await lab.page.getByTestId('schedule-error').filter({ hasText: /^⚠ “abc” no es un número \(s\)\.$/ })
    .waitFor({ timeout: 5_000 });
  await lab.click('lang-en');
  await lab.page.getByTestId('schedule-error').filter({ hasText: /^⚠ “abc” is not a number \(s\)\.$/ })
    .waitFor({ timeout: 5_000 });
  // The form's bound is the schedule's own (ten years): it took 500,000,000 s, and the
  // schedule then refused it with a bound of its own.
  await lab.page.getByTestId('schedule-at').fill('500000000');
  await lab.click('schedule-add');
  assert.match(await lab.text('schedule-error'), /^⚠ [^:]*315,360,000 s\.$/);
  await lab.page.getByTestId('schedule-at').fill('10');
});

test('a crash scheduled at 12 s is marked on the timeline and happens there', async () => {
  await lab.tab('scenario');
  // Both runs are at step 0: the address must follow the scenario itself, not the step.
  await lab.page.waitForTimeout(600);
  const before = await lab.page.evaluate(() => location.hash);
  await lab.page.getByTestId('schedule-kind').selectOption('crash-consumer-after-commit');
  await lab.page.getByTestId('schedule-target').selectOption('0');
  await lab.page.getByTestId('schedule-at').fill('12');
  await lab.page.getByTestId('schedule-extra').fill('5');
  await lab.click('schedule-add');
  assert.equal(await lab.text('schedule-error'), '');
  await lab.count('schedule-item', 1);
  assert.match(
    await lab.text('schedule-item'),
    /^at 12\.0 s: crash .+ after its next commit, before the ack \(back 5\.0 s later\)/,
  );
  // Part of the scenario now: the editor shows it.
  assert.match(await lab.editorText(), /"crash_consumer"/);
  const mark = lab.page.getByTestId('schedule-mark');
  await lab.count('schedule-mark', 1);
  assert.equal(await mark.getAttribute('data-at'), '12');
  assert.equal(await lab.text('step-index'), '0', 'the run starts again');
  await lab.page.waitForFunction((b) => location.hash !== b, before, { timeout: 5_000 });
  // Go to 11.5 s on the timeline: nothing has happened yet.
  await lab.page.getByTestId('scrubber').evaluate((el) => {
    el.value = '11.5';
    el.dispatchEvent(new Event('input', { bubbles: true }));
  });
  await lab.waitFor('time', (s) => s >= 11.5);
  assert.equal(await lab.number('crashes'), 0, 'nothing before its instant');
  await lab.page.getByTestId('speed').selectOption('1');
  await lab.click('play');
  await lab.waitFor('crashes', (n) => n >= 1);
  assert.ok((await lab.number('time')) >= 12);
  if ((await lab.text('play')) === 'Pause') await lab.click('play');
  assert.match(await mark.getAttribute('class'), /\bpast\b/);
});

test('the link carries the edited scenario and its schedule', async () => {
  await lab.click('copy-link');
  const link = await lab.page.evaluate(() => location.href);
  assert.match(link, /\/brokerlab\/#s=v1\.[A-Za-z0-9_-]+$/);
  const step = await lab.text('step-index');
  const crashes = await lab.text('crashes');
  const second = await openBrowser();
  try {
    const p = new LabPage(second.page);
    await p.open(link);
    assert.equal(await p.text('step-index'), step);
    assert.equal(await p.text('crashes'), crashes);
    await p.tab('scenario');
    assert.match(await p.editorText(), /"visibility_timeout_s": 7\.0/);
    await p.count('schedule-item', 1);
    assert.match(await p.text('schedule-item'), /^at 12\.0 s: crash .+ after its next commit/);
    await p.count('schedule-mark', 1);
    // Removing it starts the run again without it.
    await p.click('schedule-remove-0');
    await p.count('schedule-item', 0);
    await p.count('schedule-mark', 0);
    assert.equal(await p.text('step-index'), '0');
    assert.deepEqual(p.consoleErrors, []);
  } finally {
    await second.close();
  }
});

test("account-42's ordering policy from Parameters: waiting for the gap keeps the balance at 50", async () => {
  await lab.pickScenario('account-42');
  await lab.playToEnd(10);
  assert.match(await lab.text('db-0-row-0'), /balance 100/, 'reordered: the withdrawal was refused');
  await lab.pickScenario('burst');
  await lab.pickScenario('account-42');
  await lab.tab('parameters');
  await lab.page.getByTestId('param-q0-more').evaluate((d) => { d.open = true; });
  await lab.page.getByTestId('param-q0-ordering').selectOption('wait_for_gap');
  assert.equal(await lab.text('param-q0-ordering-error'), '');
  await lab.playToEnd(10);
  assert.match(await lab.text('db-0-row-0'), /balance 50/);
  assert.equal(await lab.page.getByTestId('param-q0-ordering').inputValue(), 'wait_for_gap');
  assert.deepEqual(lab.consoleErrors, []);
});

test("a consumer group's ordering is in Parameters too, limited to what a log supports", async () => {
  await lab.pickScenario('log-consumer-groups');
  await lab.tab('parameters');
  const select = lab.page.getByTestId('param-g0-ordering');
  const offered = await select.locator('option').evaluateAll((os) => os.map((o) => o.value));
  assert.deepEqual(offered, ['none', 'ignore_stale']);
  await select.selectOption('ignore_stale');
  assert.equal(await lab.text('param-g0-ordering-error'), '');
  await lab.click('step');
  assert.equal(await select.inputValue(), 'ignore_stale');
  assert.deepEqual(lab.consoleErrors, []);
});

test('on a phone the Scenario tab fits the screen and shows the marked line', async () => {
  await lab.page.setViewportSize({ width: 390, height: 844 });
  try {
    await lab.pickScenario('crash-after-commit');
    await lab.tab('scenario');
    const text = await lab.editorText();
    await lab.page.getByTestId('editor-text').fill(text.replace('"prefetch": 1', '"prefetch": 0'));
    await lab.click('editor-apply');
    assert.match(await lab.text('editor-error'), /consumers\[0\]\.prefetch/);
    assert.equal(await lab.page.evaluate(() => document.documentElement.scrollWidth), 390);
    assert.equal(await lab.page.getByTestId('gutter-marked').isVisible(), true);
  } finally {
    await lab.page.setViewportSize({ width: 1280, height: 800 });
  }
});

test('a scheduled restart of a consumer already back is told in the event list, and changes nothing', async () => {
  // crash-after-commit: C1 crashes after its commit at 1.5 s and restarts by itself at
  // 2.5 s; a restart scheduled at 4 s finds it up.
  await lab.pickScenario('crash-after-commit');
  await lab.page.waitForTimeout(300);
  await lab.tab('scenario');
  await lab.page.getByTestId('schedule-kind').selectOption('restart-consumer');
  await lab.page.getByTestId('schedule-target').selectOption('0');
  await lab.page.getByTestId('schedule-at').fill('4');
  await lab.click('schedule-add');
  assert.equal(await lab.text('schedule-error'), '');
  await lab.playToEnd(20);
  const events = await lab.text('events');
  assert.match(events, /C1 is already up: the restart \(as scheduled\) has nothing to do\./);
  assert.equal((events.match(/C1 restarted/g) ?? []).length, 1, 'restarted once, by itself');
  assert.equal(await lab.number('crashes'), 1);
  assert.deepEqual(lab.consoleErrors, []);
});

test('a group given a session timeout has static members: one past its poll interval keeps its partition', async () => {
  await lab.setGroupField('member-poll-interval', 'mailer', '"session_timeout_s": 45.0');
  // mailer-1 fetched offset 0 at 5 s; at 10 s it has not polled for 5 s.
  for (let i = 0; i < 40 && !/stops heartbeating/.test(await lab.text('narration')); i += 1) {
    await lab.click('step');
  }
  assert.match(await lab.text('narration'), /As a static member it sends no leave: it stops heartbeating/);
  await lab.tab('logs');
  assert.equal(
    await lab.text('group-1-member-0-state'),
    'mailer-1: no heartbeats (poll interval passed) · finishing P0 offset 0, which it can no longer commit · still in the group for 45.0 s · owns P0',
  );
  assert.equal(await lab.page.getByTestId('group-1-rebalancing').count(), 0, 'no rebalance');
  assert.deepEqual(lab.consoleErrors, []);
});

test('a group given auto_offset_reset latest jumps to the log end when retention removes its position', async () => {
  await lab.setGroupField('log-retention', 'reporting', '"auto_offset_reset": "latest"');
  await lab.tab('story'); // the event log follows the run while on show
  // At 7.2 s retention removes offset 10, where reporting-1 would read next.
  for (let i = 0; i < 80 && !/resets to the log end/.test(await lab.text('log')); i += 1) {
    await lab.click('step');
  }
  assert.match(
    await lab.text('log'),
    /Group reporting will never process offsets 11–\d+ of partition 0: retention removed the record at its position, and the group resets to the log end \(auto\.offset\.reset=latest\), past these though they are still retained\./,
  );
  assert.deepEqual(lab.consoleErrors, []);
});

test("a crash scheduled at the run's very end is taken and marked so; one after the end is refused", async () => {
  await lab.pickScenario('short-lease'); // the run ends at 12 s
  await lab.tab('scenario');
  const items = await lab.page.getByTestId('schedule-item').count();
  await lab.page.getByTestId('schedule-kind').selectOption('crash-consumer');
  await lab.page.getByTestId('schedule-target').selectOption('0');
  await lab.page.getByTestId('schedule-at').fill('12');
  await lab.click('schedule-add');
  assert.equal(await lab.text('schedule-error'), '', 'at the end itself: taken');
  await lab.count('schedule-item', items + 1);
  // The list says what a command at the end means (it is the run's last step).
  const late = lab.page.locator('[data-testid^=schedule-late-]');
  assert.equal(await late.count(), 1);
  assert.equal(
    (await late.innerText()).trim(),
    "(at the run's very end: nothing after it can show what it does)",
  );
  assert.match(await lab.page.getByTestId('schedule-mark').last().getAttribute('data-at'), /^12(\.0)?$/);
  // Strictly after the end: refused, and said so.
  await lab.page.getByTestId('schedule-at').fill('12.5');
  await lab.click('schedule-add');
  assert.equal(await lab.text('schedule-error'), '⚠ The run ends at 12.0 s: schedule it no later than that.');
  await lab.count('schedule-item', items + 1);
  assert.deepEqual(lab.consoleErrors, []);
});

test("a record a group's entity-keyed inbox takes for a duplicate: its history says the effect is never applied, and its email still goes", async () => {
  await lab.setGroupField(
    'member-poll-interval',
    'exports',
    '"idempotency": "inbox", "inbox_key": "entity", "sends_email": true',
  );
  // 12 invoices on 8 keys: some key comes twice, and its second record is taken for the first.
  await lab.playToEnd(20);
  await lab.tab('invariants');
  assert.match(await lab.text('invariant-no-loss'), /taken for duplicates by an inbox keyed by the entity/);
  await lab.click('invariant-no-loss-msg');
  const labels = await lab.page.getByTestId('lineage-svg').locator('text.label').allTextContents();
  const taken = labels.filter((l) => l.startsWith('taken for a duplicate of #'));
  assert.equal(taken.length, 1, labels.join(' | '));
  assert.match(taken[0], /\(same key \d+ in the inbox\): effect never applied$/);
  assert.ok(!labels.some((l) => l.includes('work lost')), labels.join(' | '));
  assert.ok(labels.includes('email sent'), labels.join(' | '));
  await lab.page.getByTestId('lang-es').click();
  const es = await lab.page.getByTestId('lineage-svg').locator('text.label').allTextContents();
  assert.ok(es.some((l) => /^tomado por duplicado de #\d+ \(la misma clave \d+ en el inbox\): su efecto nunca se aplica$/.test(l)), es.join(' | '));
  await lab.page.getByTestId('lang-en').click();
  await lab.click('lineage-close');
  assert.deepEqual(lab.consoleErrors, []);
});
