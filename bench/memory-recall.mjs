// Memory recall: a fixed corpus (bench/memory-recall/memory: 200+ entries in notes, tasks and memory files) and 57
// questions whose answer is one known entry, mostly worded so that few words match. Reports recall@5 and MRR (at 10)
// for full-text search alone, full text + the offline embedder (reciprocal rank fusion), and both again after a
// consolidation (a scripted proposal through the real validation and apply: duplicates merged, dated facts moved
// to log.md; no model is reachable here to write one).
// Usage: npm run build && env -i PATH=$PATH HOME=$HOME node bench/memory-recall.mjs [--json] [--smoke]
//   --smoke: words only, 5 questions (the offline model is not loaded): what the test suite runs.
import { cpSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Writable } from 'node:stream';
import { openDatabase } from '../dist/db/database.js';
import { ProvenanceLabels } from '../dist/gate/labels.js';
import { createLogger } from '../dist/log.js';
import { Consolidator } from '../dist/memory/consolidation/consolidator.js';
import { MemoryHistory } from '../dist/memory/history.js';
import { createHybridSearch } from '../dist/memory/part.js';
import { MemoryStore } from '../dist/memory/store.js';
import { ROOT, SMOKE, tempDir } from './lib.mjs';

const JSON_OUT = process.argv.includes('--json');
const CORPUS = path.join(ROOT, 'bench', 'memory-recall');
const questions = JSON.parse(readFileSync(path.join(CORPUS, 'questions.json'), 'utf8')).slice(0, SMOKE ? 5 : undefined);
const log = createLogger({ level: 'warn', format: 'json', secrets: [], destination: new Writable({ write: (chunk, _encoding, done) => (process.stderr.write(chunk), done()) }) });

const dir = tempDir('familiar-recall-');
cpSync(path.join(CORPUS, 'memory'), path.join(dir, 'memory'), { recursive: true });
const db = openDatabase(path.join(dir, 'data'));
const store = new MemoryStore(path.join(dir, 'memory'), db);
store.syncIndex();
const entries = store.searchIndex.count();

/** The rank (1-based) of the first hit whose lines hold the answer, or undefined. */
function rankOf(hits, answer) {
  const index = hits.findIndex((hit) => {
    const lines = store.read(hit.path).split('\n').slice(hit.startLine - 1, hit.endLine).join('\n');
    return lines.includes(answer);
  });
  return index === -1 ? undefined : index + 1;
}

async function measure(search) {
  let found = 0;
  let reciprocal = 0;
  const missed = [];
  for (const { q, a } of questions) {
    const rank = rankOf(await search(q), a);
    if (rank !== undefined && rank <= 5) found += 1;
    if (rank !== undefined) reciprocal += 1 / rank;
    if (rank === undefined || rank > 5) missed.push(q);
  }
  return { recall_at_5: found / questions.length, mrr: reciprocal / questions.length, missed };
}

const words = (q) => store.search(q, 10);
const result = { entries, questions: questions.length };
result.fts = await measure(words);

let hybrid;
if (!SMOKE) {
  hybrid = createHybridSearch(store, { db, log, embeddings: 'local' });
  const started = performance.now();
  const embedded = await hybrid.embedPending();
  result.embed_all_ms = performance.now() - started;
  result.embedded = embedded;
  result.rss_after_model_mib = process.memoryUsage().rss / 1024 / 1024;
  const queryStarted = performance.now();
  result.fts_local = await measure((q) => hybrid.search(q, 10));
  result.query_ms = (performance.now() - queryStarted) / questions.length;
}

// A consolidation as a model would propose it, through the real checks and apply: the three near-duplicates in
// inbox.md marked "superseded by" the fuller entries (they are not word for word the same, so they may not simply go),
// the dated entries moved to log.md.
const inbox = store.read('inbox.md');
const dated = inbox.split('\n').filter((line) => /^- \d{4}-\d\d-\d\d:/.test(line));
const proposal = {
  summary: 'Marked three duplicates in inbox.md as superseded by the fuller entries; moved dated entries to log.md.',
  files: [
    {
      path: 'inbox.md',
      content: '# Inbox\n\n- Allergic to penicillin. (superseded by health.md#L7)\n- No coffee after 2 pm. (superseded by health.md#L5)\n- Tom is vegetarian. (superseded by people.md#L6)\n',
    },
    { path: 'log.md', content: `# Log\n\n## 2026-10\n\n${dated.filter((line) => line.includes('2026-10')).join('\n')}\n\n## 2026-11\n\n${dated.filter((line) => line.includes('2026-11')).join('\n')}\n` },
  ],
};
const history = new MemoryHistory(store, db, log);
history.attach();
const consolidator = new Consolidator({
  store, history, labels: new ProvenanceLabels(db), db, log,
  llm: { models: ['scripted'], complete: async () => ({ content: JSON.stringify(proposal), toolCalls: [], usage: { promptTokens: 0, completionTokens: 0 }, model: 'scripted', finishReason: 'stop' }) },
  settings: { consolidate: 'apply', consolidate_after: 1, consolidate_tokens: 40_000 },
});
const consolidated = await consolidator.run('apply');
if (!consolidated.success) throw new Error(`the scripted consolidation was refused: ${consolidated.error}`);
result.consolidated_entries = (store.syncIndex(), store.searchIndex.count());
result.fts_after = await measure(words);
if (hybrid) result.fts_local_after = await measure((q) => hybrid.search(q, 10));
db.close();

if (JSON_OUT) {
  console.log(JSON.stringify(result));
} else {
  const pct = (value) => `${(value * 100).toFixed(1)} %`;
  console.log(`memory recall: ${result.entries} entries, ${result.questions} questions (${result.consolidated_entries} entries after consolidation)`);
  for (const [name, key] of [['FTS5 alone', 'fts'], ['FTS5 + local embedder (RRF)', 'fts_local'], ['FTS5 alone, after consolidation', 'fts_after'], ['FTS5 + local, after consolidation', 'fts_local_after']]) {
    if (result[key]) console.log(`  ${name.padEnd(36)} recall@5 ${pct(result[key].recall_at_5)}  MRR ${result[key].mrr.toFixed(3)}`);
  }
  if (result.embed_all_ms !== undefined) console.log(`  embedding ${result.embedded} entries: ${result.embed_all_ms.toFixed(0)} ms (model load included); a query: ${result.query_ms.toFixed(1)} ms; RSS ${result.rss_after_model_mib.toFixed(0)} MiB`);
}
