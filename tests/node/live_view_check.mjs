// `gpuvis track --view` used as a person would, in headless Chromium driven by puppeteer-core:
// the page must show frames and detections that keep changing, a setting changed on the page must
// change what the tracker reports, the calibration grid must follow a drag and be saved, settings
// must be saved into reacTIVision.xml, and tracking must go on when the browser goes away.
//
//   node live_view_check.mjs GPUVIS WORKDIR [SHOT.png]   (also writes SHOT-calibration.png)
// Prints one JSON line of what it saw; exits non-zero with the reason on the first failure.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import puppeteer from 'puppeteer-core';

const [gpuvis, workdir, screenshot] = process.argv.slice(2);
const chromium = process.env.CHROMIUM || ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome']
  .find((p) => existsSync(p));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const seen = {};
const pageErrors = [];
let failed = false;

function fail(why) {
  failed = true;
  throw new Error(pageErrors.length ? `${why} (errors in the page: ${pageErrors.join('; ')})` : why);
}

async function until(what, test, seconds = 15) {
  const end = Date.now() + seconds * 1000;
  for (;;) {
    const value = await test();
    if (value) return value;
    if (Date.now() > end) fail(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

// The tracker: generated frames at 60 fps, fingers off, its state printed per frame (--json).
const track = spawn(gpuvis, ['track', '--synth', '0', '--fps', '60', '--view', '0', '--no-tuio', '--json', '--backend', 'cpu'],
  { cwd: workdir, stdio: ['ignore', 'pipe', 'pipe'] });
let stderr = '', lines = [], partial = '';
track.stderr.on('data', (d) => { stderr += d; });
track.stdout.on('data', (d) => {
  const parts = (partial + d).split('\n');
  partial = parts.pop();
  for (const p of parts) lines.push(JSON.parse(p));
  if (lines.length > 2000) lines = lines.slice(-1000);
});
const lastFrame = () => lines[lines.length - 1];

let browser;
try {
  const port = await until('the live view address on stderr', () => (stderr.match(/live view on http:\/\/127\.0\.0\.1:(\d+)\//) || [])[1]);
  browser = await puppeteer.launch({ executablePath: chromium, headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'], defaultViewport: { width: 1180, height: 860 } });
  const page = await browser.newPage();
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  page.on('dialog', (d) => d.accept());  // "overwrite …?" is answered yes
  await page.goto(`http://127.0.0.1:${port}/`);

  // Frames and detections arrive and keep changing.
  const data = () => page.evaluate(() => ({ pictures: Number(document.getElementById('frame').dataset.pictures || 0),
    ...Object.fromEntries(Object.entries(document.getElementById('counts').dataset).map(([k, v]) => [k, Number(v)])) }));
  const first = await until('a picture and a tracked state', async () => { const d = await data(); return d.pictures > 0 && d.fseq > 0 && d; });
  const later = await until('more pictures and frames', async () => {
    const d = await data();
    return d.pictures >= first.pictures + 5 && d.fseq > first.fseq + 30 && d;
  });
  if (later.objects < 1) fail(`the page shows no symbols (${JSON.stringify(later)})`);
  const contrast = await page.evaluate(() => {
    const c = document.getElementById('frame');
    const px = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let sum = 0, sum2 = 0;
    for (let i = 0; i < px.length; i += 4) { sum += px[i]; sum2 += px[i] * px[i]; }
    const n = px.length / 4;
    return Math.sqrt(sum2 / n - (sum / n) ** 2);
  });
  if (!(contrast > 10)) fail(`the picture looks blank (grey-level deviation ${contrast})`);
  seen.symbols_on_page = later.objects;

  // Fingers are off; switching them on in the page makes the tracker report them.
  if (lastFrame().cursors.length !== 0 || later.cursors !== 0) fail('fingers reported before they were switched on');
  const before = lastFrame().fseq;
  await page.$eval('#finger-size', (e) => { e.value = '14'; e.dispatchEvent(new Event('change')); });
  const withFingers = await until('fingers in the tracker output', () =>
    lines.find((f) => f.fseq > before && f.cursors.length > 0));
  seen.fingers_after_change = withFingers.cursors.length;
  seen.frames_until_fingers = withFingers.fseq - before;
  await until('fingers on the page', async () => (await data()).cursors > 0);

  // The binary frame: without the overlay, nearly every pixel is black or white.
  await page.click('#overlay');
  await page.click('#display-binary');
  const binarySeen = (await data()).pictures;
  await until('binary pictures', async () => (await data()).pictures >= binarySeen + 3);
  const grey = await page.evaluate(() => {
    const c = document.getElementById('frame');
    const px = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let mid = 0;
    for (let i = 0; i < px.length; i += 4) if (px[i] > 48 && px[i] < 208) ++mid;
    return mid / (px.length / 4);
  });
  if (grey > 0.05) fail(`the binary view is not binary: ${(100 * grey).toFixed(1)}% grey pixels`);
  seen.binary_grey_fraction = grey;
  await page.click('#display-camera');
  await page.click('#overlay');

  // Calibration: switch the grid on, drag a point, save the grid.
  await page.click('#grid-on');
  const points = await until('grid points', () => page.evaluate(() => gridPoints()).then((p) => p.length > 0 && p));
  const target = points.find((p) => p.c === 3 && p.r === 3);
  const box = await page.$eval('#frame', (c) => { const b = c.getBoundingClientRect(); return { x: b.left, y: b.top, w: b.width, h: b.height, cw: c.width }; });
  const sx = box.x + target.x * box.w / box.cw, sy = box.y + target.y * box.w / box.cw;
  await page.mouse.move(sx, sy);
  await page.mouse.down();
  await page.mouse.move(sx + 12, sy + 6, { steps: 4 });
  await page.mouse.up();
  // Messages reach the tracker in order: the point before the save.
  await page.click('#grid-save');
  const gridFile = join(workdir, 'calibration.grid');
  await until('calibration.grid', () => existsSync(gridFile));
  const entries = readFileSync(gridFile, 'utf8').trim().split('\n').map((l) => l.trim().split(/\s+/).map(Number));
  const moved = entries.filter(([dx, dy]) => dx !== 0 || dy !== 0);
  if (moved.length !== 1) fail(`calibration.grid should hold one moved point, holds ${moved.length}`);
  seen.grid_point_moved = moved[0];

  // Settings saved into a new reacTIVision.xml that gpuvis reads back.
  await page.click('#save-settings');
  const xmlFile = join(workdir, 'reacTIVision.xml');
  await until('reacTIVision.xml', () => existsSync(xmlFile) && readFileSync(xmlFile, 'utf8').includes('<finger'));
  const xml = readFileSync(xmlFile, 'utf8');
  if (!/<finger[^>]*size="14"/.test(xml)) fail(`reacTIVision.xml lacks the finger size: ${xml}`);
  if (!/<calibration[^>]*grid="calibration.grid"/.test(xml)) fail(`reacTIVision.xml lacks the grid: ${xml}`);
  seen.settings_saved = true;

  if (screenshot) {  // SHOT.png with the detections, SHOT-calibration.png with the grid over the binary frame
    await page.click('#display-binary');
    await page.evaluate(() => window.scrollTo(0, 0));
    await sleep(800);
    await page.screenshot({ path: screenshot.replace(/\.png$/, '-calibration.png') });
    await page.click('#grid-on');
    await page.click('#display-camera');
    await page.evaluate(() => window.scrollTo(0, 0));
    await sleep(800);
    await page.screenshot({ path: screenshot });
  }
  if (pageErrors.length) fail(`errors in the page: ${pageErrors.join('; ')}`);

  // The browser goes away: tracking goes on.
  await browser.close();
  browser = null;
  const closedAt = lastFrame().fseq;
  await until('frames after the browser closed', () => lastFrame().fseq > closedAt + 30);
  seen.frames_after_close = lastFrame().fseq - closedAt;
} catch (e) {
  console.error(`live view check: ${e.message}\n--- gpuvis stderr:\n${stderr}`);
  failed = true;
} finally {
  if (browser) await browser.close().catch(() => {});
  track.kill('SIGINT');
  const code = await new Promise((r) => track.on('exit', (c) => r(c)));
  if (!failed && code !== 0) { console.error(`gpuvis track exited with ${code}: ${stderr}`); failed = true; }
}
console.log(JSON.stringify(seen));
process.exit(failed ? 1 : 0);
