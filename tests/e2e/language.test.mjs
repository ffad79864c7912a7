// End-to-end tests of the page's two languages (issue 13): the browser's language chooses,
// the EN / ES switch changes every part at once (header, transport, panels, narration,
// help), <html lang> follows, and a share link keeps the language.
// Run by .ci/test-web:  BROKERLAB_URL=http://127.0.0.1:PORT/brokerlab/ node --test language.test.mjs
// playwright-core drives Debian's Chromium (never a downloaded browser).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BASE_URL, openPage } from './browser.mjs';

/** A fresh browser (its own profile) at `url`, in `locale`. */
const openAt = (url, locale = 'en-US') => openPage(url, { locale });

const text = (page, id) => page.getByTestId(id).innerText().then((t) => t.trim());
const htmlLang = (page) => page.evaluate(() => document.documentElement.lang);

/** What the page says in a few places that different parts of it own. */
async function words(page) {
  return {
    help: await text(page, 'help-button'),
    play: await text(page, 'play'),
    counters: await text(page, 'tab-counters'),
    narration: await text(page, 'narration'),
    tagline: await page.locator('footer .tagline').innerText(),
  };
}

let shared;

test('switching language changes the page, the narration and the help at once', async () => {
  const { page, errors } = await openAt(BASE_URL);
  assert.equal(await htmlLang(page), 'en');
  for (let i = 0; i < 3; i += 1) await page.getByTestId('step').click();
  const english = await words(page);
  assert.match(english.help, /^Help/);
  assert.equal(english.play, 'Play');
  assert.match(english.tagline, /crash a consumer/);

  await page.getByTestId('lang-es').click();
  assert.equal(await htmlLang(page), 'es');
  assert.equal(await page.getByTestId('lang-es').getAttribute('aria-pressed'), 'true');
  const spanish = await words(page);
  assert.match(spanish.help, /^Ayuda/);
  assert.equal(spanish.play, 'Reproducir');
  assert.equal(spanish.counters, 'Contadores');
  assert.match(spanish.tagline, /tumba un consumidor/);
  assert.notEqual(spanish.narration, english.narration, 'the latest step is told again in Spanish');
  assert.doesNotMatch(spanish.narration, /\b(the|was|its|after)\b/, `Spanish narration: ${spanish.narration}`);

  // The help speaks the page's language too.
  await page.getByTestId('help-button').click();
  assert.match(await page.locator('#help-title').innerText(), /^Ayuda$/);
  assert.match(await page.getByTestId('help-keys').innerText(), /reproducir o pausar/);
  await page.keyboard.press('Escape');

  // And back: the very same words as before.
  await page.getByTestId('lang-en').click();
  assert.deepEqual(await words(page), english);
  await page.getByTestId('lang-es').click();
  await page.waitForTimeout(800);
  shared = await page.evaluate(() => location.href);
  assert.deepEqual(errors, []);
});

test('a share link keeps the language, whatever the browser speaks', async () => {
  assert.ok(shared, 'the previous test made a link');
  const { page } = await openAt(shared, 'en-US');
  assert.equal(await htmlLang(page), 'es');
  assert.equal(await text(page, 'play'), 'Reproducir');
  assert.equal(await text(page, 'step-index'), '3', 'at the step it was shared at');
});

test('a Spanish browser opens the page in Spanish', async () => {
  const { page, errors } = await openAt(BASE_URL, 'es-ES');
  assert.equal(await htmlLang(page), 'es');
  const spanish = await words(page);
  assert.match(spanish.help, /^Ayuda/);
  assert.match(spanish.tagline, /tumba un consumidor/);
  await page.getByTestId('step').click();
  assert.doesNotMatch(await text(page, 'narration'), /\b(the|was|its|after)\b/);
  assert.deepEqual(errors, []);
});

test('in Spanish a parameter takes a decimal comma, and the forecast writes Spanish numbers', async () => {
  const { page, errors } = await openAt(BASE_URL, 'es-ES');
  await page.getByTestId('scenario').selectOption('mm1');
  await page.getByTestId('tab-parameters').click();
  const rate = page.getByTestId('param-p0-rate');
  assert.equal(await rate.inputValue(), '0,9', 'the field writes 0.9 the Spanish way');
  // The slider beside it stands at 0.9 too: given "0,9" the browser put it at the middle (5).
  const slider = page.getByTestId('param-p0-rate-slider');
  assert.equal(await slider.inputValue(), '0.9');
  // "0,5" is half a message per second (it was read as 5 when commas were dropped).
  await rate.fill('0,5');
  await rate.press('Tab');
  await page.waitForFunction(
    () => /Llegadas λ = 0,5 mensajes\/s, capacidad μ = 1 mensajes\/s \(carga ρ = 0,50\)/
      .test(document.querySelector('[data-testid=params-forecast]').textContent),
    null,
    { timeout: 5_000 },
  );
  assert.equal(await rate.inputValue(), '0,5');
  assert.equal(await slider.inputValue(), '0.5');
  assert.equal(await text(page, 'rho-value'), '0,50');
  // "-0" is zero, and the field says 0.
  await rate.fill('-0');
  await rate.press('Tab');
  await page.waitForFunction(
    () => /Llegadas λ = 0 mensajes\/s/.test(document.querySelector('[data-testid=params-forecast]').textContent),
    null,
    { timeout: 5_000 },
  );
  assert.equal(await rate.inputValue(), '0');
  // Thousands are written with a point, and read back so.
  await rate.fill('3.000');
  await rate.press('Tab');
  await page.waitForFunction(
    () => /Llegadas λ = 3\.000 mensajes\/s/.test(document.querySelector('[data-testid=params-forecast]').textContent),
    null,
    { timeout: 5_000 },
  );
  assert.equal(await rate.inputValue(), '3000');
  assert.deepEqual(errors, []);
});

test('a number typed equal to the value in force is written back the page\'s way', async () => {
  // The field kept "2.5" (or "2,50") as typed when it equalled the value in force: no
  // change of value, so nothing wrote the field again. Any other accepted entry is
  // written back as the page writes numbers.
  const { page, errors } = await openAt(BASE_URL, 'es-ES');
  await page.getByTestId('scenario').selectOption('mm1');
  await page.getByTestId('tab-parameters').click();
  const rate = page.getByTestId('param-p0-rate');
  assert.equal(await rate.inputValue(), '0,9');
  for (const typed of ['0.9', '0,90', ' 0,9 ']) {
    await rate.fill(typed);
    await rate.press('Tab');
    await page.waitForFunction(() => document.querySelector('[data-testid=param-p0-rate]').value === '0,9',
      null, { timeout: 5_000 }).catch(() => {});
    assert.equal(await rate.inputValue(), '0,9', `typed ${JSON.stringify(typed)}`);
  }
  assert.equal(await text(page, 'param-p0-rate-error'), '', 'accepted');
  // A queue's service time too (another row, the same field).
  const service = page.getByTestId('param-q0-service');
  const shown = await service.inputValue();
  await service.fill(`${shown}0`.includes(',') ? `${shown}0` : `${shown},0`);
  await service.press('Tab');
  await page.waitForTimeout(300);
  assert.equal(await service.inputValue(), shown);
  // And in English, "0.90" is written back as 0.9.
  await page.getByTestId('lang-en').click();
  assert.equal(await rate.inputValue(), '0.9');
  await rate.fill('0.90');
  await rate.press('Tab');
  await page.waitForTimeout(300);
  assert.equal(await rate.inputValue(), '0.9');
  assert.deepEqual(errors, []);
});

test('on a phone in Spanish, large type leaves its own button on the screen', async () => {
  const viewport = { width: 390, height: 844 };
  for (const locale of ['es-ES', 'en-US']) {
    const { page, errors, close } = await openPage(BASE_URL, { locale, viewport, hasTouch: true, isMobile: true });
    await page.getByTestId('large-type').click();
    await page.waitForFunction(() => document.documentElement.classList.contains('large-type'));
    // The header's tools did not wrap: "✓ Letra grande" ran 55 px off a 390 px screen.
    const right = await page.getByTestId('large-type').evaluate((b) => b.getBoundingClientRect().right);
    assert.ok(right <= 390, `${locale}: the button ends at ${right} px`);
    const wide = await page.evaluate(() => Math.max(document.documentElement.scrollWidth, window.innerWidth));
    assert.equal(wide, 390, `${locale}: nothing scrolls sideways`);
    assert.deepEqual(errors, []);
    await close();
  }
});
