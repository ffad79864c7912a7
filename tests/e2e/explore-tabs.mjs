import { openBrowser, waitForLab } from './browser.mjs';
const url = process.env.BROKERLAB_URL;
const locale = process.env.LOC ?? 'es-ES';
const b = await openBrowser({ viewport: { width: 1280, height: 900 }, locale });
const page = b.page;
await page.goto(url, { waitUntil: 'load' });
await waitForLab(page);
const ex = process.env.EX ?? 'crash-after-commit';
await page.getByTestId('scenario').selectOption(ex);
await page.waitForTimeout(300);
await page.evaluate(() => { const r = document.querySelector('.timeline input[type=range]'); r.value = r.max; r.dispatchEvent(new Event('input', { bubbles: true })); r.dispatchEvent(new Event('change', { bubbles: true })); });
await page.waitForTimeout(800);
for (const tab of (process.env.TABS ?? 'counters,events,parameters,scenario,invariants,history,logs').split(',')) {
  const t = page.getByTestId(`tab-${tab}`);
  if (!(await t.count())) { console.log('no tab', tab); continue; }
  await t.click();
  await page.waitForTimeout(400);
  await page.getByTestId('side').screenshot({ path: `/tmp/explore/tab-${ex}-${tab}.png` });
  const text = await page.getByTestId(`panel-${tab}`).innerText().catch(() => '');
  console.log(`=== ${tab}\n${text.slice(0, 1500)}`);
}
await b.close();
process.exit(0);
