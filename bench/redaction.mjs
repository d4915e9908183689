// What redaction costs: CPU time per log line and per child logger with no secrets and with five configured
// secrets (each redacted in ~15 encoded forms), and per tool output of 16 KB. CPU time (process.cpuUsage), not
// wall time, so other load on the machine moves the figures less.
// Usage: npm run build && node bench/redaction.mjs [--json]
import { Writable } from 'node:stream';
import { createLogger } from '../dist/log.js';
import { createRedactor } from '../dist/lib/redaction.js';
import { sized, table } from './lib.mjs';

const SECRETS = ['sk-bench-0123456789abcdef', 'tg-123456:bench-token-value', 'p@ss"word\\bench', 'alice:hunter2-pass', 'hunter2-pass'];
const sink = () => new Writable({ write: (_chunk, _encoding, callback) => callback() });

function cpuMicros(full, fn) {
  const count = sized(full, 50);
  for (let index = 0; index < Math.min(count, 20_000); index += 1) fn(index); // warm-up
  const started = process.cpuUsage();
  for (let index = 0; index < count; index += 1) fn(index);
  const used = process.cpuUsage(started);
  return (used.user + used.system) / count;
}

function logCosts(secrets) {
  const log = createLogger({ level: 'debug', format: 'json', secrets, destination: sink() });
  const child = log.child({ component: 'agent' }).child({ conversation: 'telegram-1001-abc', turn: 't-123' });
  const long = 'x'.repeat(2000);
  return {
    line: cpuMicros(200_000, () => child.debug({ tool: 'memory_read', callId: 'call_1', ms: 3 }, 'tool call finished')),
    child: cpuMicros(50_000, (index) => log.child({ tool: 'memory_read', callId: `c${index}` })),
    line2k: cpuMicros(50_000, () => child.info({ result: long }, 'job result')),
  };
}

const words = 'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor'.split(' ');
let output = '';
for (let index = 0; output.length < 16_000; index += 1) output += `${words[index % words.length]} `;
const redactor = createRedactor(SECRETS);
const none = logCosts([]);
const five = logCosts(SECRETS);
const results = {
  log_line_us_no_secrets: none.line, log_line_us_5_secrets: five.line,
  child_logger_us_no_secrets: none.child, child_logger_us_5_secrets: five.child,
  log_line_2kb_us_no_secrets: none.line2k, log_line_2kb_us_5_secrets: five.line2k,
  tool_output_16kb_us_5_secrets: cpuMicros(5_000, () => redactor.text(output)),
};
if (process.argv.includes('--json')) console.log(JSON.stringify(results));
else {
  const f = (value) => `${value.toFixed(2)} µs`;
  console.log(table([
    ['CPU time per', 'no secrets', '5 secrets'],
    ['log line (3 fields)', f(results.log_line_us_no_secrets), f(results.log_line_us_5_secrets)],
    ['child logger', f(results.child_logger_us_no_secrets), f(results.child_logger_us_5_secrets)],
    ['log line with a 2 KB field', f(results.log_line_2kb_us_no_secrets), f(results.log_line_2kb_us_5_secrets)],
    ['tool output of 16 KB', '—', f(results.tool_output_16kb_us_5_secrets)],
  ]));
}
