// Cost of the http tool's SSRF guard: address classification per call, and one guarded GET (custom lookup, no
// socket reuse, manual redirects) against a plain node:http GET with and without keep-alive, on a local server.
// Usage: npm run build && node bench/http-guard.mjs [--json]
import { Agent, createServer, get } from 'node:http';
import { fetchGuarded } from '../dist/net/fetch-guarded.js';
import { classifyAddress } from '../dist/net/ssrf.js';
import { percentile, sized } from './lib.mjs';

const ROUNDS = sized(2000, 5);
const json = process.argv.includes('--json');
const results = {};
const body = JSON.stringify({ items: Array.from({ length: 50 }, (_, index) => ({ id: index, name: `item ${index}` })) });
const server = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const port = server.address().port;

function plainGet(agent) {
  return new Promise((resolve, reject) => {
    get({ hostname: 'localhost', port, path: '/', agent }, (res) => {
      res.resume();
      res.on('end', resolve);
    }).on('error', reject);
  });
}

async function measure(label, run) {
  for (let index = 0; index < sized(100, 2); index += 1) await run(); // warm-up
  const times = [];
  for (let index = 0; index < ROUNDS; index += 1) {
    const started = performance.now();
    await run();
    times.push(performance.now() - started);
  }
  results[label] = { p50: percentile(times, 50), p95: percentile(times, 95) };
  if (!json) console.log(`${label.padEnd(44)} p50 ${percentile(times, 50).toFixed(3)} ms   p95 ${percentile(times, 95).toFixed(3)} ms`);
}

const addresses = ['93.184.216.34', '127.0.0.1', '::ffff:127.0.0.1', '2606:4700:4700::1111', 'fd00:ec2::254', '169.254.169.254'];
const started = performance.now();
const CLASSIFY = sized(200_000, 100);
for (let index = 0; index < CLASSIFY; index += 1) classifyAddress(addresses[index % addresses.length]);
results.classifyMicroseconds = Number((((performance.now() - started) * 1000) / CLASSIFY).toFixed(2));
if (!json) console.log(`classifyAddress: ${results.classifyMicroseconds} µs per address (mixed IPv4/IPv6)`);

const guarded = () =>
  fetchGuarded(
    { method: 'GET', url: new URL(`http://localhost:${port}/`) },
    { rules: { allowPrivate: true, allowHosts: [] }, timeoutMs: 5000, maxBytes: 2_000_000, maxRedirects: 5 },
  );
await measure('guarded GET (lookup checked, new socket)', guarded);
await measure('plain http.get, new socket (agent: false)', () => plainGet(false));
const keepAlive = new Agent({ keepAlive: true });
await measure('plain http.get, keep-alive socket', () => plainGet(keepAlive));
keepAlive.destroy();
server.closeAllConnections();
server.close();
if (json) console.log(JSON.stringify(results));
