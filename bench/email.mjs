// Email tool latency against the private Dovecot + Postfix of the tests, through the built tool (dist/):
// first call (imapflow load + TLS + login + select), warm list/search/read on the reused connection, send over SMTP,
// and the cost of loading the mail libraries that the daemon defers to first use.
// Usage: bash scripts/setup-mail.sh && npm run build && node bench/email.mjs [--json]   (needs root, like the tests)
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pino } from 'pino';
import ts from 'typescript';
import { percentile, reporter, ROOT, sized } from './lib.mjs';

const ROUNDS = sized(200, 3);
const { report, finish } = reporter();

// The mail-server helper is TypeScript (test/helpers); transpile it next to node_modules so its imports resolve.
const helperSource = readFileSync(path.join(ROOT, 'test/helpers/mail-server.ts'), 'utf8');
const cacheDir = path.join(ROOT, 'node_modules/.cache/familiar-bench');
mkdirSync(cacheDir, { recursive: true });
const helperFile = path.join(cacheDir, 'mail-server.mjs');
writeFileSync(helperFile, ts.transpileModule(helperSource, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText);
const { startMailServer, appendMessage } = await import(helperFile);

let started = performance.now();
const { ImapSession } = await import('../dist/tools/email/imap.js');
const { SmtpSender } = await import('../dist/tools/email/send.js');
const { createEmailTool } = await import('../dist/tools/email/tool.js');
report('importToolMs', performance.now() - started, `import the email tool modules (no mail libraries): ${(performance.now() - started).toFixed(1)} ms`);
started = performance.now();
await Promise.all([import('imapflow'), import('mailparser'), import('nodemailer'), import('html-to-text')]);
report('loadMailLibrariesMs', performance.now() - started, `load imapflow + mailparser + nodemailer + html-to-text (deferred to first use): ${(performance.now() - started).toFixed(1)} ms`);

const server = await startMailServer();
try {
  const { me } = server.users;
  const log = pino({ level: 'silent' });
  const endpoint = { host: server.host, port: server.imapPort, secure: false, user: me.user, password: me.password };
  const settings = { imap: endpoint, smtp: { ...endpoint, port: server.smtpPort, from: me.address }, ca: server.ca, allowSend: true };
  const session = new ImapSession({ endpoint, ca: server.ca, log });
  const sender = new SmtpSender({ endpoint: settings.smtp, ca: server.ca, log });
  const tool = createEmailTool({ settings, session, sender });
  const dataDir = path.join(server.dir, 'bench-data');
  const ctx = {
    config: { timezone: 'UTC', data_dir: dataDir, tools: { output_chars: 16000 } },
    log, conversationId: 'bench', signal: new AbortController().signal,
  };
  for (let index = 0; index < 50; index += 1) {
    await appendMessage(server, 'me', `From: Alice <alice@familiar.test>\r\nTo: ${me.address}\r\nSubject: bench ${index}\r\nMessage-ID: <bench-${index}@familiar.test>\r\n\r\nHello ${index}\r\n`);
  }
  const call = async (params) => {
    const result = await tool.execute(params, ctx);
    if (!result.success) throw new Error(result.output);
    return result;
  };
  started = performance.now();
  await call({ action: 'list', limit: 20 });
  report('firstListMs', performance.now() - started, `first list (TLS via STARTTLS, login, EXAMINE, fetch 20): ${(performance.now() - started).toFixed(1)} ms`);

  async function measure(label, params, rounds = ROUNDS) {
    const times = [];
    for (let index = 0; index < rounds; index += 1) {
      const begin = performance.now();
      await call(typeof params === 'function' ? params(index) : params);
      times.push(performance.now() - begin);
    }
    report(label, { p50: percentile(times, 50), p95: percentile(times, 95), n: rounds }, `${label.padEnd(44)} p50 ${percentile(times, 50).toFixed(2)} ms   p95 ${percentile(times, 95).toFixed(2)} ms   (n=${rounds})`);
  }
  await measure('list 20 (reused connection)', { action: 'list', limit: 20 });
  await measure('search from + subject', { action: 'search', from: 'alice', subject: 'bench 4' });
  await measure('read one message (parse + format)', (index) => ({ action: 'read', uid: (index % 50) + 1 }));
  await measure('send to self (SMTP: TLS, auth, submit)', (index) => ({ action: 'send', to: me.address, subject: `sent ${index}`, body: 'x' }), 30);
  report('imapLogins', session.logins, `IMAP logins for all of the above: ${session.logins}`);
  sender.close();
  await session.close();
} finally {
  await server.stop();
}
finish();
