// End-to-end tests of recording (issue 16): a still PNG of the whole stage, and a run
// recorded as an animated GIF whose frames are counted by reading its blocks.
// Run by .ci/test-web:
//   BROKERLAB_URL=http://127.0.0.1:PORT/brokerlab/ node --test record.test.mjs
// playwright-core drives Debian's Chromium (never a downloaded browser).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BASE_URL, openPage } from './browser.mjs';

let page;
let downloads;
let consoleErrors;

before(async () => {
  downloads = mkdtempSync(path.join(tmpdir(), 'brokerlab-downloads-'));
  ({ page, errors: consoleErrors } = await openPage(BASE_URL, { acceptDownloads: true }));
  await page.getByTestId('scenario').selectOption('burst');
});

after(() => {
  if (downloads) rmSync(downloads, { recursive: true, force: true });
});

const text = (id) => page.getByTestId(id).innerText().then((t) => t.trim());

/** Waits for the download `click` starts, and returns it saved, with its name. */
async function download(click, timeout = 30_000) {
  const [file] = await Promise.all([page.waitForEvent('download', { timeout }), click()]);
  const saved = path.join(downloads, file.suggestedFilename());
  await file.saveAs(saved);
  return { name: file.suggestedFilename(), bytes: readFileSync(saved) };
}

/**
 * A GIF's logical screen size and its number of images, read block by block: header,
 * logical screen descriptor, global colour table, then extensions (0x21) and images (0x2C),
 * each followed by data sub-blocks, until the trailer (0x3B).
 */
function gifFrames(bytes) {
  assert.equal(bytes.subarray(0, 6).toString('latin1'), 'GIF89a', 'a GIF89a header');
  const width = bytes.readUInt16LE(6);
  const height = bytes.readUInt16LE(8);
  const colourTable = (flags) => (flags & 0x80 ? 3 * 2 ** ((flags & 0x07) + 1) : 0);
  let at = 13 + colourTable(bytes[10]);
  const skipSubBlocks = () => {
    while (bytes[at] !== 0) at += bytes[at] + 1;
    at += 1;
  };
  let images = 0;
  for (;;) {
    assert.ok(at < bytes.length, 'the file ends with a trailer');
    const block = bytes[at];
    if (block === 0x3b) break;
    if (block === 0x21) {
      at += 2; // introducer, label
      skipSubBlocks();
    } else if (block === 0x2c) {
      images += 1;
      const flags = bytes[at + 9];
      at += 10 + colourTable(flags) + 1; // descriptor, local table, LZW code size
      skipSubBlocks();
    } else {
      assert.fail(`an unknown block 0x${block.toString(16)} at byte ${at}`);
    }
  }
  return { width, height, images };
}

test('a picture of the whole stage downloads as a PNG', async () => {
  await page.getByTestId('files').locator('summary').click();
  const { name, bytes } = await download(() => page.getByTestId('export-stage-png').click());
  assert.match(name, /^brokerlab-.+-0s\.png$/);
  assert.deepEqual([...bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'a PNG signature');
  const width = bytes.readUInt32BE(16);
  const height = bytes.readUInt32BE(20);
  assert.ok(width >= 600, `the whole stage is wide (${width} px)`);
  assert.ok(height >= 300, `and holds the topology and the chart (${height} px)`);
  assert.ok(bytes.length > 5_000, 'not a blank picture');
});

test('a run recorded from 0 to 4 s at 5 frames per second is a GIF of 21 frames', async () => {
  await page.getByTestId('files').locator('summary').click();
  await page.getByTestId('record-open').click();
  await page.getByTestId('record-from').fill('0');
  await page.getByTestId('record-to').fill('4');
  await page.getByTestId('record-fps').fill('5');
  const before = await text('step-index');
  const { name, bytes } = await download(async () => {
    await page.getByTestId('record-start').click();
    await page.getByTestId('record-progress').filter({ hasText: /Recording frame \d+ of 21/ }).waitFor();
  }, 120_000);
  assert.equal(name.endsWith('-0-4s.gif'), true, name);
  const gif = gifFrames(bytes);
  assert.equal(gif.images, 21, 'one frame every 0.2 s, both ends included');
  assert.ok(gif.width > 300 && gif.width <= 640, `scaled down to at most 640 px (${gif.width})`);
  assert.ok(gif.height > 100, `${gif.height}`);
  assert.match(await text('record-message'), /Recording saved/);
  // The run is back where it was, paused.
  assert.equal(await text('step-index'), before);
  assert.equal(await text('play'), 'Play', 'paused');
  assert.deepEqual(consoleErrors, []);
});

test('more frames than a recording holds is refused in one sentence', async () => {
  await page.getByTestId('record-to').fill('100');
  await page.getByTestId('record-fps').fill('10');
  await page.getByTestId('record-start').click();
  assert.match(await text('record-message'), /1001 frames.*at most 300/);
});

test('a decimal comma is a decimal, and frames per second out of range are refused', async () => {
  // A number input dropped the comma before the page saw it: "1,5" was 15.
  await page.getByTestId('record-from').fill('1,5');
  await page.getByTestId('record-to').fill('3');
  await page.getByTestId('record-fps').fill('2');
  assert.equal(await page.getByTestId('record-from').inputValue(), '1,5');
  // 0 or 11 frames per second were quietly made 1 or 10.
  for (const fps of ['0', '11', '2,5']) {
    await page.getByTestId('record-fps').fill(fps);
    await page.getByTestId('record-start').click();
    assert.match(await text('record-message'), /Frames per second: type a whole number from 1 to 10/);
    assert.equal(await text('record-progress'), '', 'nothing is recorded');
  }
  // 1.5 s to 3 s at 2 frames per second: 4 frames (from 15 s it was no range at all).
  await page.getByTestId('record-fps').fill('2');
  await page.getByTestId('record-start').click();
  await page.getByTestId('record-progress').filter({ hasText: /Recording frame \d+ of 4$/ }).waitFor();
  await page.getByTestId('record-cancel').click();
  await page.getByTestId('record-message').filter({ hasText: /cancelled|saved/ }).waitFor({ timeout: 30_000 });
});

test('another scenario put on show while recording stops it, and nothing is saved', async () => {
  await page.getByTestId('scenario').selectOption('burst');
  if (!(await page.getByTestId('record-form').isVisible())) {
    await page.getByTestId('files').locator('summary').click();
    await page.getByTestId('record-open').click();
  }
  await page.getByTestId('record-from').fill('0');
  await page.getByTestId('record-to').fill('20');
  await page.getByTestId('record-fps').fill('10');
  let offered = 0;
  const count = () => { offered += 1; };
  page.on('download', count);
  await page.getByTestId('record-start').click();
  await page.getByTestId('record-progress').filter({ hasText: /Recording frame \d+ of 201$/ }).waitFor();
  // The picker stays usable; a GIF half burst, half mm4 (named after mm4) was saved.
  await page.getByTestId('scenario').selectOption('mm4');
  await page.getByTestId('record-message')
    .filter({ hasText: /^Recording stopped: the scenario changed while it was being recorded, so nothing was saved\.$/ })
    .waitFor({ timeout: 30_000 });
  assert.equal(await text('record-progress'), '');
  await page.waitForTimeout(500);
  page.off('download', count);
  assert.equal(offered, 0, 'no file');
  assert.equal(await page.getByTestId('scenario').inputValue(), 'mm4');
  assert.equal(await page.getByTestId('record-start').isDisabled(), false);
  assert.deepEqual(consoleErrors, []);
});
