// End-to-end tests of files and embedding (issue 12): save a scenario and open it again
// (picker and drag-and-drop), refuse a bad file naming the field, export the series as CSV
// equal to the runner's for the same link, export the chart as PNG, embed the stage.
// Run by .ci/test-web:
//   BROKERLAB_URL=http://127.0.0.1:PORT/brokerlab/ BROKERLAB_BIN=target/debug/brokerlab \
//     node --test files.test.mjs
// playwright-core drives Debian's Chromium (never a downloaded browser).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BASE_URL, linkOf, openPage } from './browser.mjs';

const RUNNER = process.env.BROKERLAB_BIN ?? path.resolve('target/debug/brokerlab');

let context;
let page;
let downloads;
let consoleErrors;

before(async () => {
  downloads = mkdtempSync(path.join(tmpdir(), 'brokerlab-downloads-'));
  ({ context, page, errors: consoleErrors } = await openPage(BASE_URL, { acceptDownloads: true }));
});

after(() => {
  if (downloads) rmSync(downloads, { recursive: true, force: true });
});

const text = (id) => page.getByTestId(id).innerText().then((t) => t.trim());
const step = async () => Number((await text('step-index')).replace(/,/g, ''));

async function pick(name) {
  await page.getByTestId('scenario').selectOption(name);
  assert.equal(await text('step-index'), '0', `${name} loads at its start`);
}

/** Presses Step `n` times. */
async function steps(n) {
  for (let i = 0; i < n; i += 1) await page.getByTestId('step').click();
}

/** Steps until the step index is `n`. */
async function stepTo(n) {
  while ((await step()) < n) await page.getByTestId('step').click();
  assert.equal(await step(), n);
}

/** Chooses an entry of the Files menu and returns the file it downloads, saved. */
async function download(id) {
  await page.getByTestId('files').locator('summary').click();
  const [file] = await Promise.all([page.waitForEvent('download'), page.getByTestId(id).click()]);
  const saved = path.join(downloads, file.suggestedFilename());
  await file.saveAs(saved);
  assert.equal(await page.getByTestId('files').getAttribute('open'), null, 'the menu closes');
  return saved;
}

/** The numbers a moment of the run shows. */
async function moment() {
  const counters = {};
  for (const id of ['step-index', 'time', 'published', 'acked', 'backlog', 'crashes', 'redelivered']) {
    counters[id] = await text(id);
  }
  return counters;
}

/** Puts a file on the page's hidden file input, as the Open dialog does. */
async function openFile(file) {
  await page.getByTestId('open-scenario').setInputFiles(file);
}

/** The address the page shows now (it follows the run once the page is still). */
async function settledAddress() {
  await page.waitForTimeout(700);
  return page.evaluate(() => location.href);
}

test('a saved scenario file opens again, with the crash the user gave', async () => {
  await pick('mm4');
  await steps(12);
  await page.getByTestId('crash').click();
  await steps(20);
  const before = await moment();
  const saved = await download('save-scenario');
  assert.match(path.basename(saved), /^brokerlab-mm4\.json$/);
  const scenario = JSON.parse(readFileSync(saved, 'utf8'));
  assert.equal(scenario.name, 'mm4');
  assert.equal(scenario.interventions.length, 1, 'the crash is in the file');
  assert.equal(scenario.interventions[0].after_step, 12);
  assert.equal(before.crashes, '1');

  await pick('mm1');
  await openFile(saved);
  await page.waitForFunction(() => document.querySelector('[data-testid=scenario]').value === 'mm4');
  assert.equal(await step(), 0, 'a file opens at its start');
  assert.equal(await page.getByTestId('error-note').count(), 0);
  await stepTo(Number(before['step-index'].replace(/,/g, '')));
  assert.deepEqual(await moment(), before, 'the same run, crash included');
  assert.deepEqual(consoleErrors, []);
});

test('the runner runs a saved file', async () => {
  await pick('crash-after-commit');
  const saved = await download('save-scenario');
  const report = JSON.parse(execFileSync(RUNNER, ['run', saved], { encoding: 'utf8' }));
  assert.equal(report.scenario, 'crash-after-commit');
});

test('a bad file is refused in one sentence naming the field, and the run stays', async () => {
  await pick('mm1');
  await steps(4);
  const scenario = JSON.parse(execFileSync(RUNNER, ['example', 'mm1'], { encoding: 'utf8' }));
  scenario.queues[0].visibility_timeout_s = -3;
  scenario.name = '<img src=x onerror=alert(1)>';
  const bad = path.join(downloads, 'bad.json');
  writeFileSync(bad, JSON.stringify(scenario));
  await openFile(bad);
  const note = page.getByTestId('error-note');
  await note.waitFor({ state: 'visible' });
  assert.match(await note.innerText(), /This file could not be opened: queues\[0\]\.visibility_timeout_s: .+\.$/);
  assert.equal(await page.locator('.error-note *').count(), 1, 'no markup beyond the label');
  assert.equal(await step(), 4, 'the previous run is kept');
  assert.equal(await page.getByTestId('scenario').inputValue(), 'mm1');

  for (const [name, body] of [['junk.json', '{"version": 3, "producers": ['], ['huge.json', ' '.repeat(1_100_000)]]) {
    const file = path.join(downloads, name);
    writeFileSync(file, body);
    await openFile(file);
    await page.waitForFunction(
      (n) => document.querySelector('[data-testid=error-note]')?.textContent.includes(n) ||
        document.querySelector('[data-testid=error-note]')?.textContent.includes('could not be opened'),
      name,
    );
    assert.match(await note.innerText(), /could not be opened/);
    assert.equal(await step(), 4);
  }
  assert.deepEqual(consoleErrors, []);
});

test('a link holding a value that does not fit names its field in plain words, in either language', async () => {
  const cases = [
    ['{"example":"burst","step":"abc"}', 'en-US',
      'Problem: This link could not be opened: The link\'s content is not valid: the step it shows (step) must be a whole number, 0 or more, not the text "abc".'],
    // 2^70 written out, and as JavaScript writes it (1.1805916207174113e+21).
    [`{"example":"burst","seed":${2n ** 70n}}`, 'es-ES',
      'Problema: No se pudo abrir este enlace: El contenido del enlace no es válido: la semilla (seed) es demasiado grande (como mucho 18.446.744.073.709.551.615).'],
    [JSON.stringify({ example: 'burst', seed: 2 ** 70 }), 'en-US',
      'Problem: This link could not be opened: The link\'s content is not valid: the seed (seed) is too large (at most 18,446,744,073,709,551,615).'],
  ];
  for (const [doc, locale, said] of cases) {
    const { page: opened, errors, close } = await openPage(`${BASE_URL}#s=${linkOf(doc)}`, { locale });
    assert.equal(await opened.getByTestId('error-note').innerText().then((t) => t.trim()), said, doc);
    assert.equal(await opened.getByTestId('scenario').inputValue(), 'burst', 'the example opened');
    assert.deepEqual(errors, []);
    await close();
  }
});

test('a scenario file dropped on the page opens', async () => {
  await pick('mm1');
  const json = execFileSync(RUNNER, ['example', 'short-lease'], { encoding: 'utf8' });
  const transfer = await page.evaluateHandle((body) => {
    const dt = new DataTransfer();
    dt.items.add(new File([body], 'short-lease.json', { type: 'application/json' }));
    return dt;
  }, json);
  const main = page.locator('main');
  await main.dispatchEvent('dragenter', { dataTransfer: transfer });
  assert.match(await main.getAttribute('class'), /\bdragging\b/, 'the page says where the file goes');
  await main.dispatchEvent('dragover', { dataTransfer: transfer });
  await main.dispatchEvent('drop', { dataTransfer: transfer });
  await page.waitForFunction(() => document.querySelector('[data-testid=scenario]').value === 'short-lease');
  assert.doesNotMatch((await main.getAttribute('class')) ?? '', /\bdragging\b/);

  // A scenario of the user's own is listed in the picker under its name.
  const own = JSON.parse(json);
  own.name = 'my-lease';
  const file = path.join(downloads, 'my-lease.json');
  writeFileSync(file, JSON.stringify(own));
  await openFile(file);
  await page.waitForFunction(() => document.querySelector('[data-testid=scenario]').value === 'my-lease');
  const shown = await page.getByTestId('scenario').evaluate((s) => s.selectedOptions[0].textContent);
  assert.equal(shown, 'my-lease (your scenario)');
  await pick('mm1');
  assert.equal(await page.locator('[data-testid=scenario] option[value="my-lease"]').count(), 0, 'gone once another is picked');
});

test('at the end of a run with a crash, the exported CSV equals the runner’s for the same link', async () => {
  await pick('fanout-subscriptions');
  await steps(10);
  await page.getByTestId('crash').click();
  // Play to the end: the page's series is then the whole run.
  await page.getByTestId('speed').selectOption('10');
  await page.getByTestId('play').click();
  await page.waitForFunction(() => document.querySelector('[data-testid=play]').textContent.trim() === 'Replay', null, { timeout: 30_000 });
  const link = await settledAddress();
  const csv = readFileSync(await download('export-csv'), 'utf8');
  const runner = execFileSync(RUNNER, ['run', '--link', link, '--moment', '--csv'], { encoding: 'utf8' });
  assert.ok(csv.split('\n').length > 10, 'some samples');
  assert.equal(csv, runner);
  assert.ok(Number(await text('crashes')) >= 1, 'with the crash');
});

test('mid-run, the exported CSV equals the runner’s stopped at the link’s moment', async () => {
  await pick('mm1');
  await page.getByTestId('speed').selectOption('10');
  await page.getByTestId('play').click();
  await page.waitForFunction(() => Number(document.querySelector('[data-testid=time]').textContent.replace(/[^0-9.]/g, '')) > 20);
  await page.getByTestId('play').click();
  const link = await settledAddress();
  const csv = readFileSync(await download('export-csv'), 'utf8');
  const runner = execFileSync(RUNNER, ['run', '--link', link, '--moment', '--csv'], { encoding: 'utf8' });
  assert.ok(csv.split('\n').length > 20, 'some samples');
  assert.equal(csv, runner);
});

test('the chart exports as a PNG image', async () => {
  const png = readFileSync(await download('export-png'));
  assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'a PNG signature');
  const width = png.readUInt32BE(16);
  const height = png.readUInt32BE(20);
  const canvas = await page.getByTestId('chart').evaluate((c) => [c.width, c.height]);
  assert.deepEqual([width, height], canvas, 'the size the chart is drawn at');
});

test('embedded: only the stage, sized to its frame, at the link’s moment', async () => {
  await pick('short-lease');
  await steps(5);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(BASE_URL).origin });
  await page.getByTestId('files').locator('summary').click();
  await page.getByTestId('copy-embed').click();
  assert.match(await text('files-notice'), /Embed code copied/);
  const code = await page.evaluate(() => navigator.clipboard.readText());
  const src = code.match(/^<iframe src="([^"]+)" title="Broker Lab: short-lease"/)?.[1];
  assert.ok(src, code);
  assert.match(src, /\/brokerlab\/\?embed#s=v1\./);

  const host = await context.newPage();
  try {
    await host.setContent(`<body style="margin:0"><div style="width:760px">${code}</div></body>`);
    const frame = await (await host.waitForSelector('iframe')).contentFrame();
    await frame.getByTestId('embedded').waitFor({ state: 'visible', timeout: 30_000 });
    assert.equal(await frame.getByTestId('step-index').innerText(), '5', 'the link’s step');
    for (const hidden of ['scenario', 'files', 'copy-link', 'tab-counters', 'help-button']) {
      assert.equal(await frame.getByTestId(hidden).count(), 0, `${hidden} is not in an embed`);
    }
    const size = await frame.evaluate(() => ({
      scroll: document.documentElement.scrollWidth,
      width: innerWidth,
      chartBottom: document.querySelector('[data-testid=chart]').getBoundingClientRect().bottom,
      height: innerHeight,
    }));
    assert.equal(size.width, 760, 'as wide as its container');
    assert.ok(size.scroll <= size.width, 'nothing scrolls sideways');
    assert.ok(size.chartBottom > 0, 'the chart is there');
    await frame.getByTestId('step').click();
    assert.equal(await frame.getByTestId('step-index').innerText(), '6', 'it plays');
    const full = frame.getByTestId('open-full');
    await full.focus();
    assert.match(await full.getAttribute('href'), /\/brokerlab\/#s=v1\./, 'the way out has no embed flag');
  } finally {
    await host.close();
  }
});

test('Escape closes the Files menu, the Record form and the Compare form, and gives the focus back', async () => {
  const menu = page.getByTestId('files');
  const focusOnMenu = () =>
    page.evaluate(() => document.activeElement === document.querySelector('[data-testid=files] > summary'));
  await menu.locator('summary').click();
  await page.keyboard.press('Escape');
  assert.equal(await menu.getAttribute('open'), null, 'the menu closes');
  assert.ok(await focusOnMenu(), 'the focus is back on the menu’s button');

  const focused = () => page.evaluate(() => document.activeElement?.dataset.testid ?? document.activeElement?.tagName);
  await menu.locator('summary').click();
  await page.getByTestId('record-open').click();
  // The form's first field takes the focus (it stayed on <body>, the menu folded).
  await page.waitForFunction(() => document.activeElement?.dataset.testid === 'record-from', null, { timeout: 5_000 })
    .catch(async () => assert.fail(`the focus is on ${await focused()}`));
  await page.keyboard.press('Escape');
  assert.equal(await page.getByTestId('record-form').count(), 0, 'the Record form closes');
  assert.ok(await focusOnMenu());

  await menu.locator('summary').click();
  await page.getByTestId('compare-open').click();
  await page.waitForFunction(() => document.activeElement?.dataset.testid === 'compare-setting', null, { timeout: 5_000 })
    .catch(async () => assert.fail(`the focus is on ${await focused()}`));
  await page.getByTestId('compare-free').focus();
  await page.keyboard.press('Escape');
  assert.equal(await page.getByTestId('compare-form').count(), 0, 'the Compare form closes');
  assert.ok(await focusOnMenu());
  assert.equal(await page.getByTestId('compare-bar').count(), 0, 'no comparison was started');
  assert.deepEqual(consoleErrors, []);
});

test('on a phone, the Files menu and its forms stay inside the screen', async () => {
  for (const locale of ['en-US', 'es-ES']) {
    const phone = await openPage(BASE_URL, {
      locale, viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true,
    });
    const inside = async (selector) => {
      const boxes = await phone.page.locator(selector).evaluateAll((els) =>
        els.map((el) => [el.getBoundingClientRect().left, el.getBoundingClientRect().right]));
      assert.ok(boxes.length > 0, `${locale}: ${selector} is there`);
      for (const [left, right] of boxes) {
        assert.ok(left >= 0 && right <= 390, `${locale}: ${selector} spans ${left}–${right}`);
      }
    };
    const summary = phone.page.getByTestId('files').locator('summary');
    await summary.click();
    await inside('.files-menu button, .files-menu .file-pick');
    await phone.page.getByTestId('record-open').click();
    await inside('[data-testid=record-form]');
    await phone.page.getByTestId('record-close').click();
    await summary.click();
    await phone.page.getByTestId('compare-open').click();
    await inside('[data-testid=compare-form]');
    assert.ok(await phone.page.evaluate(() => document.documentElement.scrollWidth <= innerWidth));
    assert.deepEqual(phone.errors, []);
    await phone.close();
  }
});
