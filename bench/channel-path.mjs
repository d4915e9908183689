// Overhead of the Telegram channel path: the fake Bot API receives the user's message -> the fake receives
// the reply, minus the time spent in the LLM, over 200 messages (long polling through the real grammy).
// Same for Discord DMs (gateway dispatch -> REST reply). The LLM is in-process and answers at once.
// Usage: npm run build && node bench/channel-path.mjs [--json] [--messages N]
import { createDaemon } from '../dist/daemon.js';
import { loadConfig } from '../dist/config/load.js';
import { createLogger } from '../dist/log.js';
import { importFake, percentile, sized, table, tempDir, writeConfig } from './lib.mjs';

const argv = process.argv.slice(2);
const count = Number(argv[argv.indexOf('--messages') + 1]) || sized(200, 3);

/** Calls `onRecord` the moment the fake records a bot message (its arrays are plain arrays). */
function watchPush(array, onRecord) {
  const push = array.push.bind(array);
  array.push = (...items) => {
    onRecord(performance.now());
    return push(...items);
  };
}

let llmMs = 0;
const usage = { promptTokens: 10, completionTokens: 5 };
const llm = {
  models: ['instant'],
  async complete() {
    const started = performance.now();
    const response = { content: 'ok', toolCalls: [], usage, model: 'instant', finishReason: 'stop' };
    llmMs += performance.now() - started;
    return response;
  },
};

const { startTelegramServer } = await importFake('telegram-server');
const { startDiscordServer } = await importFake('discord-server');
const telegram = await startTelegramServer();
const discord = await startDiscordServer();
const dir = tempDir();
const configPath = writeConfig(dir, {
  data_dir: './data', memory_dir: './memory', timezone: 'Europe/Paris', log: { level: 'silent' },
  channels: {
    telegram: { token: telegram.token, api_root: telegram.apiRoot, allowed_users: [1] },
    discord: { token: discord.token, api_url: discord.restApi, allowed_users: ['2'] },
  },
});
const app = await createDaemon({ loaded: loadConfig({ configPath, env: {} }), log: createLogger({ level: 'silent', format: 'json', secrets: [] }), llm, mode: 'daemon' });
await app.start();

let replied;
watchPush(telegram.sent, (at) => replied?.(at));
watchPush(discord.messages, (at) => replied?.(at));

async function measure(send) {
  const overheads = [];
  const llmTimes = [];
  for (let index = 0; index < count + 20; index += 1) {
    const reply = new Promise((resolve) => { replied = resolve; });
    llmMs = 0;
    const started = performance.now();
    send(index);
    const at = await reply;
    if (index >= 20) {
      overheads.push(at - started - llmMs);
      llmTimes.push(llmMs);
    }
  }
  return { overheads, llmTimes };
}

const tg = await measure((index) => telegram.sendUserMessage({ chatId: 1, userId: 1, text: `message ${index}` }));
const dc = await measure((index) => discord.sendUserMessage({ userId: '2', content: `message ${index}`, dm: true }));
await app.close(1000);
await telegram.close();
await discord.close();

const row = (name, { overheads, llmTimes }) => [
  name, overheads.length, percentile(overheads, 50).toFixed(2), percentile(overheads, 95).toFixed(2), percentile(llmTimes, 50).toFixed(3),
];
const results = {
  messages: count,
  telegram: { p50: percentile(tg.overheads, 50), p95: percentile(tg.overheads, 95) },
  discord: { p50: percentile(dc.overheads, 50), p95: percentile(dc.overheads, 95) },
};
if (argv.includes('--json')) console.log(JSON.stringify(results));
else {
  console.log(table([
    ['channel path (ms, minus LLM)', 'messages', 'p50', 'p95', 'llm p50'],
    row('telegram (long polling)', tg),
    row('discord (DM)', dc),
  ]));
  console.log('target: telegram p50 <= 20 ms');
}
