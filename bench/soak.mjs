// Soak under faults: the real daemon (`node dist/main.js start`) serves C chats x M messages through the fake
// Telegram Bot API, each chat sending its next message when the previous one is answered, while the fake LLM
// injects faults on every request: 10 % HTTP 500, 5 % hangs past llm.timeout_s, 5 % malformed tool arguments,
// 5 % calls to a tool that does not exist (a further 10 % are ordinary tool calls; a few chats use the Docker
// sandbox when an engine and familiar-sandbox:test are there). Half-way through the daemon is killed with
// SIGKILL and started again. Pass: every message answered exactly once (an answer or a failure notice), the
// daemon alive at the end and exiting 0 on SIGTERM, RSS at the end within 10 % of RSS after warm-up (both in
// the restarted process), no container left behind.
// Usage: npm run build && node bench/soak.mjs [--chats 100] [--messages 50] [--seed 9] [--no-docker] [--json]
// SOAK_NODE_OPTIONS=... is given to the daemon as NODE_OPTIONS (e.g. --max-old-space-size=64 to tell a leak from heap growth);
// FAMILIAR_V8_DEFAULTS=1 is passed through (the daemon then keeps V8's default heap tuning, to compare).
import { spawn } from 'node:child_process';
import { importFake, mib, rssOf, sized, table, tempDir, writeConfig, MAIN } from './lib.mjs';

const argv = process.argv.slice(2);
const option = (name, fallback) => {
  const index = argv.indexOf(name);
  return index >= 0 && Number.isFinite(Number(argv[index + 1])) ? Number(argv[index + 1]) : fallback;
};
const CHATS = option('--chats', sized(100, 2));
const MESSAGES = option('--messages', sized(50, 4));
const TOTAL = CHATS * MESSAGES;
const WARMUP = Math.max(1, Math.round(TOTAL * 0.1));
const DEADLINE_MS = option('--timeout', 900) * 1000;
const SANDBOX_CHATS = 4;
const LABEL = `soak-${process.pid}`;
const json = argv.includes('--json');
const say = (line) => {
  if (!json) console.error(line);
};

/** A small seeded generator, so two runs inject the same faults in the same order. */
function mulberry32(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = mulberry32(option('--seed', 9));

async function dockerReady() {
  if (argv.includes('--no-docker')) return undefined;
  try {
    const Docker = (await import('dockerode')).default;
    const docker = new Docker({ timeout: 3000 });
    await docker.ping();
    await docker.getImage('familiar-sandbox:test').inspect();
    return docker;
  } catch {
    return undefined;
  }
}
const docker = await dockerReady();
const labelled = async () => (docker ? (await docker.listContainers({ all: true, filters: { label: [`familiar.soak=${LABEL}`] } })).length : 0);

const { startOpenAiServer } = await importFake('openai-server');
const { startTelegramServer } = await importFake('telegram-server');
const llm = await startOpenAiServer();
const telegram = await startTelegramServer();

const injected = { requests: 0, http500: 0, timeout: 0, malformedArguments: 0, unknownTool: 0, toolCall: 0, sandbox: 0 };
const lastUserText = (request) => {
  const content = request.body.messages.filter((message) => message.role === 'user').at(-1)?.content;
  return typeof content === 'string' ? content : '';
};
llm.handle((request) => {
  injected.requests += 1;
  const text = lastUserText(request);
  const roll = random();
  if (roll < 0.10) return (injected.http500 += 1, { status: 500, error: 'injected server error' });
  if (roll < 0.15) return (injected.timeout += 1, { hang: true });
  if (roll < 0.20) return (injected.malformedArguments += 1, { toolCalls: [{ name: 'memory_read', arguments: '{"path": "notes.md", ' }] });
  if (roll < 0.25) return (injected.unknownTool += 1, { toolCalls: [{ name: 'teleport', arguments: { to: 'mars' } }] });
  if (roll < 0.35 && request.body.messages.at(-1)?.role !== 'tool') {
    const chat = Number(/^c(\d+) /.exec(text)?.[1] ?? -1);
    if (docker && chat >= 0 && chat < SANDBOX_CHATS) return (injected.sandbox += 1, { toolCalls: [{ name: 'sandbox_exec', arguments: { command: `echo ${chat}` } }] });
    return (injected.toolCall += 1, { toolCalls: [{ name: 'memory_read', arguments: {} }] });
  }
  return { content: `re: ${text}` };
});

const chatId = (index) => 5000 + index;
const dir = tempDir('familiar-soak-');
const configPath = writeConfig(dir, {
  timezone: 'Europe/Paris', data_dir: './data', memory_dir: './memory', skills_dir: './skills',
  log: { level: 'info', format: 'json' },
  llm: { base_url: llm.baseUrl, api_key: llm.apiKey, model: 'gpt-test', timeout_s: 1, max_retries: 1, max_retry_delay_s: 1 },
  agent: { max_concurrent_turns: 16 },
  channels: { telegram: { token: telegram.token, api_root: telegram.apiRoot, allowed_users: Array.from({ length: CHATS }, (_, index) => chatId(index)) } },
  ...(docker ? { tools: { sandbox: { image: 'familiar-sandbox:test', pool_size: 1, labels: { 'familiar.soak': LABEL } } } } : {}),
});

/** The daemon, with its stderr scanned line by line (not kept: 5000 turns of logs). */
function startDaemon() {
  // --trace-gc prints the heap after each full collection on stdout: the live heap, apart from how big V8 lets it grow.
  const child = spawn(process.execPath, ['--trace-gc', MAIN, 'start', '--config', configPath], {
    cwd: dir, env: { PATH: process.env.PATH, HOME: dir, ...(process.env.SOAK_NODE_OPTIONS ? { NODE_OPTIONS: process.env.SOAK_NODE_OPTIONS } : {}), ...(process.env.FAMILIAR_V8_DEFAULTS ? { FAMILIAR_V8_DEFAULTS: process.env.FAMILIAR_V8_DEFAULTS } : {}) }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  const daemon = { child, replayed: 0, redelivered: 0, errors: 0, tail: [], startedAt: performance.now(), readyMs: undefined, liveHeapMiB: NaN, fullGcs: 0 };
  let gcPending = '';
  child.stdout.on('data', (chunk) => {
    const lines = (gcPending + chunk.toString()).split('\n');
    gcPending = lines.pop() ?? '';
    for (const line of lines) {
      const match = /Mark-Compact[^\d]*[\d.]+ \([\d.]+\) -> ([\d.]+) \(/.exec(line);
      if (match) {
        daemon.liveHeapMiB = Number(match[1]);
        daemon.fullGcs += 1;
      }
    }
  });
  daemon.exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal)));
  daemon.ready = new Promise((resolve) => {
    let pending = '';
    child.stderr.on('data', (chunk) => {
      const lines = (pending + chunk.toString()).split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        if (line.includes('familiar is ready')) {
          daemon.readyMs = performance.now() - daemon.startedAt;
          resolve();
        }
        if (line.includes('answering a message whose turn was cut')) daemon.replayed += 1;
        if (line.includes('redelivered message dropped')) daemon.redelivered += 1;
        if (line.includes('"level":50')) daemon.errors += 1;
        daemon.tail.push(line.slice(0, 400));
        if (daemon.tail.length > 40) daemon.tail.shift();
      }
    });
  });
  return daemon;
}

// The driver: each chat sends its next message when its previous one is answered.
const replies = Array.from({ length: CHATS }, () => []);
const sentCount = new Array(CHATS).fill(0);
let answered = 0;
let lastReplyAt = performance.now();
const sendNext = (index) => {
  if (sentCount[index] >= MESSAGES) return;
  telegram.sendUserMessage({ chatId: chatId(index), userId: chatId(index), text: `c${index} m${sentCount[index]}` });
  sentCount[index] += 1;
};
const milestones = [];
const onMilestone = (count, action) => milestones.push({ count, action });
const push = telegram.sent.push.bind(telegram.sent);
telegram.sent.push = (...items) => {
  for (const item of items) {
    const index = Number(item.chat_id) - 5000;
    if (!(index >= 0 && index < CHATS)) continue;
    replies[index].push(item.text ?? '');
    answered += 1;
    lastReplyAt = performance.now();
    for (const milestone of milestones.filter((entry) => entry.count === answered)) milestone.action();
    sendNext(index);
  }
  return push(...items);
};

const rss = {};
let daemon = startDaemon();
await daemon.ready;
const first = daemon;
say(`soak: ${CHATS} chats x ${MESSAGES} messages, daemon ready in ${first.readyMs.toFixed(0)} ms${docker ? ', sandbox on' : ', no sandbox'}`);
const started = performance.now();
const killed = new Promise((resolve) => {
  onMilestone(WARMUP, () => (rss.firstWarm = rssOf(first.child.pid)));
  onMilestone(Math.floor(TOTAL / 2), () => {
    rss.firstBeforeKill = rssOf(first.child.pid);
    first.child.kill('SIGKILL');
    resolve(performance.now());
  });
});
for (let index = 0; index < CHATS; index += 1) sendNext(index);

const killedAt = await killed;
await first.exited;
const containersAfterKill = await labelled();
say(`soak: killed with SIGKILL after ${answered} answers (${((killedAt - started) / 1000).toFixed(1)} s); ${containersAfterKill} sandbox containers left by it`);
daemon = startDaemon();
const second = daemon;
onMilestone(Math.floor(TOTAL / 2) + WARMUP, () => {
  rss.warm = rssOf(second.child.pid);
  rss.warmHeap = second.liveHeapMiB;
});
await second.ready;
say(`soak: restarted, ready in ${second.readyMs.toFixed(0)} ms`);

// Until every chat has all its answers, then a quiet second and a half to catch any late duplicate.
const deadline = started + DEADLINE_MS;
let progressAt = performance.now();
while (performance.now() < deadline) {
  const done = replies.every((list) => list.length >= MESSAGES);
  if (done && performance.now() - lastReplyAt > 1500) break;
  if (performance.now() - progressAt > 10_000) {
    progressAt = performance.now();
    say(`soak: ${answered}/${TOTAL} answered, RSS ${mib(rssOf(second.child.pid)).toFixed(1)} MiB`);
  }
  await new Promise((resolve) => setTimeout(resolve, 100));
}
const elapsedS = (performance.now() - started) / 1000;
const alive = second.child.exitCode === null && second.child.signalCode === null;
rss.end = alive ? rssOf(second.child.pid) : NaN;
rss.endHeap = second.liveHeapMiB;
second.child.kill('SIGTERM');
const exitCode = await second.exited;
const containersAtEnd = await labelled();
await llm.close();
await telegram.close();

// Exactly once: each chat got exactly M replies, the answers among them each name a different message.
let answers = 0;
let notices = 0;
let duplicates = 0;
let missing = 0;
const noticeKinds = new Map();
for (const [index, list] of replies.entries()) {
  const named = list.filter((text) => text.startsWith('re: '));
  answers += named.length;
  notices += list.length - named.length;
  duplicates += named.length - new Set(named).size + Math.max(0, list.length - MESSAGES);
  missing += Math.max(0, MESSAGES - list.length);
  for (const text of list) {
    if (text.startsWith('re: ')) continue;
    const kind = text.replace(/c\d+ m\d+/g, '…').slice(0, 60);
    noticeKinds.set(kind, (noticeKinds.get(kind) ?? 0) + 1);
  }
  void index;
}
const ratio = rss.end / rss.warm;
const checks = {
  exactlyOnce: duplicates === 0 && missing === 0,
  alive,
  exitCode0: exitCode === 0,
  rssWithin10Percent: ratio <= 1.1,
  noOrphanContainers: containersAtEnd === 0,
};
const results = {
  chats: CHATS, messages: MESSAGES, total: TOTAL, seconds: elapsedS, turnsPerSecond: TOTAL / elapsedS,
  answers, notices, duplicates, missing, noticeKinds: Object.fromEntries(noticeKinds), injected,
  killAfterAnswers: Math.floor(TOTAL / 2), replayedAfterKill: second.replayed, redeliveredDropped: first.redelivered + second.redelivered,
  readyMs: { first: first.readyMs, restart: second.readyMs },
  rssMiB: { firstWarm: mib(rss.firstWarm), firstBeforeKill: mib(rss.firstBeforeKill), warm: mib(rss.warm), end: mib(rss.end), endOverWarm: ratio },
  liveHeapMiB: { warm: rss.warmHeap, end: rss.endHeap, fullGcs: second.fullGcs },
  sandbox: Boolean(docker), containersAfterKill, containersAtEnd, exitCode, checks, pass: Object.values(checks).every(Boolean),
};
if (json) console.log(JSON.stringify(results));
else {
  console.log(table([
    ['soak', 'value'],
    ['messages answered exactly once', `${TOTAL - missing - duplicates}/${TOTAL} (missing ${missing}, duplicates ${duplicates})`],
    ['answers / failure notices', `${answers} / ${notices}`],
    ['LLM requests / injected 500 / hang / bad args / unknown tool', `${injected.requests} / ${injected.http500} / ${injected.timeout} / ${injected.malformedArguments} / ${injected.unknownTool}`],
    ['kill -9 after / replayed after restart', `${results.killAfterAnswers} answers / ${second.replayed} messages`],
    ['time / throughput', `${elapsedS.toFixed(1)} s / ${results.turnsPerSecond.toFixed(1)} messages/s`],
    ['RSS warm -> end (restarted process)', `${mib(rss.warm).toFixed(1)} -> ${mib(rss.end).toFixed(1)} MiB (x${ratio.toFixed(3)})`],
    ['live heap after the last full GC, warm -> end', `${rss.warmHeap} -> ${rss.endHeap} MB (${second.fullGcs} full GCs)`],
    ['RSS first process warm -> before kill', `${mib(rss.firstWarm).toFixed(1)} -> ${mib(rss.firstBeforeKill).toFixed(1)} MiB`],
    ['sandbox containers after kill / at end', docker ? `${containersAfterKill} / ${containersAtEnd}` : 'no engine (skipped)'],
    ['alive at end / exit code on SIGTERM', `${alive} / ${exitCode}`],
    ['result', results.pass ? 'PASS' : `FAIL (${Object.entries(checks).filter(([, ok]) => !ok).map(([name]) => name).join(', ')})`],
  ]));
  for (const [kind, count] of noticeKinds) console.log(`  notice x${count}: ${kind}`);
  if (!results.pass) console.log(second.tail.join("\n"));
  if (process.env.SOAK_DEBUG) for (const [index, list] of replies.entries()) if (list.length !== MESSAGES) console.log(index, JSON.stringify(list));
}
process.exitCode = results.pass ? 0 : 1;
