import type { Database } from '../db/database.js';
import { processAlive } from '../lib/process-alive.js';

/**
 * Marks as interrupted the turns left `running` by a process that is gone: a previous daemon (this daemon holds
 * the data folder's lock, so any `daemon` row is from before), a one-shot command whose pid is dead, or a row from
 * before turns recorded their runner. A turn another live process is serving (`familiar ask` beside the daemon) is
 * left alone. Returns how many were marked.
 */
export function markInterruptedTurns(db: Database, now = Date.now(), isAlive: (pid: number) => boolean = processAlive): number {
  const rows = db.prepare("SELECT id, runner FROM turns WHERE status = 'running'").all() as Array<{ id: string; runner: string | null }>;
  const cut = rows.filter((row) => {
    const pid = /^pid:(\d+)$/.exec(row.runner ?? '')?.[1];
    return pid === undefined || Number(pid) === process.pid || !isAlive(Number(pid));
  });
  if (cut.length === 0) return 0;
  const mark = db.prepare("UPDATE turns SET status = 'interrupted', ended_at = ? WHERE id = ? AND status = 'running'");
  db.transaction(() => {
    for (const row of cut) mark.run(now, row.id);
  })();
  return cut.length;
}
