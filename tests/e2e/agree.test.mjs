// End-to-end checks that the page's numbers agree with each other, and that a story plays
// at a pace where it can be followed (issue 11: "Numbers that agree", "Story pace").
// Run by .ci/test-web:  BROKERLAB_URL=http://127.0.0.1:PORT/brokerlab/ node --test agree.test.mjs
// playwright-core drives Debian's Chromium (never a downloaded browser).

import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { openPage } from './browser.mjs';

let page;
let consoleErrors;

before(async () => {
  ({ page, errors: consoleErrors } = await openPage(undefined, { tourSeen: false }));
});

const text = (id) => page.getByTestId(id).innerText().then((t) => t.trim());

/** A counter as a number: "12,345" → 12345, "4.2 s" → 4.2. */
async function number(id) {
  const t = (await text(id)).replace(/,/g, '').replace(/ s$/, '');
  const n = Number(t);
  assert.ok(Number.isFinite(n), `${id} is not a number: ${t}`);
  return n;
}

async function pick(name) {
  await page.getByTestId('scenario').selectOption(name);
  assert.equal(await text('step-index'), '0', `${name} loads at its start`);
}

/** Presses "Step" until `done()` holds (at most `max` steps); fails otherwise. */
async function stepUntil(done, max = 400) {
  for (let i = 0; i < max; i += 1) {
    if (await done()) return;
    await page.getByTestId('step').click();
  }
  assert.fail(`still not there after ${max} steps`);
}

/** Plays at `speed` until the run is over (the play button offers "Replay"). */
async function playToEnd(speed, timeout = 30_000) {
  await page.getByTestId('speed').selectOption(String(speed));
  await page.getByTestId('play').click();
  await page.getByTestId('play').filter({ hasText: 'Replay' }).waitFor({ timeout });
}

/** Plays at 10× until the clock reaches `seconds`, then pauses. */
async function playUntil(seconds) {
  await page.getByTestId('speed').selectOption('10');
  await page.getByTestId('play').click();
  await page.waitForFunction(
    (s) => parseFloat(document.querySelector('[data-testid=time]').textContent) >= s,
    seconds,
    { timeout: 30_000 },
  );
  await page.getByTestId('play').click();
}

const crashMarkers = async () => Number(await page.getByTestId('chart').getAttribute('data-crash-markers'));
const predictedNow = async () => Number(await page.getByTestId('chart').getAttribute('data-predicted-now'));

test('log-consumer-groups: the crash button crashes a live member, and the backlog, μ and the prediction follow the groups', async () => {
  await pick('log-consumer-groups');
  assert.equal(await text('consumers-up'), '3 / 3');
  const label = await text('crash');
  assert.match(label, /^Crash \S+/, 'a member is up, so the button offers to crash it');
  assert.doesNotMatch(label, /down/);
  const rates = await text('rho-rates');
  assert.match(rates, /λ = 16\/s arriving, μ = 30\/s capacity/, rates);
  assert.doesNotMatch(rates, /-0/);
  assert.match(await text('rho-hint'), /^ρ < 1/);
  await page.getByTestId('crash').click();
  assert.equal(await text('consumers-up'), '2 / 3');
  assert.equal(await number('crashes'), 1);
  assert.equal(await crashMarkers(), 1, 'the counter and the chart agree');
  // Play to 25 s: the prediction stays at zero (ρ < 1), the backlog is the groups' lag.
  await playUntil(25);
  assert.equal(await predictedNow(), 0, 'the prediction does not climb while the groups keep up');
  await page.getByTestId('tab-logs').click();
  const lagSum = await page.getByTestId('logs').evaluate((el) =>
    [...el.querySelectorAll('[data-testid^=group-][data-testid*=-partition-]')]
      .map((p) => /lag (\d+)/.exec(p.textContent))
      .filter(Boolean)
      .reduce((a, m) => a + Number(m[1]), 0));
  assert.equal(await number('backlog'), lagSum, 'the backlog counter is the lag of the groups');
  // A log's readers are not delivered messages nor ack them: the totals count what the
  // groups processed and committed, and agree with the Logs panel.
  const logProcessed = Number((await text('log-processed')).replace(/,/g, ''));
  await page.getByTestId('tab-counters').click();
  assert.ok(await page.getByTestId('published').isVisible(), 'the counters are on show');
  assert.equal(await page.getByTestId('delivered').isVisible(), false, 'no "Delivered 0" in a log-only run');
  assert.equal(await page.getByTestId('acked').isVisible(), false);
  const processed = await number('records-processed');
  assert.ok(processed > 0, `records processed: ${processed}`);
  assert.equal(processed, logProcessed);
  assert.ok(await number('offsets-committed') > 0);
  // And its records are timed: not "No message has finished yet".
  assert.equal(await page.getByTestId('latency-none').isVisible(), false);
  assert.match(await text('record-latency-p50'), /\d/);
  assert.equal(await page.getByTestId('latency-p50').isVisible(), false, 'no queue copy finished');
  assert.match(await text('rho-rates'), /μ = 35\/s capacity/, 'a third ledger member joined at 20 s');
});

test('outbox-relay-crash: the Crashes counter counts the crash the chart marks, and the relay is blamed', async () => {
  await pick('outbox-relay-crash');
  await playToEnd(1);
  assert.equal(await number('crashes'), 1);
  assert.equal(await crashMarkers(), 1);
  const events = await text('events');
  assert.match(events, /order-service's outbox relay crashed/);
  assert.match(events, /order-service's outbox relay restarted/);
  assert.doesNotMatch(events, /order-service crashed/);
});

test('at ρ = 1 the chart and the parameters give the same verdict: the backlog does not drain', async () => {
  await pick('mm1');
  await page.getByTestId('tab-parameters').click();
  const rate = page.getByTestId('param-p0-rate');
  await rate.fill('1');
  await rate.press('Tab');
  assert.equal(await number('rho-value'), 1);
  const hint = await text('rho-hint');
  assert.match(hint, /^ρ = 1: .*does not drain/);
  const forecast = await text('params-forecast');
  assert.ok(forecast.includes(hint), `${forecast} / ${hint}`);
  assert.doesNotMatch(forecast, /a backlog drains/);
});

test('story pace: the timeline ends where the run ends, and a few messages open slowly', async () => {
  await pick('crash-after-commit');
  assert.equal(await page.getByTestId('scrubber').getAttribute('max'), '6.5', 'all over at 6.5 s');
  assert.equal(await page.getByTestId('speed').inputValue(), '1');
  await pick('outbox-relay-crash');
  assert.equal(await page.getByTestId('speed').inputValue(), '0.25');
  await pick('transactional-pipeline');
  await playToEnd(5);
  const end = Number(await page.getByTestId('scrubber').getAttribute('max'));
  assert.ok(end < 10, `drains at 8.5 s, long before its 20 s end: ${end}`);
  assert.ok((await number('time')) <= end);
  await pick('burst');
  assert.equal(await page.getByTestId('speed').inputValue(), '10', 'a big run keeps 10×');
});

test("a crash whose lease runs out after the run's end says so on its card", async () => {
  await pick('short-lease'); // a 2.5 s lease; the run ends at 12 s
  // Step to 11 s or later, when a consumer holds the message under a lease that runs
  // out after 12 s.
  const holder = async () => {
    if ((await number('time')) < 11) return -1;
    for (const i of [0, 1]) {
      if (/lease runs out in/.test(await text(`consumer-${i}`))) return i;
    }
    return -1;
  };
  await stepUntil(async () => (await holder()) >= 0);
  await page.getByTestId(`consumer-${await holder()}-crash`).click();
  const events = await text('events');
  assert.match(events, /The lease on the message it held would run out at t = [\d.]+ s, after the run ends at 12\.0 s/);
  assert.deepEqual(consoleErrors, []);
});

test('log-retention: records deleted unread count as lost, as the invariant says', async () => {
  await pick('log-retention');
  await page.getByTestId('scrubber').focus();
  await page.keyboard.press('End');
  await page.getByTestId('play').filter({ hasText: 'Replay' }).waitFor({ timeout: 20_000 });
  await page.getByTestId('tab-logs').click();
  const skipped = await number('log-skipped');
  assert.ok(skipped > 0, 'retention deleted records the slow group never read');
  await page.getByTestId('tab-counters').click();
  assert.equal(await number('lost'), skipped, 'not "Lost 0" beside a broken "no message lost"');
  await page.getByTestId('tab-invariants').click();
  // The invariant's total is the tile's, the skipped records one of its parts.
  assert.match(await page.getByTestId('invariants').innerText(),
    new RegExp(`lost: ${skipped} \\(after the broker stored them: 0; before: 0; records skipped: ${skipped}\\)`));
  // The broken property names the first record skipped, and its history says why.
  const named = page.getByTestId('invariant-no-loss-msg');
  assert.match(await named.innerText(), /^#\d+$/);
  await named.click();
  await page.getByTestId('lineage').waitFor({ state: 'visible' });
  const rows = await page.getByTestId('lineage-row').allTextContents();
  assert.ok(rows.some((r) => /will never process offset \d+ .*retention removed it before the group read it/.test(r)), rows.join(' | '));
  const arrows = await page.getByTestId('lineage-arrow').allTextContents();
  assert.ok(arrows.some((a) => /expired before the group read it/.test(a)), arrows.join(' | '));
  assert.ok(!arrows.some((a) => /\(other\)/.test(a)), arrows.join(' | '));
  await page.getByTestId('lineage-close').click();
});

test('member-poll-interval: a member past its poll interval leaves its group, and its record is processed twice', async () => {
  await pick('member-poll-interval');
  await stepUntil(async () => /without polling again/.test(await text('narration')), 20);
  assert.match(await text('narration'), /mailer-1 has been on offset 0 of partition 0 for 5 s without polling again/);
  await page.getByTestId('tab-logs').click();
  assert.equal(
    await text('group-1-member-0-state'),
    'mailer-1: out of the group (poll interval passed) · finishing P0 offset 0, which it can no longer commit',
  );
  assert.equal(await page.getByTestId('group-1-member-0-state').getAttribute('class'), 'member left');
  await page.getByTestId('lang-es').click();
  assert.equal(
    await text('group-1-member-0-state'),
    'mailer-1: fuera del grupo (pasó su intervalo de poll) · termina P0 offset 0, del que ya no puede hacer commit',
  );
  await page.getByTestId('lang-en').click();
  // Once done it rejoins, and the other member's run of the same record is a duplicate.
  await stepUntil(async () => /processed #0 again/.test(await text('narration')), 40);
  await page.getByTestId('tab-counters').click();
  assert.ok((await number('duplicate-effects')) >= 1);
  assert.deepEqual(consoleErrors, []);
});

test('a consumer scaled in that has stopped offers no Restart: it has left', async () => {
  await pick('mm4');
  await page.getByTestId('tab-parameters').click();
  const consumers = page.getByTestId('param-q0-consumers');
  await consumers.fill('3');
  await consumers.press('Tab');
  await stepUntil(async () => /^stopped \(scaled in\)$/.test(await text('consumer-3-state')));
  assert.ok(await page.getByTestId('consumer-3-restart').isHidden(), 'nothing to restart');
  assert.ok(await page.getByTestId('consumer-3-crash').isHidden(), 'nothing to crash');
  // A consumer that crashed and did not leave still offers its restart.
  await page.getByTestId('consumer-0-crash').click();
  assert.ok(await page.getByTestId('consumer-0-restart').isVisible());
  assert.deepEqual(consoleErrors, []);
});

test('transactional-pipeline: each transaction ends with a marker that takes an offset no group reads', async () => {
  await pick('transactional-pipeline');
  await page.getByTestId('tab-story').click(); // the event log follows the run while on show
  await stepUntil(async () => /commit marker/.test(await text('log')), 20);
  assert.match(
    await text('log'),
    /The coordinator wrote a commit marker to enriched partition 0 at offset 1: a control record that no consumer receives/,
  );
  await page.getByTestId('tab-logs').click();
  await playToEnd(5);
  // Six records for five orders (one aborted), each followed by its marker.
  assert.equal(
    await text('group-1-partition-0'),
    'P0 · offsets 0..12 · committed 12 · owned by billing-1 · lag 0 · transaction markers among them: 6',
  );
  await page.getByTestId('lang-es').click();
  assert.match(await text('group-1-partition-0'), /retraso 0 · marcas de transacción entre ellos: 6$/);
  await page.getByTestId('lang-en').click();
  assert.deepEqual(consoleErrors, []);
});

test('log-consumer-groups: a producer to a log keeps what it sends while the broker is down, and sends it all when the broker is back', async () => {
  await pick('log-consumer-groups');
  await page.getByTestId('tab-story').click(); // the event log follows the run while on show
  await page.getByTestId('broker-toggle').click(); // down now, back by itself 5 s later
  await stepUntil(async () => /buffer: [3-9]/.test(await text('producer-0-state')), 80);
  assert.match(
    await text('log'),
    // Its delivery timeout (120 s) would run out after the run's end (90 s): not named.
    /The broker is down: accounts keeps #0 in its buffer and will send it when the broker is back\./,
  );
  const kept = Number(/buffer: (\d+) to send when the broker is back$/.exec(await text('producer-0-state'))[1]);
  await page.getByTestId('lang-es').click();
  assert.match(await text('producer-0-state'), new RegExp(`búfer: ${kept} por enviar cuando vuelva el broker$`));
  await page.getByTestId('lang-en').click();
  await stepUntil(async () => /The broker restarted/.test(await text('log')), 200);
  assert.doesNotMatch(await text('producer-0-state'), /buffer/, 'all of it was sent at the restart');
  await page.getByTestId('tab-counters').click();
  assert.ok(await page.getByTestId('lost-before-stored').isHidden(), 'nothing was lost before it was stored');
  assert.deepEqual(consoleErrors, []);
});

test('log-consumer-groups: the seek at 40 s moves where analytics reads; its committed offset follows with its next commit', async () => {
  await pick('log-consumer-groups');
  await page.getByTestId('tab-logs').click();
  // Nothing is published after 30 s: by 33 s analytics has committed all it will before its seek.
  await playUntil(33);
  const lane = () => text('group-1-partition-0');
  const committedIn = (t) => Number(/ · committed (\d+) · /.exec(t)[1]);
  const before = committedIn(await lane());
  await stepUntil(async () => / · sought: reads at \d+, committed with its next commit$/.test(await lane()), 300);
  assert.equal(committedIn(await lane()), before, await lane());
  await stepUntil(async () => !/sought/.test(await lane()), 300);
  assert.ok(committedIn(await lane()) < before, `${await lane()} (was ${before})`);
  assert.deepEqual(consoleErrors, []);
});
