// Sandbox latency on the real Docker engine, side by side: sandbox_exec of `true` and of a short python command
// on a warm pooled container (through the tool registry), against a cold create+start+exec+remove per call with
// the same hardening; the file tools' write and read; then the time to the first call after the daemon starts with
// pool_size 2.
// Usage: npm run build && node bench/sandbox.mjs [image] [--json]     (default familiar-sandbox:test; needs a Docker engine)
import { createDaemon } from '../dist/daemon.js';
import { loadConfig } from '../dist/config/load.js';
import { createLogger } from '../dist/log.js';
import { runExec } from '../dist/sandbox/exec.js';
import { percentile, sized, table, tempDir, writeConfig } from './lib.mjs';

const IMAGE = process.argv.slice(2).find((arg) => !arg.startsWith('--')) ?? 'familiar-sandbox:test';
const CALLS = sized(50, 2);
const origin = { channel: 'cli', chatId: 'bench' };
/** This run's label on its containers: a warm container still being made when a daemon closed is removed at the end. */
const RUN = `sandbox-${process.pid}`;

async function removeLeftovers() {
  const { default: Docker } = await import('dockerode');
  const docker = new Docker();
  const left = await docker.listContainers({ all: true, filters: { label: [`familiar.bench=${RUN}`] } });
  await Promise.all(left.map((info) => docker.getContainer(info.Id).remove({ force: true })));
}
const PYTHON = "python3 -c 'print(6*7)'";

async function makeApp(poolSize) {
  const dir = tempDir();
  const configPath = writeConfig(dir, {
    data_dir: './data', memory_dir: './memory', log: { level: 'silent' },
    llm: { base_url: 'http://127.0.0.1:9/v1', api_key: 'unused' },
    tools: { sandbox: { image: IMAGE, pool_size: poolSize, labels: { 'familiar.bench': RUN } } },
  });
  const loaded = loadConfig({ configPath, env: {} });
  const app = await createDaemon({ loaded, log: createLogger({ level: 'silent', format: 'json', secrets: [] }), mode: 'daemon' });
  if (!app.sandbox) throw new Error(`no sandbox (is the engine running and ${IMAGE} built?)`);
  return app;
}

async function exec(app, conversationId, command) {
  const outcome = await app.tools.execute({ name: 'sandbox_exec', arguments: { command }, conversationId, turnId: 'bench', origin });
  if (!outcome.result.success) throw new Error(outcome.result.output);
  return outcome;
}

async function times(count, run) {
  const values = [];
  for (let index = 0; index < count; index += 1) {
    const started = performance.now();
    await run(index);
    values.push(performance.now() - started);
  }
  return values;
}

const row = (label, values) => [label, `p50 ${percentile(values, 50).toFixed(1)} ms`, `p95 ${percentile(values, 95).toFixed(1)} ms`];

// Warm: one conversation keeps its container; every call is one exec. Interleaved with the same exec through
// ContainerPool.run (no registry) and through dockerode alone, so load on the machine hits all three alike.
const app = await makeApp(2);
await app.start();
await exec(app, 'warm', 'true');
const pool = app.sandbox;
const session = await pool.acquire('warm');
const warmTrue = [];
const poolTrue = [];
const rawTrue = [];
for (let index = 0; index < CALLS; index += 1) {
  warmTrue.push(...(await times(1, () => exec(app, 'warm', 'true'))));
  poolTrue.push(...(await times(1, () => pool.run('warm', { command: 'true', timeoutMs: 30_000 }))));
  rawTrue.push(...(await times(1, () => runExec(session.box.container, { cmd: ['true'], outputBytes: 65536, signal: new AbortController().signal }))));
}
const warmPython = await times(CALLS, () => exec(app, 'warm', PYTHON));

// The file tools on the host side: each call opens the workspace and walks the path through pinned folders.
const tool = async (name, args) => {
  const outcome = await app.tools.execute({ name, arguments: args, conversationId: 'warm', turnId: 'bench', origin });
  if (!outcome.result.success) throw new Error(outcome.result.output);
};
const KB = 'x'.repeat(1023) + '\n';
const fileWrite = await times(CALLS, (index) => tool('write', { path: `bench/deep/file-${index % 5}.txt`, content: KB }));
const fileRead = await times(CALLS, (index) => tool('read', { path: `bench/deep/file-${index % 5}.txt` }));

// Cold: a container per call (create, start, exec, force-remove), same limits and mount.
const workspace = await pool.workspaces.ensure('cold');
const cold = (command) => () => pool.runOneOff(workspace, { cmd: ['/bin/bash', '-c', command], timeoutMs: 30_000, network: 'none' });
const coldTrue = await times(CALLS, cold('true'));
const coldPython = await times(CALLS, cold(PYTHON));

// A new conversation taking a warm container (folder rename + exec), with the pool refilled before each.
const fresh = [];
for (let index = 0; index < sized(10, 1); index += 1) {
  while (pool.warmCount < 2) await new Promise((resolve) => setTimeout(resolve, 20));
  const started = performance.now();
  await exec(app, `fresh-${index}`, 'true');
  fresh.push(performance.now() - started);
}
await app.close(0);

// Time to the first call after start with pool_size 2 (fresh data folder each time).
const firstCall = [];
const poolReady = [];
for (let round = 0; round < sized(5, 1); round += 1) {
  const started = performance.now();
  const daemon = await makeApp(2);
  await daemon.start();
  await exec(daemon, 'first', 'true');
  firstCall.push(performance.now() - started);
  while (daemon.sandbox.warmCount < 2) await new Promise((resolve) => setTimeout(resolve, 10));
  poolReady.push(performance.now() - started);
  await daemon.close(0);
}
await removeLeftovers();

const stats = (values) => ({ p50: percentile(values, 50), p95: percentile(values, 95) });
if (process.argv.includes('--json')) {
  console.log(JSON.stringify({
    image: IMAGE, calls: CALLS, warmTrue: stats(warmTrue), poolTrue: stats(poolTrue), rawTrue: stats(rawTrue), coldTrue: stats(coldTrue),
    warmPython: stats(warmPython), fileWrite: stats(fileWrite), fileRead: stats(fileRead), coldPython: stats(coldPython), freshHandOver: stats(fresh), firstCallAfterStart: stats(firstCall), poolReady: stats(poolReady),
  }));
  process.exit(0);
}
console.log(`sandbox_exec on ${IMAGE}, ${CALLS} calls each`);
console.log(table([
  row('warm `true`', warmTrue),
  row('  same exec, ContainerPool.run only', poolTrue),
  row('  same exec, dockerode alone', rawTrue),
  row('cold `true` (create+start+exec+remove)', coldTrue),
  row(`warm ${PYTHON}`, warmPython),
  row(`cold ${PYTHON}`, coldPython),
  row('write 1 KB, bench/deep/ (file tool)', fileWrite),
  row('read the same file (file tool)', fileRead),
  row('new conversation, warm hand-over, `true`', fresh),
  row('first call after start (createDaemon+start+call)', firstCall),
  row('pool of 2 warm after start', poolReady),
]));
console.log(`speed-up warm vs cold (p50): true ${(percentile(coldTrue, 50) / percentile(warmTrue, 50)).toFixed(1)}x, python ${(percentile(coldPython, 50) / percentile(warmPython, 50)).toFixed(1)}x`);
