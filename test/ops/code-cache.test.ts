// The `familiar` executable runs its bundles through V8's code cache (src/boot.ts, src/lib/code-cache.ts): the
// first run of a command, and the first start, write a cache in the user's cache folder; the next ones take it and
// answer the same. Checked on the built executable (`npm run build` first), as a person runs it.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/app.js';

const MAIN = path.resolve('dist/main.js');

/** A folder with a config and its own HOME, so that its code caches are its own. */
function home(): string {
  const dir = tempDir('familiar-code-cache-');
  writeFileSync(path.join(dir, 'config.yaml'), 'data_dir: ./data\nmemory_dir: ./memory\nskills_dir: ./skills\nlog:\n  level: info\n  format: json\n');
  return dir;
}

function run(dir: string, args: string[], env: Record<string, string> = {}) {
  const child = spawnSync(process.execPath, [MAIN, ...args], { cwd: dir, env: { PATH: process.env.PATH ?? '', HOME: dir, ...env }, encoding: 'utf8' });
  return { code: child.status, stdout: child.stdout, stderr: child.stderr };
}

const cacheDir = (dir: string) => path.join(dir, '.cache', 'familiar', 'code');
const caches = (dir: string) => readdirSync(cacheDir(dir)).sort();
/** A file's identity: a cache written again is a new file (written aside, then renamed over). */
const identity = (file: string) => `${statSync(file).ino}:${statSync(file).mtimeMs}`;

/** Starts the daemon, waits for its ready line (or `until`, then kills it), stops it; what it wrote on stderr. */
async function startOnce(dir: string, env: Record<string, string> = {}, until = 'familiar is ready'): Promise<string> {
  const child = spawn(process.execPath, [MAIN, 'start'], { cwd: dir, env: { PATH: process.env.PATH ?? '', HOME: dir, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  await new Promise<void>((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (stderr.includes(until)) resolve();
    });
    child.on('close', (code) => reject(new Error(`familiar start exited (${code}): ${stderr.slice(-800)}`)));
  });
  child.removeAllListeners('close');
  await new Promise((resolve) => {
    child.on('close', resolve);
    child.kill(until === 'familiar is ready' ? 'SIGTERM' : 'SIGKILL');
  });
  return stderr;
}

describe('the code cache of the familiar executable', () => {
  it('is written by a command\'s first run and taken by the next, which answers the same', () => {
    const dir = home();
    const first = run(dir, ['tools', 'list']);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('memory_read');
    const [written = ''] = caches(dir);
    expect(caches(dir)).toEqual([expect.stringMatching(/^cli-tools-[0-9a-f]{16}-liftoff-[0-9a-f]{8}-[0-9a-f]{8}\.v8$/)]);
    const before = identity(path.join(cacheDir(dir), written));
    const second = run(dir, ['tools', 'list']);
    expect([second.code, second.stdout, second.stderr]).toEqual([0, first.stdout, first.stderr]);
    // Taken, not refused and written again.
    expect(identity(path.join(cacheDir(dir), written))).toBe(before);
    // Another command keeps a cache of its own.
    expect(run(dir, ['jobs', 'list']).code).toBe(0);
    expect(caches(dir).map((name) => name.split('-').slice(0, 2).join('-'))).toEqual(['cli-jobs', 'cli-tools']);
  });

  it('is replaced when V8 refuses it, and the run answers as without one', () => {
    const dir = home();
    const clean = run(dir, ['tools', 'list']);
    const [name = ''] = caches(dir);
    writeFileSync(path.join(cacheDir(dir), name), Buffer.alloc(statSync(path.join(cacheDir(dir), name)).size, 7));
    const refused = run(dir, ['tools', 'list']);
    expect([refused.code, refused.stdout]).toEqual([0, clean.stdout]);
    expect(caches(dir)).toEqual([name]);
    const replaced = identity(path.join(cacheDir(dir), name));
    run(dir, ['tools', 'list']);
    expect(identity(path.join(cacheDir(dir), name))).toBe(replaced);
  });

  it('is not written by a run that failed, nor with FAMILIAR_CODE_CACHE=off', () => {
    const dir = home();
    expect(run(dir, ['frobnicate']).code).toBe(2);
    expect(run(dir, ['tools', 'list'], { FAMILIAR_CODE_CACHE: 'off' }).code).toBe(0);
    expect(caches(dir)).toEqual([]);
  });

  it('goes where FAMILIAR_CODE_CACHE says', () => {
    const dir = home();
    const elsewhere = path.join(dir, 'elsewhere');
    expect(run(dir, ['tools', 'list'], { FAMILIAR_CODE_CACHE: elsewhere }).code).toBe(0);
    expect(readdirSync(elsewhere)).toEqual([expect.stringMatching(/^cli-tools-/)]);
    expect(existsSync(cacheDir(dir))).toBe(false);
  });

  it('is written by the daemon once it is ready, and taken by the next start', async () => {
    const dir = home();
    await startOnce(dir);
    const [written = ''] = caches(dir);
    expect(caches(dir)).toEqual([expect.stringMatching(/^start-[0-9a-f]{16}-daemon-[0-9a-f]{8}-[0-9a-f]{8}\.v8$/)]);
    const before = identity(path.join(cacheDir(dir), written));
    const stderr = await startOnce(dir);
    expect(identity(path.join(cacheDir(dir), written))).toBe(before);
    // A start on V8's defaults (the heap left untuned) compiles under other flags: a cache of its own.
    await startOnce(dir, { FAMILIAR_V8_DEFAULTS: '1' });
    expect(caches(dir).map((name) => name.split('-')[2])).toEqual(['daemon', 'defaults']);
    expect(stderr).not.toContain('Warning');
  });

  it('imports a package or a module of yours from code taken from the cache, as from code compiled anew', async () => {
    // On Node 20, import() in code taken from a vm.Script's code cache failed ("A dynamic import callback was not
    // specified"): a custom tool module is imported by the bundle's own import(), at every start and `tools list`.
    const dir = home();
    mkdirSync(path.join(dir, 'data', 'tools'), { recursive: true, mode: 0o700 });
    chmodSync(path.join(dir, 'data'), 0o700);
    writeFileSync(path.join(dir, 'data', 'tools', 'echo.mjs'), [
      "import { defineTool } from 'familiar';",
      'export default defineTool({',
      "  schema: { name: 'echo_text', description: 'Says the text back.', parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false } },",
      '  effects: [],',
      '  async execute({ text }) { return text; },',
      '});',
    ].join('\n'));
    for (const round of ['compiled', 'cached']) {
      const listed = run(dir, ['tools', 'list']);
      expect([round, listed.code, listed.stderr]).toEqual([round, 0, '']);
      expect(listed.stdout).toContain('echo_text');
      const started = await startOnce(dir);
      expect(started).not.toMatch(/threw while loading|Warning/);
      expect(started).toMatch(/"msg":"familiar is ready"/);
      expect(JSON.parse(started.split('\n').find((line) => line.includes('familiar is ready')) ?? '{}')).toMatchObject({ tools: expect.any(Number) });
    }
    expect(caches(dir).map((name) => name.split('-')[0])).toEqual(['cli', 'start']);
  });
});
