import { closeSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Sqlite } from '../db/sqlite.js';
import { AppError } from '../errors.js';

const LOCK_FILE = 'daemon.lock';
const PID_FILE = 'daemon.pid';

export interface DaemonLock {
  release(): void;
}

/**
 * One daemon per data folder. The lock is SQLite's exclusive lock on `data_dir/daemon.lock`, which is a POSIX
 * advisory lock: the kernel drops it when the process ends, however it ends, so a crashed or `kill -9`ed daemon
 * never leaves it stuck. `daemon.pid` only names the holder for the message.
 * Contract: throws AppError DAEMON_RUNNING when another live process holds it.
 */
export function acquireDaemonLock(dataDir: string): DaemonLock {
  const file = path.join(dataDir, LOCK_FILE);
  // Made 0600 first: SQLite would make it with the umask's mode (0644), and everything in data_dir is private.
  closeSync(openSync(file, 'a', 0o600));
  const db = new Sqlite(file, { timeout: 0 });
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    // Nothing in this file is worth keeping over a crash: no journal and no fsync (two fewer disk flushes at start).
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    // The first write in exclusive mode takes the exclusive lock and keeps it until the connection closes.
    db.exec('CREATE TABLE IF NOT EXISTS holder (id INTEGER PRIMARY KEY, pid INTEGER NOT NULL, since INTEGER NOT NULL)');
    db.prepare('INSERT OR REPLACE INTO holder (id, pid, since) VALUES (1, ?, ?)').run(process.pid, Date.now());
  } catch (error) {
    db.close();
    if ((error as { code?: string }).code === 'SQLITE_BUSY') {
      const pid = readPid(dataDir);
      throw new AppError('DAEMON_RUNNING', `another familiar daemon${pid ? ` (pid ${pid})` : ''} is running with data_dir ${dataDir}; stop it first${pid ? ` (kill ${pid})` : ''}, or give this one another data_dir`, { cause: error });
    }
    throw error;
  }
  writeFileSync(path.join(dataDir, PID_FILE), `${process.pid}\n`, { mode: 0o600 });
  return {
    release() {
      if (readPid(dataDir) === String(process.pid)) rmSync(path.join(dataDir, PID_FILE), { force: true });
      db.close();
    },
  };
}

function readPid(dataDir: string): string | undefined {
  try {
    return readFileSync(path.join(dataDir, PID_FILE), 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}
