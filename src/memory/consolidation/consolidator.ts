import { randomBytes } from 'node:crypto';
import { z } from 'zod/v3';
import type { Database } from '../../db/database.js';
import type { ButtonAnswer, ButtonPress, Delivery } from '../../delivery/types.js';
import { errorMessage } from '../../errors.js';
import type { ProvenanceLabels } from '../../gate/labels.js';
import { failure, succeed, type Result } from '../../lib/result.js';
import { withPerson, type ActingPerson } from '../../lib/person-scope.js';
import { formatTarget } from '../../lib/target.js';
import type { LlmClient } from '../../llm/types.js';
import type { Logger } from '../../log.js';
import { lineDiff } from '../diff.js';
import type { MemoryHistory } from '../history.js';
import { SHARED_DIR, shownPath, storedPath } from '../person-view.js';
import type { MemoryStore } from '../store.js';
import { CONSOLIDATION_INSTRUCTIONS } from './instructions.js';
import { validateProposal, type ProposedFile } from './validate.js';

export interface ConsolidationSettings {
  consolidate: 'off' | 'propose' | 'apply';
  consolidate_after: number;
  consolidate_tokens: number;
}

export interface ConsolidatorDeps {
  store: MemoryStore;
  history: MemoryHistory;
  labels: ProvenanceLabels;
  db: Database;
  llm: LlmClient;
  settings: ConsolidationSettings;
  log: Logger;
  /** Where a proposal goes (`scheduler.default_chat`); absent: the proposal is kept, not sent. */
  delivery?: Delivery | undefined;
  now?: () => number;
  /** In a household: the one person whose folder this tidies (household.ts); absent: the whole folder, as before. */
  household?: PersonConsolidation | undefined;
}

/** One person's consolidation in a household: everything runs as them, and their proposal is theirs alone. */
export interface PersonConsolidation {
  person: ActingPerson & { folder: string };
  /** Where their proposal goes (their direct chat); undefined when they cannot be reached, and no pass is made. */
  target(): Promise<string | undefined>;
  /** The presser is this person (by the channel's sender id). */
  pressedBy(press: ButtonPress): boolean;
}

/**
 * A proposal's files: what the model saw (`before`, null for a new file) and what it would write. In the database a
 * household's paths are stored (memory_dir-relative, `people/ben/log.md`), so a row names whose files it changes.
 */
interface StoredFile {
  path: string;
  before: string | null;
  content: string;
}

export interface Consolidation {
  summary: string;
  files: StoredFile[];
  /** A proposal waiting for the person's answer. */
  token?: string;
  /** An applied change: `familiar memory log` shows it, and it is undone as one. */
  batch?: string;
}

/** Built when an answer is checked (zod keeps methods bound to every schema object: not held while idle). */
const answerSchema = () => z.object({
  summary: z.string().max(2000),
  files: z.array(z.object({ path: z.string().min(1).max(300), content: z.string().max(400_000) })).max(50),
});
/** Button data: `memcon:<token>:apply|discard`; the token is random, so a forged press names no proposal. */
export const PROPOSAL_BUTTON = /^memcon:([A-Za-z0-9_-]{16}):(apply|discard)$/;
/** Characters per token, for the budget (an estimate: no tokenizer for every model). */
const CHARS_PER_TOKEN = 4;
const DIFF_CHARS = 3000;

/**
 * Consolidation by proposal. After `consolidate_after` new memory writes (volume, not the clock), the model is shown
 * the person's own files (never one labelled outside content: it cannot copy or promote what it never sees), newest
 * first within half the token budget, and asked for the files it would rewrite (merge duplicates, move dated facts
 * to a log, add a summary citing path#Lx-Ly). The answer is checked (validate.ts: no entry lost, only writable files)
 * and then, by `memory.consolidate`, applied as one change with undo, or sent to the person with Apply and Discard.
 */
export class Consolidator {
  private readonly deps: ConsolidatorDeps;
  private running: Promise<Result<Consolidation>> | undefined;

  constructor(deps: ConsolidatorDeps) {
    this.deps = deps;
  }

  /** New writes (the assistant's or the operator's, not a consolidation's own) since the last consolidation. */
  newWrites(): number {
    const through = Number(this.state(this.throughKey()) ?? 0);
    const counted = "SELECT COUNT(*) AS n FROM memory_history WHERE id > ? AND kind = 'write' AND batch IS NULL";
    // In a household only the writes to this person's folder count towards their pass.
    const folder = this.deps.household?.person.folder;
    const row = folder === undefined
      ? this.deps.db.prepare(counted).get(through)
      : this.deps.db.prepare(`${counted} AND substr(path, 1, ?) = ?`).get(through, folder.length + 1, `${folder}/`);
    return (row as { n: number }).n;
  }

  /** Runs when enough was written since the last run. Contract: never throws; problems are logged. */
  async maybeRun(): Promise<void> {
    if (this.deps.settings.consolidate === 'off' || this.running || this.newWrites() < this.deps.settings.consolidate_after) return;
    const result = await this.run();
    if (!result.success) this.deps.log.warn({ reason: result.error }, 'memory consolidation refused; memory left as it was');
  }

  /** One consolidation now, as `memory.consolidate` says (or `mode`). One at a time. */
  async run(mode: 'propose' | 'apply' = this.deps.settings.consolidate === 'apply' ? 'apply' : 'propose'): Promise<Result<Consolidation>> {
    this.running ??= this.asPerson(() => this.consolidate(mode)).finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async consolidate(mode: 'propose' | 'apply'): Promise<Result<Consolidation>> {
    const { log } = this.deps;
    // Counted from here: a refused proposal waits for as many new writes again, instead of retrying on every one.
    this.setState(this.throughKey(), String(this.lastHistoryId()));
    // A household's pass is made only when its proposal can reach the person: no tokens spent on one nobody sees.
    const target = mode === 'propose' && this.deps.household ? await this.deps.household.target() : this.deps.delivery?.targetFor(undefined);
    if (mode === 'propose' && this.deps.household && target === undefined) return failure(`${this.deps.household.person.name} has no direct chat to be asked in`);
    const before = this.gather();
    if (before.size === 0) return failure('no memory file of yours fits the budget');
    const proposed = await this.ask(before);
    if (!proposed.success) return proposed;
    const files = proposed.value.files.filter((file) => before.get(file.path) !== file.content);
    const checked = validateProposal({ before, files, writable: (path) => this.writable(path) });
    if (!checked.success) return failure(checked.error);
    if (files.length === 0) return failure('the model proposed no change');
    const stored = files.map((file) => ({ path: file.path, before: before.get(file.path) ?? null, content: file.content }));
    if (mode === 'apply') {
      const applied = await this.apply(stored);
      if (!applied.success) return applied;
      log.info({ batch: applied.value, files: stored.map((file) => file.path) }, 'memory consolidated');
      return succeed({ summary: proposed.value.summary, files: stored, batch: applied.value });
    }
    const token = randomBytes(12).toString('base64url');
    const kept = stored.map((file) => ({ ...file, path: this.stored(file.path) }));
    this.deps.db
      .prepare('INSERT INTO memory_proposals (token, created_at, summary, files, target) VALUES (?, ?, ?, ?, ?)')
      .run(token, this.now(), proposed.value.summary, JSON.stringify(kept), target ?? null);
    if (this.deps.delivery && target !== undefined) {
      const delivered = await this.deps.delivery.deliver(target, {
        text: describe(proposed.value.summary, stored),
        buttons: [{ label: 'Apply', data: `memcon:${token}:apply` }, { label: 'Discard', data: `memcon:${token}:discard` }],
      }, { kind: 'memory', id: `memory-consolidation-${token}` });
      if (delivered.error !== undefined) log.warn({ error: delivered.error }, 'memory consolidation proposal not delivered; it stays open');
    }
    log.info({ token, files: stored.map((file) => file.path) }, 'memory consolidation proposed');
    return succeed({ summary: proposed.value.summary, files: stored, token });
  }

  /** The proposals still waiting for an answer, newest first. */
  open(): Array<Consolidation & { token: string; createdAt: number }> {
    const rows = this.deps.db.prepare("SELECT token, created_at AS createdAt, summary, files FROM memory_proposals WHERE status = 'open' ORDER BY created_at DESC").all() as Array<{ token: string; createdAt: number; summary: string; files: string }>;
    return rows.flatMap((row) => {
      const files = this.ownFiles(row.files);
      return files ? [{ token: row.token, createdAt: row.createdAt, summary: row.summary, files }] : [];
    });
  }

  /** Apply or Discard a proposal (its buttons). Answered once. */
  async decide(token: string, choice: 'apply' | 'discard'): Promise<Result<string>> {
    return this.asPerson(() => this.answer(token, choice));
  }

  private async answer(token: string, choice: 'apply' | 'discard'): Promise<Result<string>> {
    const row = this.deps.db.prepare('SELECT files, status FROM memory_proposals WHERE token = ?').get(token) as { files: string; status: string } | undefined;
    const files = row ? this.ownFiles(row.files) : undefined;
    if (!row || !files) return failure('No such memory proposal.');
    if (row.status !== 'open') return failure(`This proposal was already ${row.status}.`);
    // Claimed first, so a second press (or a press during the apply) does nothing.
    const claimed = this.deps.db.prepare("UPDATE memory_proposals SET status = ?, decided_at = ? WHERE token = ? AND status = 'open'").run(choice === 'apply' ? 'applying' : 'discarded', this.now(), token);
    if (claimed.changes === 0) return failure('This proposal was already answered.');
    if (choice === 'discard') return succeed('Discarded: memory stays as it is.');
    // Checked again: a file labelled since the proposal was made is not written.
    for (const file of files) {
      const allowed = this.writable(file.path);
      if (!allowed.success) return this.close(token, 'refused', `Not applied: ${allowed.error}.`);
    }
    const applied = await this.apply(files);
    if (!applied.success) return this.close(token, 'refused', `Not applied: ${applied.error}`);
    this.deps.db.prepare("UPDATE memory_proposals SET status = 'applied', batch = ? WHERE token = ?").run(applied.value, token);
    const undo = this.deps.household ? `the owner can undo it as one change (familiar memory undo ${applied.value})` : 'familiar memory log shows it, and it can be undone as one change';
    return succeed(`Applied to ${files.map((file) => file.path).join(', ')}; ${undo}.`);
  }

  /** A button under a proposal. Contract: never throws; undefined for another part's button. */
  async press(press: ButtonPress): Promise<ButtonAnswer | undefined> {
    const match = PROPOSAL_BUTTON.exec(press.data);
    if (!match?.[1]) return undefined;
    const row = this.deps.db.prepare('SELECT target FROM memory_proposals WHERE token = ?').get(match[1]) as { target: string | null } | undefined;
    if (!row) return { notice: 'This proposal is no longer open.' };
    if (!press.allowed || row.target !== formatTarget(press) || (this.deps.household && !this.deps.household.pressedBy(press))) return { notice: 'Not yours: only the chat that got this proposal can answer it.' };
    try {
      const decided = await this.decide(match[1], match[2] === 'apply' ? 'apply' : 'discard');
      return decided.success ? { notice: decided.value.slice(0, 190), outcome: decided.value } : { notice: decided.error.slice(0, 190) };
    } catch (error) {
      this.deps.log.error({ err: error }, 'memory proposal button failed');
      return { notice: 'That did not work; the proposal stays as it was.' };
    }
  }

  /** The files as one change: each write checked against what the model saw (a hand edit since refuses it all). */
  private async apply(files: readonly StoredFile[]): Promise<Result<string>> {
    const batch = `consolidation-${randomBytes(6).toString('hex')}`;
    try {
      for (const file of files) await this.deps.store.write(file.path, file.content, { expected: file.before, batch });
    } catch (error) {
      if (this.deps.history.batch(batch).length > 0) await this.deps.history.revertBatch(batch, { force: true });
      return failure(`${errorMessage(error)}; nothing was changed`);
    }
    return succeed(batch);
  }

  /** The person's own Markdown files, newest first, within half the budget (the other half is the answer's). */
  private gather(): Map<string, string> {
    let room = (this.deps.settings.consolidate_tokens * CHARS_PER_TOKEN) / 2;
    const files = [...this.deps.store.list()].sort((a, b) => b.mtimeMs - a.mtimeMs);
    const chosen = new Map<string, string>();
    for (const file of files) {
      // Checked in this order, so a file is looked up (a path resolved, its labels read) only when it would fit.
      if (file.size > room || !/\.md$/i.test(file.path) || file.path === 'README.md' || !this.writable(file.path).success) continue;
      try {
        const content = this.deps.store.read(file.path);
        chosen.set(file.path, content);
        room -= content.length;
      } catch {
        // removed since the listing
      }
    }
    return chosen;
  }

  private async ask(files: ReadonlyMap<string, string>): Promise<Result<{ summary: string; files: ProposedFile[] }>> {
    const listing = [...files].map(([path, content]) => `=== ${path} ===\n${content}`).join('\n\n');
    let text: string;
    try {
      const response = await this.deps.llm.complete({
        messages: [{ role: 'system', content: CONSOLIDATION_INSTRUCTIONS }, { role: 'user', content: listing }],
        maxTokens: Math.ceil(this.deps.settings.consolidate_tokens / 2),
      });
      text = response.content;
    } catch (error) {
      return failure(`the model did not answer: ${errorMessage(error)}`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text.trim().replace(/^```(?:json)?\s*/i, '').replace(/\s*```$/, ''));
    } catch {
      return failure('the model did not answer with JSON');
    }
    const answer = answerSchema().safeParse(parsed);
    if (!answer.success) return failure(`the model's answer has the wrong shape: ${answer.error.issues[0]?.message ?? 'invalid'}`);
    return succeed(answer.data);
  }

  /** The person's own file: inside the folder, Markdown, and not labelled outside content. */
  private writable(path: string): Result {
    const resolved = this.deps.store.resolve(path);
    if (!resolved.success) return failure(resolved.error);
    const person = this.deps.household?.person;
    if ((person ? shownPath(person, resolved.value.relative) : resolved.value.relative) !== path) return failure(`${path} is not a plain folder-relative path`);
    // A household's pass keeps to the person's folder: not the household's shared/, nor a folder named like another's.
    if (person && (path.startsWith(`${SHARED_DIR}/`) || path.startsWith('people/'))) return failure(`${path} is not in your own folder`);
    if (!/\.md$/i.test(path) || path === 'README.md') return failure(`${path} is not a memory note (.md)`);
    if (this.deps.labels.get('memory', resolved.value.relative) !== undefined) return failure(`${path} holds outside content; consolidation never touches it`);
    return succeed(undefined);
  }

  /** How far the writes were counted: in a household each person's own mark. */
  private throughKey(): string {
    const person = this.deps.household?.person;
    return person ? `through:${person.name}` : 'through';
  }

  /** Runs as the household's person (their view of the folder), else as is. */
  private asPerson<T>(run: () => T): T {
    const person = this.deps.household?.person;
    return person ? withPerson(person, run) : run();
  }

  /** The path a proposal row keeps: in a household the stored one (`people/ben/log.md`). */
  private stored(path: string): string {
    const person = this.deps.household?.person;
    return person ? storedPath(person, path) : path;
  }

  /** A row's files as this consolidator sees them; undefined when any is not its person's (another's proposal). */
  private ownFiles(json: string): StoredFile[] | undefined {
    const files = JSON.parse(json) as StoredFile[];
    const person = this.deps.household?.person;
    if (!person) return files;
    const shown = files.map((file) => ({ ...file, path: file.path.startsWith(`${person.folder}/`) ? shownPath(person, file.path) : undefined }));
    return shown.every((file): file is StoredFile => file.path !== undefined) ? shown : undefined;
  }

  private close(token: string, status: string, message: string): Result<string> {
    this.deps.db.prepare('UPDATE memory_proposals SET status = ? WHERE token = ?').run(status, token);
    return failure(message);
  }

  private lastHistoryId(): number {
    return (this.deps.db.prepare('SELECT COALESCE(MAX(id), 0) AS id FROM memory_history').get() as { id: number }).id;
  }

  private state(key: string): string | undefined {
    return (this.deps.db.prepare('SELECT value FROM memory_state WHERE key = ?').get(key) as { value: string } | undefined)?.value;
  }

  private setState(key: string, value: string): void {
    this.deps.db.prepare('INSERT INTO memory_state (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(key, value);
  }

  private now(): number {
    return (this.deps.now ?? Date.now)();
  }
}

/** The proposal as the person sees it in chat: the model's summary and the diff of each file, cut to fit. */
function describe(summary: string, files: readonly StoredFile[]): string {
  const diffs = files.map((file) => `${file.before === null ? 'new file' : 'changed'}: ${file.path}\n${lineDiff(file.before ?? '', file.content, 1)}`).join('\n\n');
  const shown = diffs.length > DIFF_CHARS ? `${diffs.slice(0, DIFF_CHARS)}\n… (cut here; once applied, familiar memory diff shows each file whole)` : diffs;
  return `🧹 Memory tidy-up proposed (nothing is lost: every entry is kept or marked superseded).\n${summary}\n\n${shown}`;
}
