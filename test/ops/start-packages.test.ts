// What `familiar start` loads on its way to ready, and `tools list` with every part configured: packages for rare
// paths (links in outside text, a speech engine's command line, a misspelt config key, a .env file, a memory write,
// the first message formatted, the first glob) are loaded at their first use, not with every start or command;
// loading one through Node's module loader costs 2–8 ms. Checked on the built daemon (`npm run build` first), in a
// child whose every package load is recorded: ES module resolutions through a resolve hook, CommonJS ones through
// Module._load.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/app.js';
import { recordingImport } from '../helpers/resolutions.js';

const LAZY = ['linkify-it', 'shell-quote', 'fastest-levenshtein', 'dotenv', 'diff', 'marked', 'minimatch'];

/**
 * The packages (by name) `familiar <args>` loaded in this config folder: until it said it was ready for `start`, until
 * it exited for a one-shot command.
 */
async function packagesLoaded(dir: string, args: string[] = ['start']): Promise<Set<string>> {
  const child = spawn(process.execPath, ['--import', recordingImport({ requires: true }), path.resolve('dist/main.js'), ...args], {
    cwd: dir, env: { PATH: process.env.PATH ?? '', HOME: dir }, stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const daemon = args[0] === 'start';
  await new Promise<void>((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (daemon && stderr.includes('familiar is ready')) resolve();
    });
    child.on('close', (code) => (!daemon && code === 0 ? resolve() : reject(new Error(`familiar ${args.join(' ')} exited (${code}): ${stderr.slice(-800)}`))));
  });
  const atReady = daemon ? stderr.slice(0, stderr.indexOf('familiar is ready')) : stderr;
  if (daemon) {
    child.removeAllListeners('close');
    await new Promise((resolve) => {
      child.on('close', resolve);
      child.kill('SIGTERM');
    });
  }
  const names = new Set<string>();
  for (const line of atReady.split('\n')) {
    const match = /^RESOLVED .*\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(line);
    if (match) names.add(match[1]!);
  }
  return names;
}

describe('familiar start, on its way to ready', () => {
  it('loads no package that only a rare path uses', async () => {
    const dir = tempDir('familiar-start-packages-');
    writeFileSync(path.join(dir, 'config.yaml'), 'timezone: UTC\ndata_dir: ./data\nmemory_dir: ./memory\n');
    const loaded = await packagesLoaded(dir);
    // The recording works: SQLite's binding is loaded through Module._load, pino's fold through it too.
    expect([...loaded].some((name) => name.startsWith('better-sqlite3'))).toBe(true);
    expect(LAZY.filter((name) => loaded.has(name))).toEqual([]);
  }, 60_000);

  it('loads none of the Node modules that only a rare path uses (compression, child processes, assertions, crypto)', async () => {
    // pino and rotating-file-stream require the first three at load, 40 of our modules crypto (scripts/bundle.mjs has
    // them required on first use): 1.5–3 ms each a start. A preloaded file says which Node modules are loaded when asked (SIGUSR2), after ready.
    const dir = tempDir('familiar-start-packages-');
    writeFileSync(path.join(dir, 'config.yaml'), 'timezone: UTC\ndata_dir: ./data\nmemory_dir: ./memory\n');
    const preload = path.join(dir, 'builtins.cjs');
    writeFileSync(preload, "process.on('SIGUSR2', () => process._rawDebug('BUILTINS ' + JSON.stringify(process.moduleLoadList)));\n");
    const child = spawn(process.execPath, ['-r', preload, path.resolve('dist/main.js'), 'start'], {
      cwd: dir, env: { PATH: process.env.PATH ?? '', HOME: dir }, stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    let asked = false;
    const builtins = await new Promise<string[]>((resolve, reject) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        if (stderr.includes('familiar is ready') && !asked) {
          asked = true;
          child.kill('SIGUSR2');
        }
        const line = /^BUILTINS (.*)$/m.exec(stderr);
        if (line) resolve((JSON.parse(line[1]!) as string[]).filter((name) => name.startsWith('NativeModule ')).map((name) => name.slice('NativeModule '.length)));
      });
      child.on('close', (code) => reject(new Error(`familiar start exited (${code}): ${stderr.slice(-800)}`)));
    });
    child.removeAllListeners('close');
    await new Promise((resolve) => {
      child.on('close', resolve);
      child.kill('SIGTERM');
    });
    expect(builtins).toContain('net'); // the list is read: stderr is a pipe
    expect(builtins.filter((name) => ['zlib', 'child_process', 'dgram', 'assert', 'crypto'].includes(name))).toEqual([]);
  }, 60_000);

  it('loads dotenv when there is a .env file to read', async () => {
    const dir = tempDir('familiar-start-packages-');
    writeFileSync(path.join(dir, 'config.yaml'), 'timezone: UTC\ndata_dir: ./data\nmemory_dir: ./memory\n');
    writeFileSync(path.join(dir, '.env'), 'UNUSED_NAME=1\n');
    const loaded = await packagesLoaded(dir);
    expect(loaded.has('dotenv')).toBe(true);
    expect(LAZY.filter((name) => name !== 'dotenv' && loaded.has(name))).toEqual([]);
  }, 60_000);

  it('`tools list` builds every configured part (channels, sandbox, mail) and loads none of them either', async () => {
    const dir = tempDir('familiar-start-packages-');
    writeFileSync(path.join(dir, 'config.yaml'), JSON.stringify({
      timezone: 'UTC', data_dir: './data', memory_dir: './memory',
      channels: {
        // Unreachable on purpose: listing tools must not contact the platforms.
        telegram: { token: '123456:test-token-test-token', api_root: 'http://127.0.0.1:9', allowed_users: [1] },
        discord: { token: 'test.discord.token', api_url: 'http://127.0.0.1:9/api', allowed_users: ['1'] },
      },
      tools: {
        email: { imap: { host: '127.0.0.1', port: 9, secure: true, user: 'me@example.org', password: 'test-password' } },
        sandbox: { image: 'familiar-sandbox:test', pool_size: 0 },
      },
    }));
    const loaded = await packagesLoaded(dir, ['tools', 'list', '--json']);
    expect([...loaded].some((name) => name.startsWith('better-sqlite3'))).toBe(true);
    expect(LAZY.filter((name) => loaded.has(name))).toEqual([]);
  }, 60_000);
});
