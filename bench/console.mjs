// The console's cost: the first page's weight as transferred (gzip, with every script, style and image it loads),
// and the daemon's idle RSS with http.listen set and the console off vs on (never opened, and after a page view).
// Usage: npm run build && node bench/console.mjs [--json]
// Turn overhead (unchanged by the console: a turn that does not ask for a stream takes the same path) is
// bench/turn-overhead.mjs.
import { spawnSync } from 'node:child_process';
import { request } from 'node:http';
import { createServer } from 'node:net';
import path from 'node:path';
import { mib, MAIN, percentile, rssOf, sized, startDaemon, stopDaemon, table, tempDir, writeConfig } from './lib.mjs';

const RUNS = sized(5, 1);

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** One GET or POST; the body as it came over the wire (still gzipped) and its decoded size is not needed. */
function raw(url, { method = 'GET', headers = {}, body } = {}) {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers: { 'Accept-Encoding': 'gzip', ...headers } }, (res) => {
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Headers as sent, roughly: status line plus each header line. */
function headerBytes(response) {
  return Object.entries(response.headers).reduce((sum, [name, value]) => sum + name.length + String(value).length + 4, 17);
}

async function configFor(consoleOn) {
  const dir = tempDir();
  const port = await freePort();
  writeConfig(dir, { data_dir: './data', memory_dir: './memory', log: { level: 'info', format: 'json' }, http: { listen: `127.0.0.1:${port}`, console: consoleOn } });
  return { dir, base: `http://127.0.0.1:${port}` };
}

async function login(dir, base) {
  const printed = spawnSync(process.execPath, [MAIN, 'console', '--json', '--config', path.join(dir, 'config.yaml')], { cwd: dir, env: { PATH: process.env.PATH, HOME: dir }, encoding: 'utf8' });
  const { url } = JSON.parse(printed.stdout);
  const token = new URL(url).hash.replace(/^#token=/, '');
  const answer = await raw(`${base}/console/login`, { method: 'POST', headers: { Origin: base, 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' }, body: new URLSearchParams({ token }).toString() });
  const cookie = /familiar_console=[^;]+/.exec(String(answer.headers['set-cookie']))?.[0];
  if (!cookie) throw new Error(`login failed: ${answer.status} ${answer.body}`);
  return cookie;
}

/** The first page after login (the chat) and everything it loads, as transferred. */
async function pageWeight(base, cookie) {
  const page = await raw(`${base}/console/chat`, { headers: { Cookie: cookie } });
  const { gunzipSync } = await import('node:zlib');
  const html = (page.headers['content-encoding'] === 'gzip' ? gunzipSync(page.body) : page.body).toString('utf8');
  const urls = [...new Set([...html.matchAll(/(?:src|href)="(\/console\/assets\/[^"]+)"/g)].map((match) => match[1].replace(/&amp;/g, '&')))];
  const files = [{ url: '/console/chat', bytes: page.body.length + headerBytes(page) }];
  for (const url of urls) {
    const answer = await raw(`${base}${url}`, { headers: { Cookie: cookie } });
    files.push({ url, bytes: answer.body.length + headerBytes(answer) });
  }
  return { total: files.reduce((sum, file) => sum + file.bytes, 0), files };
}

async function idle(consoleOn, { openPage }) {
  const values = [];
  let weight;
  for (let run = 0; run < RUNS; run += 1) {
    const { dir, base } = await configFor(consoleOn);
    const { child } = await startDaemon(['--config', path.join(dir, 'config.yaml')], { cwd: dir });
    if (openPage) {
      const cookie = await login(dir, base);
      weight ??= await pageWeight(base, cookie);
    }
    await new Promise((resolve) => setTimeout(resolve, sized(1000, 50)));
    values.push(rssOf(child.pid));
    await stopDaemon(child);
  }
  return { rss: percentile(values, 50), weight };
}

const off = await idle(false, { openPage: false });
const on = await idle(true, { openPage: false });
const viewed = await idle(true, { openPage: true });
const results = {
  first_page_kb: viewed.weight.total / 1024,
  first_page_files: viewed.weight.files.map((file) => `${file.url.replace(/\?.*$/, '')} ${(file.bytes / 1024).toFixed(1)} KB`),
  idle_rss_console_off_mib: mib(off.rss), idle_rss_console_on_mib: mib(on.rss), idle_rss_after_page_view_mib: mib(viewed.rss),
};
if (process.argv.includes('--json')) console.log(JSON.stringify(results));
else {
  console.log(table([
    ['measure', 'value', 'target'],
    ['first page (chat, after login), transferred', `${results.first_page_kb.toFixed(1)} KB in ${results.first_page_files.length} files`, '≤ 150 KB'],
    [`idle RSS, http.listen set, console off (median of ${RUNS})`, `${results.idle_rss_console_off_mib.toFixed(1)} MiB`, ''],
    [`idle RSS, console on, never opened (median of ${RUNS})`, `${results.idle_rss_console_on_mib.toFixed(1)} MiB (${(results.idle_rss_console_on_mib - results.idle_rss_console_off_mib).toFixed(1)} MiB)`, '≤ +10 MiB'],
    [`idle RSS, console on, after login and a page (median of ${RUNS})`, `${results.idle_rss_after_page_view_mib.toFixed(1)} MiB (${(results.idle_rss_after_page_view_mib - results.idle_rss_console_off_mib).toFixed(1)} MiB)`, '≤ +10 MiB'],
  ]));
  console.log(`\nfirst page: ${results.first_page_files.join(', ')}`);
}
