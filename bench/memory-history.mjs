// How the memory history grows with use: N appends of one line to one journal file through the memory store (what
// memory_write with mode "append" does), then the history's rows, the database's size and the last appends' time.
// Each change holds the file's whole text before and after; src/memory/history.ts keeps the newest
// CHANGES_KEPT_PER_FILE of each file.
// Usage: npm run build && node bench/memory-history.mjs [--appends 3000] [--json]
import { mkdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { openDatabase } from '../dist/db/database.js';
import { MemoryHistory } from '../dist/memory/history.js';
import { MemoryStore } from '../dist/memory/store.js';
import { sized, table, tempDir } from './lib.mjs';

const argv = process.argv.slice(2);
const appends = argv.includes('--appends') ? Number(argv[argv.indexOf('--appends') + 1]) : sized(1000, 60);
const dir = tempDir();
mkdirSync(path.join(dir, 'memory'));
const db = openDatabase(path.join(dir, 'data'));
const store = new MemoryStore(path.join(dir, 'memory'), db);
const quiet = { trace() {}, debug() {}, info() {}, warn() {}, error() {}, child: () => quiet };
new MemoryHistory(store, db, quiet).attach();
const line = `A day of notes: ${'x'.repeat(100)}\n`;
const last = Math.min(100, appends);
let lastStarted = performance.now();
for (let index = 1; index <= appends; index += 1) {
  if (index === appends - last + 1) lastStarted = performance.now();
  await store.write('journal.md', line, { mode: 'append' });
}
const lastMs = (performance.now() - lastStarted) / last;
db.pragma('wal_checkpoint(TRUNCATE)');
const results = {
  appends,
  file_kib: statSync(path.join(dir, 'memory', 'journal.md')).size / 1024,
  history_rows: db.prepare('SELECT COUNT(*) AS n FROM memory_history').get().n,
  database_mib: statSync(path.join(dir, 'data', 'familiar.db')).size / 1048576,
  last_appends_ms: lastMs,
};
db.close();
rmSync(dir, { recursive: true, force: true });
if (argv.includes('--json')) console.log(JSON.stringify(results));
else {
  console.log(table([
    ['appends', 'journal', 'history rows', 'database', 'time per append (last 100)'],
    [String(results.appends), `${results.file_kib.toFixed(0)} KiB`, String(results.history_rows), `${results.database_mib.toFixed(1)} MiB`, `${results.last_appends_ms.toFixed(2)} ms`],
  ]));
}
