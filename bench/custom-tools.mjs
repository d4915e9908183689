// Your own tools: what loading and reloading modules costs, and what a call through a module or a hook adds.
// Run: npm run build && node bench/custom-tools.mjs [--json]
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createDaemon } from '../dist/daemon.js';
import { loadConfig } from '../dist/config/load.js';
import { createLogger } from '../dist/log.js';
import { percentile, reporter, sized, tempDir, writeConfig } from './lib.mjs';

const { report, finish } = reporter();
const log = createLogger({ level: 'silent', format: 'json', secrets: [] });
const stats = (times) => ({ p50: percentile(times, 50), p95: percentile(times, 95) });

const moduleText = (name, suffix = '') => `import { defineTool } from 'familiar';
export default defineTool({ name: '${name}', description: 'bench', parameters: { type: 'object', properties: { n: { type: 'integer' } } },
  execute: ({ n }) => 'got ' + n + '${suffix}' });
`;

async function daemonWith(files) {
  const dir = tempDir();
  const toolsDir = path.join(dir, 'tools');
  mkdirSync(toolsDir);
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(toolsDir, name), text);
  const configPath = writeConfig(dir, { data_dir: './data', memory_dir: './memory', tools_dir: './tools', log: { level: 'silent', format: 'json' }, llm: { api_key: 'sk-bench-0000' } });
  const started = performance.now();
  const app = await createDaemon({ loaded: loadConfig({ configPath, env: {} }), log, mode: 'command' });
  return { app, toolsDir, ms: performance.now() - started };
}

// Making the daemon with no module, then with 20 (the first import also registers Node's module hooks).
const empty = await daemonWith({});
await empty.app.close(0);
const twenty = Object.fromEntries(Array.from({ length: 20 }, (_, index) => [`tool_${index}.mjs`, moduleText(`tool_${index}`)]));
const loaded = await daemonWith(twenty);
report('make the daemon, no module / 20 modules', { none: empty.ms, twenty: loaded.ms }, `make the daemon, no module / 20 modules:   ${empty.ms.toFixed(0)} / ${loaded.ms.toFixed(0)} ms`);

// One module edited among 20: the folder is read again and every module imported anew.
const reloads = [];
for (let round = 0; round < sized(15, 2); round += 1) {
  writeFileSync(path.join(loaded.toolsDir, 'tool_0.mjs'), moduleText('tool_0', ` v${round}`));
  const started = performance.now();
  await loaded.app.customTools.reload();
  reloads.push(performance.now() - started);
}
report('reload after one edit, 20 modules', stats(reloads), `reload after one edit, 20 modules:         p50 ${percentile(reloads, 50).toFixed(1)} ms  p95 ${percentile(reloads, 95).toFixed(1)} ms`);

// A TypeScript module (compiled by esbuild on load).
writeFileSync(path.join(loaded.toolsDir, 'typed.ts'), `import { defineTool } from 'familiar';\ninterface P { n: number }\nexport default defineTool<P>({ name: 'typed', description: 'b', parameters: { type: 'object' }, execute: (p: P) => String(p.n) });\n`);
const tsStarted = performance.now();
await loaded.app.customTools.reload();
report('reload with one .ts module added', performance.now() - tsStarted, `reload with one .ts module added:          ${(performance.now() - tsStarted).toFixed(1)} ms`);

// A call through the registry: a module's tool vs a tool registered in code, then with a before and an after hook.
loaded.app.tools.register({ name: 'native', description: 'b', parameters: { type: 'object', properties: { n: { type: 'integer' } } }, execute: async ({ n }) => ({ success: true, output: `got ${n}` }) });
async function perCall(name, count) {
  const times = [];
  for (let index = 0; index < count; index += 1) {
    const started = performance.now();
    await loaded.app.tools.execute({ name, arguments: { n: index }, conversationId: 'bench', turnId: 't', origin: { channel: 'cli', chatId: 'b' } });
    times.push(performance.now() - started);
  }
  return times;
}
await perCall('tool_1', sized(300, 5));
await perCall('native', sized(300, 5));
const viaModule = await perCall('tool_1', sized(2000, 10));
const native = await perCall('native', sized(2000, 10));
report('registry call, module tool vs in-code tool', { module: stats(viaModule), native: stats(native) }, `registry call, module tool vs in-code tool: p50 ${percentile(viaModule, 50).toFixed(3)} vs ${percentile(native, 50).toFixed(3)} ms`);
loaded.app.tools.on('tool:before', ({ params }) => ({ params: { ...params } }));
loaded.app.tools.on('tool:after', () => undefined);
const hooked = await perCall('native', sized(2000, 10));
report('registry call with a before and an after hook', stats(hooked), `registry call with a before and an after hook: p50 ${percentile(hooked, 50).toFixed(3)} ms  p95 ${percentile(hooked, 95).toFixed(3)} ms`);
await loaded.app.close(0);

finish();
