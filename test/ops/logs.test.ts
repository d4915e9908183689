import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { createLogger } from '../../src/log.js';
import { startOpenAiServer } from '../fakes/openai-server.js';
import { tempDir, writeTestConfig } from '../helpers/app.js';
import { MAIN, startDaemon, waitUntil } from '../helpers/daemon.js';
import { captureIo } from '../helpers/io.js';

const line = (level: number, time: number, msg: string, extra: Record<string, unknown> = {}) => JSON.stringify({ level, time, pid: 1, msg, ...extra });

function logsFixture() {
  const dir = tempDir();
  const config = writeTestConfig(dir, undefined);
  const logs = path.join(dir, 'data', 'logs');
  mkdirSync(logs, { recursive: true });
  const now = Date.now();
  // Oldest first across the rotated files: .2 is older than .1, which is older than the current file.
  writeFileSync(path.join(logs, 'familiar.log.2'), `${line(30, now - 5 * 3600_000, 'five hours ago')}\n`);
  writeFileSync(path.join(logs, 'familiar.log.1'), `${line(40, now - 3 * 3600_000, 'three hours ago, a warning')}\n${line(20, now - 2 * 3600_000, 'two hours ago, debug')}\n`);
  writeFileSync(path.join(logs, 'familiar.log'), `${line(30, now - 60_000, 'a minute ago', { component: 'agent' })}\nnot json: a torn line\n${line(50, now - 1000, 'just now, an error')}\n`);
  const run = async (...args: string[]) => {
    const io = captureIo();
    const code = await runCli(['logs', ...args, '--config', config], io);
    return { code, out: io.out(), err: io.err() };
  };
  return { dir, config, logs, run };
}

describe('the daemon log file', () => {
  it('is written by familiar start in data_dir/logs as JSON (mode 0600), while stderr keeps the log too', async () => {
    const fake = await startOpenAiServer();
    const dir = tempDir();
    writeTestConfig(dir, fake);
    const daemon = startDaemon(dir, { TEST_LLM_KEY: fake.apiKey });
    try {
      await daemon.ready;
      const file = path.join(dir, 'data', 'logs', 'familiar.log');
      const text = await waitUntil(() => existsSync(file) && readFileSync(file, 'utf8').includes('familiar is ready') && readFileSync(file, 'utf8'), 10_000, 'the log file');
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
      const ready = text.split('\n').filter(Boolean).map((entry) => JSON.parse(entry) as { msg: string; level: number }).find((entry) => entry.msg === 'familiar is ready');
      expect(ready?.level).toBe(30);
      expect(daemon.stderr()).toContain('familiar is ready');
      // No key in the file either: the same redaction as every line.
      expect(text).not.toContain(fake.apiKey);
    } finally {
      expect(await daemon.term()).toBe(0);
      await fake.close();
    }
  });

  it('redacts every configured secret in the file, as on stderr', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'logs', 'familiar.log');
    const secret = 'sk-secret-value-987654321';
    const screen: string[] = [];
    const log = createLogger({ level: 'debug', format: 'json', secrets: [secret], file: { path: file, maxMb: 1, count: 2 }, destination: { write: (text: string) => screen.push(text) } });
    log.info({ config: { llm: { api_key: secret } }, url: `https://x.example/?key=${secret}` }, `the key is ${secret}`);
    log.child({ header: `Bearer ${secret}` }).warn('child line');
    const text = await waitUntil(() => existsSync(file) && readFileSync(file, 'utf8').includes('child line') && readFileSync(file, 'utf8'), 5000, 'the lines');
    expect(text).toContain('[REDACTED]');
    expect(text).not.toContain(secret);
    expect(screen.join('')).not.toContain(secret);
  });

  it('is rotated at log.file_max_mb, keeping log.file_count older files', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'familiar.log');
    const log = createLogger({ level: 'info', format: 'json', secrets: [], file: { path: file, maxMb: 2 / 1024, count: 2 }, destination: { write: () => undefined } });
    for (let index = 0; index < 200; index += 1) log.info({ index }, 'a line of about a hundred bytes to fill the file quickly');
    await waitUntil(() => existsSync(file) && readFileSync(file, 'utf8').includes('"index":199') && existsSync(`${file}.2`), 10_000, 'the rotations');
    expect(readdirSync(dir).sort()).toEqual(['familiar.log', 'familiar.log.1', 'familiar.log.2']);
    for (const name of readdirSync(dir)) expect(statSync(path.join(dir, name)).size).toBeLessThan(2048 + 200);
  });
});

describe('familiar logs', () => {
  it('prints the last lines of the current and rotated files, oldest first, readably', async () => {
    const { run } = logsFixture();
    const result = await run();
    expect(result.code).toBe(0);
    const lines = result.out.trimEnd().split('\n');
    expect(lines.map((entry) => entry.replace(/^\[[^\]]+\] /, ''))).toEqual([
      'INFO: five hours ago',
      'WARN: three hours ago, a warning',
      'DEBUG: two hours ago, debug',
      'INFO: a minute ago {"component":"agent"}',
      'not json: a torn line',
      'ERROR: just now, an error',
    ]);
    expect(lines[0]).toMatch(/^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}\] /);
    expect((await run('--lines', '2')).out.trimEnd().split('\n')).toHaveLength(2);
  });

  it('filters by --level and --since, and prints the JSON lines as written with --json', async () => {
    const { run, logs } = logsFixture();
    expect((await run('--level', 'warn')).out).toMatch(/WARN: three hours ago[^\n]*\nnot json: a torn line\n[^\n]*ERROR: just now/);
    const recent = await run('--since', '150m');
    expect(recent.out).not.toContain('three hours ago');
    expect(recent.out).toContain('two hours ago');
    const iso = await run('--since', new Date(Date.now() - 90_000).toISOString());
    expect(iso.out).toMatch(/^\[[^\]]+\] INFO: a minute ago/);
    const json = await run('--json', '--lines', '1');
    expect(json.out).toBe(`${readFileSync(path.join(logs, 'familiar.log'), 'utf8').trimEnd().split('\n').at(-1)}\n`);
  });

  it('refuses a bad --level or --since with exit 2, and says when there is no file or it is off', async () => {
    const { run } = logsFixture();
    expect(await run('--level', 'loud')).toMatchObject({ code: 2, err: 'familiar logs: --level loud: give one of trace, debug, info, warn, error, fatal\n' });
    expect((await run('--since', 'yesterdayish')).code).toBe(2);
    const empty = tempDir();
    const config = writeTestConfig(empty, undefined);
    const io = captureIo();
    expect(await runCli(['logs', '--config', config], io)).toBe(1);
    expect(io.err()).toMatch(/no log file yet at .*data\/logs\/familiar\.log/);
    const off = tempDir();
    const offConfig = writeTestConfig(off, undefined, { log: { level: 'info', format: 'json', file: 'off' } });
    const offIo = captureIo();
    expect(await runCli(['logs', '--config', offConfig], offIo)).toBe(1);
    expect(offIo.err()).toMatch(/keeps no log file \(log\.file: off/);
  });

  it('--follow prints new lines as they are written, across a rotation, until Ctrl-C', async () => {
    const { dir, config, logs } = logsFixture();
    const file = path.join(logs, 'familiar.log');
    const child = spawn(process.execPath, [MAIN, 'logs', '--follow', '--json', '--lines', '0', '--config', config], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    // The follower starts at the end of the file (--lines 0): a line is new to it once it has the file open. Waiting
    // for the open itself (not a fixed pause) holds on a loaded machine, where starting a process takes seconds.
    const opened = (): boolean => readdirSync(`/proc/${child.pid}/fd`).some((fd) => {
      try {
        return readlinkSync(`/proc/${child.pid}/fd/${fd}`) === file;
      } catch {
        return false;
      }
    });
    await waitUntil(opened, 20_000, 'the follower to open the log');
    appendFileSync(file, `${line(30, Date.now(), 'appended')}\n`);
    await waitUntil(() => out.includes('appended'), 10_000, 'the appended line');
    // Rotation as the daemon does it: the file becomes .1 (after one last line), a new file starts.
    appendFileSync(file, `${line(30, Date.now(), 'last line before rotation')}\n`);
    renameSync(file, `${file}.1`);
    writeFileSync(file, `${line(30, Date.now(), 'first line after rotation')}\n`);
    await waitUntil(() => out.includes('first line after rotation'), 10_000, 'the line after the rotation');
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(out.trimEnd().split('\n').map((entry) => (JSON.parse(entry) as { msg: string }).msg)).toEqual(['appended', 'last line before rotation', 'first line after rotation']);
  });
});
