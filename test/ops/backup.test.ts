import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { Sqlite } from '../../src/db/sqlite.js';
import * as tar from 'tar';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Daemon as App } from '../../src/daemon.js';
import { runCli } from '../../src/cli/run.js';
import { AppError } from '../../src/errors.js';
import { createBackup } from '../../src/ops/backup.js';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { makeTestApp, tempDir } from '../helpers/app.js';
import { captureIo } from '../helpers/io.js';

/** Every file under `dir`, relative, with its bytes. */
function filesOf(dir: string, prefix = ''): Map<string, string> {
  const out = new Map<string, string>();
  for (const entry of readdirSync(path.join(dir, prefix), { withFileTypes: true })) {
    const relative = path.join(prefix, entry.name);
    if (entry.isDirectory()) for (const [key, value] of filesOf(dir, relative)) out.set(key, value);
    else out.set(relative, readFileSync(path.join(dir, relative)).toString('base64'));
  }
  return out;
}

describe('familiar backup', () => {
  let fake: FakeOpenAI;
  let app: App;
  let dir: string;
  let configPath: string;

  beforeEach(async () => {
    fake = await startOpenAiServer();
    const made = await makeTestApp(fake);
    app = made.app;
    dir = made.dir;
    configPath = made.configPath;
    // Conversations with messages, and memory and skills on disk.
    fake.script({ content: 'Noted: you like tea.' }, { content: 'Tea, with lemon.' });
    await app.turns.start({ text: 'I like tea', origin: { channel: 'cli', chatId: 'owner' }, source: 'cli' });
    await app.turns.start({ text: 'What do I like?', origin: { channel: 'cli', chatId: 'owner' }, source: 'cli' });
    writeFileSync(path.join(app.config.memory_dir, 'profile.md'), '# Profile\n\nLikes tea. ✓\n');
    mkdirSync(path.join(app.config.memory_dir, 'people'), { recursive: true });
    writeFileSync(path.join(app.config.memory_dir, 'people', 'anna.md'), 'Anna: sister.\n');
    mkdirSync(path.join(app.config.skills_dir, 'greet'), { recursive: true });
    writeFileSync(path.join(app.config.skills_dir, 'greet', 'SKILL.md'), '---\nname: greet\n---\nSay hello.\n');
  });

  afterEach(async () => {
    await app.close(0);
    await fake.close();
  });

  it('copies the database while the daemon holds it open, with every row', async () => {
    // A write still in the WAL (not checkpointed) must be in the copy.
    app.db.prepare("INSERT INTO turns (id, conversation_id, source, started_at, status) VALUES ('late', 'c', 'cli', 1, 'ok')").run();
    const out = tempDir('familiar-backup-');
    const result = await createBackup({ config: app.config, outDir: out });
    const copy = new Sqlite(path.join(result.path, 'familiar.db'), { readonly: true });
    try {
      expect(copy.pragma('quick_check', { simple: true })).toBe('ok');
      expect(copy.pragma('user_version', { simple: true })).toBe(app.db.pragma('user_version', { simple: true }));
      const count = (db: BetterSqlite3.Database, table: string) => (db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
      for (const table of ['conversations', 'messages', 'turns']) expect(count(copy, table), table).toBe(count(app.db, table));
      expect(count(copy, 'messages')).toBeGreaterThanOrEqual(4);
      expect(copy.prepare("SELECT id FROM turns WHERE id = 'late'").get()).toEqual({ id: 'late' });
      const texts = (copy.prepare("SELECT body FROM messages ORDER BY id").all() as Array<{ body: string }>).map((row) => row.body).join('\n');
      expect(texts).toContain('Tea, with lemon.');
    } finally {
      copy.close();
    }
    expect(existsSync(path.join(result.path, 'familiar.db-wal'))).toBe(false);
    expect(result.manifest.rows.messages).toBeGreaterThanOrEqual(4);
  });

  it('copies the memory and skills folders byte for byte', async () => {
    const result = await createBackup({ config: app.config, outDir: tempDir('familiar-backup-') });
    expect(filesOf(path.join(result.path, 'memory'))).toEqual(filesOf(app.config.memory_dir));
    expect(filesOf(path.join(result.path, 'skills'))).toEqual(filesOf(app.config.skills_dir));
    expect(filesOf(path.join(result.path, 'memory')).has(path.join('people', 'anna.md'))).toBe(true);
  });

  it('copies your own tools, without their node_modules', async () => {
    mkdirSync(path.join(app.config.tools_dir, 'node_modules', 'left-pad'), { recursive: true });
    writeFileSync(path.join(app.config.tools_dir, 'lamp.mjs'), 'export default [];\n');
    writeFileSync(path.join(app.config.tools_dir, 'node_modules', 'left-pad', 'index.js'), '');
    const result = await createBackup({ config: app.config, outDir: tempDir('familiar-backup-') });
    expect([...filesOf(path.join(result.path, 'tools')).keys()]).toEqual(['lamp.mjs']);
    expect(result.manifest.tools).toBe('tools');
  });

  it('names the folder with a sortable UTC timestamp and keeps it private', async () => {
    const out = tempDir('familiar-backup-');
    const result = await createBackup({ config: app.config, outDir: out, now: new Date('2026-11-22T05:10:03.456Z') });
    expect(path.basename(result.path)).toBe('familiar-backup-20261122-051003');
    expect(statSync(result.path).mode & 0o777).toBe(0o700);
    await expect(createBackup({ config: app.config, outDir: out, now: new Date('2026-11-22T05:10:03.999Z') })).rejects.toThrow(AppError);
  });

  it('packs a .tar.gz that unpacks to the same files', async () => {
    const out = tempDir('familiar-backup-');
    const result = await createBackup({ config: app.config, outDir: out, tarball: true });
    expect(result.path).toMatch(/familiar-backup-\d{8}-\d{6}\.tar\.gz$/);
    expect(readdirSync(out)).toEqual([path.basename(result.path)]);
    const unpacked = tempDir('familiar-unpack-');
    await tar.extract({ file: result.path, cwd: unpacked });
    const folder = path.join(unpacked, path.basename(result.path, '.tar.gz'));
    expect(filesOf(path.join(folder, 'memory'))).toEqual(filesOf(app.config.memory_dir));
    const copy = new Sqlite(path.join(folder, 'familiar.db'), { readonly: true });
    expect((copy.prepare('SELECT COUNT(*) AS n FROM messages').get() as { n: number }).n).toBeGreaterThanOrEqual(4);
    copy.close();
  });

  it('runs from the command line, printing the backup path, into data_dir/backups by default', async () => {
    const io = captureIo();
    const code = await runCli(['backup', '--config', configPath], io);
    expect(code, io.err()).toBe(0);
    const printed = io.out().trim();
    expect(path.dirname(printed)).toBe(path.join(dir, 'data', 'backups'));
    expect(existsSync(path.join(printed, 'familiar.db'))).toBe(true);
    expect(io.err()).toContain('backed up database');
  });

  it('covers everything that is the person\'s: config.yaml, .env (private), and the conversations\' workspaces', async () => {
    writeFileSync(path.join(dir, '.env'), 'TEST_LLM_KEY=sk-in-dotenv\n', { mode: 0o600 });
    mkdirSync(path.join(dir, 'data', 'workspaces', 'cli-owner'), { recursive: true });
    writeFileSync(path.join(dir, 'data', 'workspaces', 'cli-owner', 'plot.py'), 'print(1)\n');
    const io = captureIo();
    expect(await runCli(['backup', '--config', configPath, '--out', tempDir('familiar-backup-')], io), io.err()).toBe(0);
    const folder = io.out().trim();
    expect(readFileSync(path.join(folder, 'config.yaml'), 'utf8')).toBe(readFileSync(configPath, 'utf8'));
    expect(readFileSync(path.join(folder, '.env'), 'utf8')).toBe('TEST_LLM_KEY=sk-in-dotenv\n');
    expect(statSync(path.join(folder, '.env')).mode & 0o777).toBe(0o600);
    expect(readFileSync(path.join(folder, 'workspaces', 'cli-owner', 'plot.py'), 'utf8')).toBe('print(1)\n');
    expect(io.err()).toMatch(/workspaces, config\.yaml, \.env/);
    // Earlier backups are not backed up again.
    expect(existsSync(path.join(folder, 'backups'))).toBe(false);
  });

  it('takes --out and refuses stray arguments', async () => {
    const out = tempDir('familiar-backup-');
    const io = captureIo();
    expect(await runCli(['backup', '--config', configPath, '--out', out], io)).toBe(0);
    expect(path.dirname(io.out().trim())).toBe(out);
    const bad = captureIo();
    expect(await runCli(['backup', '--config', configPath, 'somewhere'], bad)).toBe(2);
    expect(bad.err()).toContain('usage: familiar backup');
  });
});
