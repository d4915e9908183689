import { chmodSync, chownSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { openDatabase } from '../../src/db/database.js';
import { writeFileAtomic } from '../../src/lib/atomic-write.js';
import { seedFolder } from '../../src/config/seed-folders.js';
import { tempDir } from '../helpers/app.js';
import { captureIo } from '../helpers/io.js';

// The person's data is theirs alone: no other account of the machine may read or change the data folder, the
// database, the log, memory or .env — what a stranger's account could read there is the person's life.
const mode = (file: string): number => statSync(file).mode & 0o777;

function setup() {
  const dir = tempDir();
  const config = path.join(dir, 'config.yaml');
  writeFileSync(config, 'data_dir: ./data\nllm:\n  base_url: http://127.0.0.1:9/v1\n  api_key: ${LLM_KEY}\n');
  writeFileSync(path.join(dir, '.env'), 'LLM_KEY=sk-env-secret-123456\n', { mode: 0o600 });
  return { dir, config, data: path.join(dir, 'data') };
}

async function doctor(config: string, ...args: string[]) {
  const io = captureIo();
  await runCli(['doctor', ...args, '--config', config], io);
  return io.out();
}

describe('the person\'s files are theirs alone', () => {
  it('makes a new data folder 0700 and a new database, with its WAL files, 0600', () => {
    const data = path.join(tempDir(), 'data');
    const db = openDatabase(data);
    try {
      db.prepare("INSERT INTO turns (id, conversation_id, source, started_at, status) VALUES ('t', 'c', 'cli', 1, 'ok')").run();
      expect(mode(data)).toBe(0o700);
      for (const file of ['familiar.db', 'familiar.db-wal', 'familiar.db-shm']) expect(mode(path.join(data, file)), file).toBe(0o600);
    } finally {
      db.close();
    }
  });

  it('writes memory files 0600 and seeds a memory folder with nothing others can read', async () => {
    const memory = path.join(tempDir(), 'memory');
    expect(seedFolder('memory', memory)).toBe('seeded');
    expect(mode(memory)).toBe(0o700);
    expect(mode(path.join(memory, 'profile.md'))).toBe(0o600);
    await writeFileAtomic(path.join(memory, 'notes', 'new.md'), 'mine\n');
    expect(mode(path.join(memory, 'notes', 'new.md'))).toBe(0o600);
  });

  it('doctor warns for each path another account can read or write, with the fix', async () => {
    const { config, data } = setup();
    mkdirSync(data, { mode: 0o755 });
    chmodSync(data, 0o755);
    openDatabase(data).close();
    chmodSync(path.join(data, 'familiar.db'), 0o666);
    const out = await doctor(config);
    expect(out).toContain(`! ${data}: readable by others (mode 755): data_dir: your conversations, memory and files — chmod 700 ${data} (or familiar doctor --fix)`);
    expect(out).toContain(`! ${path.join(data, 'familiar.db')}: readable and writable by others (mode 666): the database: your data — chmod 600`);
  });

  it('doctor --fix narrows them to their owner and then finds nothing to warn about', async () => {
    const { config, data, dir } = setup();
    mkdirSync(data, { mode: 0o755 });
    chmodSync(data, 0o755);
    openDatabase(data).close();
    chmodSync(path.join(data, 'familiar.db'), 0o644);
    chmodSync(path.join(dir, '.env'), 0o640);
    const out = await doctor(config, '--fix');
    expect(out).toContain(`+ ${data}: mode 755 → 700 (data_dir: yours alone)`);
    expect(out).toContain(`+ ${path.join(data, 'familiar.db')}: mode 644 → 600 (the database: yours alone)`);
    expect(out).toContain(`+ ${path.join(dir, '.env')}: mode 640 → 600 (it holds secrets)`);
    expect([mode(data), mode(path.join(data, 'familiar.db')), mode(path.join(dir, '.env'))]).toEqual([0o700, 0o600, 0o600]);
    expect(await doctor(config)).not.toContain('by others');
  });

  it.skipIf(process.getuid?.() !== 0)('doctor warns when another account owns the data folder (it could replace the database)', async () => {
    const { config, data } = setup();
    mkdirSync(data, { mode: 0o700 });
    chownSync(data, 1000, 1000);
    expect(await doctor(config)).toContain(`! ${data}: owned by uid 1000, not by you (uid 0): data_dir: that account can replace or read what is in it`);
  });
});
