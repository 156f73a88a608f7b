// End-to-end test of the panel in headless Chromium (Debian's /usr/bin/chromium driven by
// npm playwright-core): moves controls on the three panels and checks that every readout
// shows what the JSON API returns for the same inputs. Screenshots are kept under
// $LITHIFY_ARTIFACTS (the build's test-artifacts/web). Any console error fails the test.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { tempDir, buildTable, startServer, api } from './common.mjs';

const CHROMIUM = process.env.LITHIFY_CHROMIUM || '/usr/bin/chromium';
const ARTIFACTS = process.env.LITHIFY_ARTIFACTS || path.resolve('test-artifacts/web');

let dir, table, server, context, page;
const consoleErrors = [];

before(async () => {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  dir = tempDir('lithify-web-panel-');
  table = buildTable(dir);
  server = await startServer([table]);
  context = await chromium.launchPersistentContext(path.join(dir, 'chromium-profile'), {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 1000 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
      '--disable-dev-shm-usage'],  // containers often have a tiny /dev/shm
  });
  page = context.pages()[0] ?? await context.newPage();
  page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });
  page.on('pageerror', (e) => consoleErrors.push(String(e)));
  // Nothing but the local server may be contacted (no CDN).
  await page.route('**/*', (route) => {
    const u = route.request().url();
    if (u.startsWith(server.url)) return route.continue();
    consoleErrors.push(`request to another origin: ${u}`);
    return route.abort();
  });
  await page.goto(`${server.url}/`);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 20000 });
});

after(async () => {
  await context?.close();
  if (server) assert.deepEqual(await server.stop(), { code: 0, signal: null });
  fs.rmSync(dir, { recursive: true, force: true });
  assert.deepEqual(consoleErrors, [], 'no console errors');
});

const generation = (panel) => page.$eval(`#panel-${panel}`, (e) => Number(e.dataset.generation ?? 0));

// Runs `act` and waits until the panel has rendered a newer answer than before.
async function afterUpdate(panel, act) {
  const g = await generation(panel);
  await act();
  await page.waitForFunction(([id, g0]) => {
    const e = document.getElementById(id);
    return Number(e.dataset.generation ?? 0) > g0 && e.dataset.state === 'idle';
  }, [`panel-${panel}`, g], { timeout: 30000 });
  const status = await page.$eval(`#${panel}-status`, (e) => e.classList.contains('error') ? e.textContent : '');
  assert.equal(status, '', `${panel} panel shows an error`);
}

async function readouts(panel) {
  return page.$$eval(`#panel-${panel} [data-readout]`, (els) => Object.fromEntries(els.map((e) => [e.dataset.readout, { value: e.dataset.value, text: e.textContent }])));
}

const asValue = (v) => (v === null || v === undefined ? '' : String(v));

async function shot(name) {
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
}

test('panel 1: layout and bin-packing readouts equal the simulator API', async () => {
  await page.waitForFunction(() => Number(document.getElementById('panel-layout').dataset.generation ?? 0) > 0);
  await afterUpdate('layout', () => page.selectOption('#layout-form [name=partition_by]', 'hourly'));
  await afterUpdate('layout', () => page.fill('#layout-form [name=files_per_batch]', '8'));
  await afterUpdate('layout', () => page.fill('#layout-form [name=target_file_size_mb]', '256'));
  const request = JSON.parse(await page.$eval('#panel-layout', (e) => e.dataset.request));
  assert.equal(request.partition_by, 'hourly');
  assert.equal(request.files_per_batch, 8);
  assert.equal(request.target_file_size_mb, 256);
  const r = await api(server.url, '/api/simulate', { method: 'POST', body: JSON.stringify(request) });
  assert.equal(r.status, 200, r.text);
  const shown = await readouts('layout');
  for (const k of ['files_before', 'files_after', 'bins_kept', 'bins_dropped', 'num_files_added', 'scan_tasks_before', 'scan_tasks_after', 'tombstones']) {
    assert.equal(shown[k].value, asValue(r.body.totals[k]), `readout ${k}`);
    assert.equal(shown[k].text, Number(r.body.totals[k]).toLocaleString('en-US'), `readout ${k} text`);
  }
  assert.ok(r.body.totals.files_after < r.body.totals.files_before, 'OPTIMIZE reduced the file count');
  const log = await page.textContent('#layout-log');
  for (const line of r.body.steps.at(-1).summary) assert.ok(log.includes(line), `decision log shows '${line}'`);
  assert.ok(await page.locator('#layout-picture rect.bin').count() > 0, 'bins are drawn');
  await shot('panel1-layout');
  // REORG PURGE over rows deleted by deletion vectors: the readouts follow the API again.
  await afterUpdate('layout', () => page.fill('#layout-form [name=delete_pct]', '5'));
  await afterUpdate('layout', () => page.check('#layout-form [name=reorg]'));
  const reorg = JSON.parse(await page.$eval('#panel-layout', (e) => e.dataset.request));
  assert.equal(reorg.maintenance, 'reorg');
  assert.equal(reorg.delete_fraction_per_day, 0.05);
  const rr = await api(server.url, '/api/simulate', { method: 'POST', body: JSON.stringify(reorg) });
  assert.equal(rr.status, 200, rr.text);
  const shownReorg = await readouts('layout');
  for (const k of ['files_after', 'num_files_added', 'tombstones']) {
    assert.equal(shownReorg[k].value, asValue(rr.body.totals[k]), `REORG readout ${k}`);
  }
  await shot('panel1-layout-reorg');
  await afterUpdate('layout', () => page.uncheck('#layout-form [name=reorg]'));
});

test('panel 2: clustering readouts equal the simulator API', async () => {
  await page.click('button.tab[data-panel=clustering]');
  await page.waitForFunction(() => Number(document.getElementById('panel-clustering').dataset.generation ?? 0) > 0, null, { timeout: 30000 });
  await afterUpdate('clustering', () => page.fill('#clustering-form [name=days]', '12'));
  await afterUpdate('clustering', () => page.fill('#clustering-form [name=min_cube_size_gb]', '20'));
  await afterUpdate('clustering', () => page.fill('#clustering-form [name=full_on_day]', '9'));
  await page.fill('#clustering-form [name=day]', '9');  // no new simulation: shows night 9
  await page.waitForFunction(() => document.getElementById('panel-clustering').dataset.day === '9');
  const request = JSON.parse(await page.$eval('#panel-clustering', (e) => e.dataset.request));
  assert.equal(request.maintenance, 'liquid');
  assert.equal(request.days, 12);
  assert.equal(request.min_cube_size_gb, 20);
  assert.equal(request.full_on_day, 9);
  const r = await api(server.url, '/api/simulate', { method: 'POST', body: JSON.stringify(request) });
  assert.equal(r.status, 200, r.text);
  const shown = await readouts('clustering');
  assert.equal(shown.write_amplification.value, asValue(r.body.totals.write_amplification));
  assert.equal(shown.write_amplification.text, `${r.body.totals.write_amplification.toFixed(2)}×`);
  assert.equal(shown.bytes_written.value, asValue(r.body.totals.bytes_written));
  const night = r.body.steps.filter((s) => s.day === 9);
  assert.ok(night.length > 0, 'a run on day 9');
  assert.equal(shown.day_bytes_written.value, asValue(night.reduce((a, s) => a + s.bytes_written, 0)));
  assert.equal(shown.day_lookup_files.value, asValue(night.at(-1).lookup_files_after));
  assert.equal(shown.day_cubes_sealed.value, asValue(night.at(-1).cubes_sealed));
  assert.equal(shown.day_cubes_open.value, asValue(night.at(-1).cubes_open));
  assert.equal(await page.locator('#clustering-chart rect').count(), 12, 'one bar per night');
  assert.equal(await page.locator('#clustering-cubes rect').count(),
    Math.min(200, night.at(-1).cubes_sealed + night.at(-1).cubes_open), 'one square per cube');
  await shot('panel2-clustering-liquid');
  await afterUpdate('clustering', () => page.selectOption('#clustering-form [name=strategy]', 'zorder_window'));
  const zreq = JSON.parse(await page.$eval('#panel-clustering', (e) => e.dataset.request));
  assert.equal(zreq.maintenance, 'zorder');
  assert.equal(zreq.zorder_window_days, 7);
  const z = await api(server.url, '/api/simulate', { method: 'POST', body: JSON.stringify(zreq) });
  assert.equal((await readouts('clustering')).write_amplification.value, asValue(z.body.totals.write_amplification));
  await shot('panel2-clustering-zorder-window');
});

test('panel 3: the real table readouts equal the table endpoints', async () => {
  await page.click('button.tab[data-panel=table]');
  await page.waitForFunction(() => Number(document.getElementById('panel-table').dataset.generation ?? 0) > 0, null, { timeout: 30000 });
  const q = (p) => new URLSearchParams({ table, ...p }).toString();
  const files = (await api(server.url, `/api/files?${q({ limit: 0 })}`)).body;
  const desc = (await api(server.url, `/api/describe?${q({})}`)).body;
  let shown = await readouts('table');
  assert.equal(shown.numFiles.value, asValue(files.numFiles));
  assert.equal(shown.numPartitions.value, asValue(files.numPartitions));
  assert.equal(shown.sizeInBytes.value, asValue(files.sizeInBytes));
  assert.equal(await page.locator('#table-history li').count(), desc.history.length);
  assert.equal(await page.locator('#table-partitions rect').count(), files.partitions.length);
  const info = (await api(server.url, '/api/tables')).body;
  if (info.diagnose) {
    const diag = (await api(server.url, `/api/diagnose?${q({})}`)).body.diagnosis;
    assert.equal(await page.locator('#table-findings .finding').count(), diag.findings.length);
  }
  await afterUpdate('table', () => page.fill('#table-form [name=target_mb]', '1'));
  const opt = (await api(server.url, `/api/optimize?${q({ target_file_size: '1mb' })}`)).body;
  shown = await readouts('table');
  assert.equal(shown.filesToRewrite.value, asValue(opt.filesToRewrite));
  assert.equal(shown.binsPlanned.value, asValue(opt.binsPlanned));
  assert.equal(await page.textContent('#table-log'), opt.decisionLogText.join('\n'));
  await shot('panel3-table');
});
