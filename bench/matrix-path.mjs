// Overhead of the Matrix channel path: the fake homeserver hands a person's message to the bot's /sync -> the fake
// receives the reply (PUT /send), minus the time spent in the LLM, over 200 messages in a direct room (the real
// matrix-js-sdk; the LLM is in-process and answers at once). Also: how long importing matrix-js-sdk takes, the
// cost `familiar start` pays only when channels.matrix is set.
// Usage: npm run build && env -i PATH=$PATH HOME=$HOME node bench/matrix-path.mjs [--json] [--messages N]
import { createDaemon } from '../dist/daemon.js';
import { loadConfig } from '../dist/config/load.js';
import { createLogger } from '../dist/log.js';
import { importFake, percentile, sized, table, tempDir, writeConfig } from './lib.mjs';

const argv = process.argv.slice(2);
const count = Number(argv[argv.indexOf('--messages') + 1]) || sized(200, 3);

let llmMs = 0;
const llm = {
  models: ['instant'],
  async complete() {
    const started = performance.now();
    const response = { content: 'ok', toolCalls: [], usage: { promptTokens: 10, completionTokens: 5 }, model: 'instant', finishReason: 'stop' };
    llmMs += performance.now() - started;
    return response;
  },
};

const importStarted = performance.now();
await import('matrix-js-sdk');
const importMs = performance.now() - importStarted;

const { startMatrixServer } = await importFake('matrix-server');
const matrix = await startMatrixServer();
const owner = '@owner:example.org';
const room = matrix.createRoom({ members: [owner] });
const dir = tempDir();
const configPath = writeConfig(dir, {
  data_dir: './data', memory_dir: './memory', timezone: 'Europe/Paris', log: { level: 'silent' },
  channels: { matrix: { homeserver_url: matrix.baseUrl, access_token: matrix.accessToken, allowed_users: [owner] } },
});
const app = await createDaemon({ loaded: loadConfig({ configPath, env: {} }), log: createLogger({ level: 'silent', format: 'json', secrets: [] }), llm, mode: 'daemon' });
await app.start();

// The moment the fake records a bot message (its `sent` is a plain array).
let replied;
const push = matrix.sent.push.bind(matrix.sent);
matrix.sent.push = (...items) => {
  if (items.some((item) => item.type === 'm.room.message')) replied?.(performance.now());
  return push(...items);
};

const overheads = [];
const llmTimes = [];
for (let index = 0; index < count + 20; index += 1) {
  const reply = new Promise((resolve) => { replied = resolve; });
  llmMs = 0;
  const started = performance.now();
  matrix.say(room, owner, `message ${index}`);
  const at = await reply;
  if (index >= 20) {
    overheads.push(at - started - llmMs);
    llmTimes.push(llmMs);
  }
}
await app.close(1000);
await matrix.close();
// matrix-js-sdk leaves a ref'd 110 s timer per request (its AbortSignal.timeout ponyfill): the daemon exits past it
// (cli/start.ts), and so does this script once it has printed.
setTimeout(() => process.exit(0), 100).unref();

const results = { messages: count, importMs, p50: percentile(overheads, 50), p95: percentile(overheads, 95) };
if (argv.includes('--json')) console.log(JSON.stringify(results));
else {
  console.log(table([
    ['matrix path (ms, minus LLM)', 'messages', 'p50', 'p95', 'llm p50'],
    ['matrix (direct room, /sync)', overheads.length, results.p50.toFixed(2), results.p95.toFixed(2), percentile(llmTimes, 50).toFixed(3)],
  ]));
  console.log(`import matrix-js-sdk: ${importMs.toFixed(0)} ms (paid at start only when channels.matrix is set)`);
}
