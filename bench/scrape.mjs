// Cost of web_scrape's options on a local site: one page, a crawl (depth 2, 20 pages, robots.txt once per origin,
// every page through the guarded fetch, Readability and turndown on each), and render: true (Debian's chromium through
// playwright-core: a launch, the page, its script and its requests through the guard).
// Usage: npm run build && env -i PATH=$PATH HOME=$HOME node bench/scrape.mjs [--json]
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import { crawl } from '../dist/notes/crawl.js';
import { percentile, sized } from './lib.mjs';

const json = process.argv.includes('--json');
const results = {};
const words = (topic) => `<p>${`This page is about ${topic}, written out at length so that a reader finds an article here. `.repeat(12)}</p>`;
const page = (index) => `<!doctype html><html><head><title>Page ${index}</title></head><body><main><article><h1>Page ${index}</h1>${words(`topic ${index}`)}
${Array.from({ length: 5 }, (_, link) => `<a href="/p/${(index * 5 + link + 1) % 40}">next ${link}</a>`).join(' ')}</article></main></body></html>`;
const server = createServer((req, res) => {
  if (req.url === '/robots.txt') {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('User-agent: *\nDisallow: /private/\n');
    return;
  }
  if (req.url === '/script') {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(`<!doctype html><html><body><main id="app"></main><script>document.getElementById('app').innerHTML = ${JSON.stringify(`<article><h1>Built</h1>${words('script')}</article>`)};</script></body></html>`);
    return;
  }
  const index = Number(/^\/p\/(\d+)$/.exec(req.url ?? '')?.[1] ?? 0);
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end(page(index));
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const base = `http://site.test:${server.address().port}`;
const options = {
  http: { presets: {}, allow_hosts: ['site.test'], allow_private: false, timeout_s: 20, max_bytes: 2_000_000, max_redirects: 5 },
  resolve: async () => [{ address: '127.0.0.1', family: 4 }],
};

async function measure(label, rounds, run) {
  await run(); // warm-up: libraries loaded
  const times = [];
  for (let index = 0; index < rounds; index += 1) {
    const started = performance.now();
    await run();
    times.push(performance.now() - started);
  }
  results[label] = { p50: percentile(times, 50), p95: percentile(times, 95) };
  if (!json) console.log(`${label.padEnd(52)} p50 ${percentile(times, 50).toFixed(1)} ms   p95 ${percentile(times, 95).toFixed(1)} ms`);
}

const pages = async (run) => {
  const result = await run();
  if (!result.success) throw new Error(result.error);
  return result.value.pages.length;
};
await measure('one page (depth 0)', sized(30, 2), () => pages(() => crawl(`${base}/p/0`, { ...options, depth: 0, maxPages: 1 })));
await measure('a crawl, depth 2, 20 pages', sized(10, 1), () => pages(() => crawl(`${base}/p/0`, { ...options, depth: 2, maxPages: 20 })));
// The smoke run (the suite's) leaves the browser out: two launches would cost more than it gives one script.
if (process.argv.includes('--smoke')) {
  if (!json) console.log('render: skipped in the smoke run');
} else if (existsSync('/usr/bin/chromium')) {
  await measure('render: true, one page (chromium launched per call)', sized(3, 1), () => pages(() => crawl(`${base}/script`, { ...options, depth: 0, maxPages: 1, render: true })));
} else if (!json) console.log('render: skipped (no /usr/bin/chromium)');
server.close();
if (json) console.log(JSON.stringify(results));
