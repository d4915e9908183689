import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Statement } from 'better-sqlite3';
import type { Database } from '../db/database.js';
import { errorMessage } from '../errors.js';
import { writeFileAtomic } from '../lib/atomic-write.js';
import { parseSkill, SKILL_FILE, SKILL_ID, withStatus, type ScheduleCheck, type Skill, type SkillStatus } from './format.js';
import type { Result } from '../lib/result.js';

/** One folder of `skills_dir`: a valid skill, or the reason it is not one. */
export type SkillEntry = { id: string; dir: string } & Result<Skill>;

export type SkillRunTrigger = 'manual' | 'cron' | 'test';
export type SkillRunStatus = 'running' | 'ok' | 'failed' | 'refused';

export interface SkillRun {
  id: number;
  skillId: string;
  trigger: SkillRunTrigger;
  status: SkillRunStatus;
  startedAt: number;
  endedAt: number | undefined;
  durationMs: number | undefined;
  output: string | undefined;
  error: string | undefined;
}

interface RunRow {
  id: number;
  skill_id: string;
  trigger: string;
  status: string;
  started_at: number;
  ended_at: number | null;
  duration_ms: number | null;
  output: string | null;
  error: string | null;
}

/** Who made a skill in a household (table skill_makers), and the chat it was made in. */
export interface SkillMaker {
  person: string;
  /** `telegram:123`: where it was made; undefined at the terminal and the console. */
  chat: string | undefined;
}

export const RUN_OUTPUT_CHARS = 4000;
/** Files a skill folder may hold in all (hub installs and generated skills alike). */
export const MAX_SKILL_FILES = 200;
export const MAX_SKILL_BYTES = 5_000_000;

/**
 * Skills on disk and their run records in SQLite. SKILL.md is read fresh on every call, so a hand edit
 * applies on the next run. Only the parse of a text already seen is kept: a listing, `list_skills` and the
 * scheduler's resync every 30 s read every SKILL.md, and parsing and validating one costs about half a
 * millisecond (100 skills: 52 ms a listing), while reading it costs a few microseconds.
 */
export class SkillStore {
  readonly dir: string;
  private readonly timeZone: string;
  private readonly db: Database;
  /** The last parse of each skill's text, by id and schedule check: reused only for the very same text. */
  private readonly parses = new Map<string, { text: string; result: Result<Skill> }>();
  private readonly statements: {
    start: Statement<[string, string, number]>;
    finish: Statement<[string, number, number, string | null, string | null, number]>;
    last: Statement<[string], RunRow>;
    runs: Statement<[string, number], RunRow>;
    maker: Statement<[string], { person: string; chat: string | null }>;
    setMaker: Statement<[string, string, string | null, number]>;
    dropMaker: Statement<[string]>;
  };

  constructor(options: { dir: string; db: Database; timeZone: string }) {
    this.dir = path.resolve(options.dir);
    this.db = options.db;
    this.timeZone = options.timeZone;
    this.statements = {
      start: this.db.prepare("INSERT INTO skill_runs (skill_id, trigger, status, started_at) VALUES (?, ?, 'running', ?)"),
      finish: this.db.prepare('UPDATE skill_runs SET status = ?, ended_at = ?, duration_ms = ?, output = ?, error = ? WHERE id = ?'),
      last: this.db.prepare("SELECT * FROM skill_runs WHERE skill_id = ? AND trigger != 'test' ORDER BY started_at DESC, id DESC LIMIT 1"),
      runs: this.db.prepare('SELECT * FROM skill_runs WHERE skill_id = ? ORDER BY started_at DESC, id DESC LIMIT ?'),
      maker: this.db.prepare('SELECT person, chat FROM skill_makers WHERE skill_id = ?'),
      setMaker: this.db.prepare('INSERT INTO skill_makers (skill_id, person, chat, made_at) VALUES (?, ?, ?, ?) ON CONFLICT (skill_id) DO UPDATE SET person = excluded.person, chat = excluded.chat, made_at = excluded.made_at'),
      dropMaker: this.db.prepare('DELETE FROM skill_makers WHERE skill_id = ?'),
    };
  }

  /**
   * Every folder of `skills_dir` (dot-folders skipped), valid or not, sorted by id. `schedules`: see ScheduleCheck.
   * Contract: never throws.
   */
  list(schedules: ScheduleCheck = 'all'): SkillEntry[] {
    return this.ids().map((name) => this.read(name, schedules));
  }

  /** One skill by id, read now; undefined when there is no such folder. */
  get(id: string, schedules: ScheduleCheck = 'all'): SkillEntry | undefined {
    if (!SKILL_ID.test(id)) return undefined;
    const dir = path.join(this.dir, id);
    if (!existsSync(dir) || !statSync(dir).isDirectory()) return undefined;
    return this.read(id, schedules);
  }

  folder(id: string): string {
    if (!SKILL_ID.test(id)) throw new Error(`"${id}" is not a valid skill id`);
    return path.join(this.dir, id);
  }

  /** Ids of the folders (valid or not, sorted), for "did you mean" lists; no SKILL.md is read. */
  ids(): string[] {
    try {
      return readdirSync(this.dir, { withFileTypes: true }).filter((entry) => entry.isDirectory() && !entry.name.startsWith('.')).map((entry) => entry.name).sort();
    } catch {
      return [];
    }
  }

  /** Writes a new skill folder: SKILL.md plus extra files (paths relative to the folder, already checked). */
  async write(id: string, skillText: string, files: ReadonlyArray<{ path: string; content: string }> = []): Promise<string> {
    const dir = this.folder(id);
    mkdirSync(dir, { recursive: true });
    for (const file of files) {
      const target = path.join(dir, file.path);
      mkdirSync(path.dirname(target), { recursive: true });
      await writeFileAtomic(target, file.content);
    }
    await writeFileAtomic(path.join(dir, SKILL_FILE), skillText);
    return dir;
  }

  /** Changes `status:` in SKILL.md, keeping the rest of the file as the person wrote it. */
  async setStatus(id: string, status: SkillStatus): Promise<Result> {
    const file = path.join(this.folder(id), SKILL_FILE);
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      return { success: false, error: `cannot read ${file}: ${errorMessage(error)}` };
    }
    const next = withStatus(text, status);
    if (next === undefined) return { success: false, error: `cannot edit the frontmatter of ${file}; fix it by hand` };
    await writeFileAtomic(file, next);
    return { success: true, value: undefined };
  }

  remove(id: string): boolean {
    const dir = this.folder(id);
    this.statements.dropMaker.run(id);
    if (!existsSync(dir)) return false;
    rmSync(dir, { recursive: true, force: true });
    return true;
  }

  // ---- makers (a household's: who made each skill)

  /** Who made the skill; undefined: the owner's (made at the terminal, before the household, or never recorded). */
  maker(id: string): SkillMaker | undefined {
    const row = this.statements.maker.get(id);
    return row ? { person: row.person, chat: row.chat ?? undefined } : undefined;
  }

  /** Records who made (or installed) the skill; no person (the terminal: the owner) drops the record. */
  setMaker(id: string, maker: SkillMaker | undefined, now = Date.now()): void {
    if (maker) this.statements.setMaker.run(id, maker.person, maker.chat ?? null, now);
    else this.statements.dropMaker.run(id);
  }

  /**
   * Forgets the makers of skills whose folder is gone (removed by hand), so a folder dropped in later under the same
   * id is the owner's, not the old maker's.
   */
  pruneMakers(ids: readonly string[]): void {
    const rows = this.db.prepare<[], { skill_id: string }>('SELECT skill_id FROM skill_makers').all();
    const present = new Set(ids);
    for (const row of rows) if (!present.has(row.skill_id)) this.statements.dropMaker.run(row.skill_id);
  }

  // ---- run records

  startRun(skillId: string, trigger: SkillRunTrigger, now = Date.now()): number {
    return Number(this.statements.start.run(skillId, trigger, now).lastInsertRowid);
  }

  finishRun(runId: number, outcome: { status: Exclude<SkillRunStatus, 'running'>; output: string; error?: string | undefined }, startedAt: number, now = Date.now()): void {
    this.statements.finish.run(outcome.status, now, Math.max(0, now - startedAt), outcome.output.slice(0, RUN_OUTPUT_CHARS), outcome.error?.slice(0, 2000) ?? null, runId);
  }

  /** The last manual or cron run (test runs of create_skill are not "runs" of the skill). */
  lastRun(skillId: string): SkillRun | undefined {
    const row = this.statements.last.get(skillId);
    return row ? toRun(row) : undefined;
  }

  runs(skillId: string, limit = 20): SkillRun[] {
    return this.statements.runs.all(skillId, limit).map(toRun);
  }

  /** Runs left `running` by a crash: marked failed so `list_skills` does not show them as running forever. */
  markInterrupted(now = Date.now()): number {
    return this.db.prepare("UPDATE skill_runs SET status = 'failed', ended_at = ?, error = 'interrupted: the daemon stopped during the run' WHERE status = 'running'").run(now).changes;
  }

  private read(id: string, schedules: ScheduleCheck): SkillEntry {
    const dir = path.join(this.dir, id);
    const key = `${schedules}:${id}`;
    let text: string;
    try {
      text = readFileSync(path.join(dir, SKILL_FILE), 'utf8');
    } catch (error) {
      const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
      this.parses.delete(key);
      return { id, dir, success: false, error: missing ? `no ${SKILL_FILE} in ${dir}` : `cannot read ${SKILL_FILE}: ${errorMessage(error)}` };
    }
    let last = this.parses.get(key);
    if (last?.text !== text) {
      last = { text, result: parseSkill(id, text, this.timeZone, schedules) };
      this.parses.set(key, last);
    }
    // A copy: what a caller changes in its skill is not seen by the next one.
    return { id, dir, ...structuredClone(last.result) };
  }
}

function toRun(row: RunRow): SkillRun {
  return {
    id: row.id,
    skillId: row.skill_id,
    trigger: row.trigger === 'cron' ? 'cron' : row.trigger === 'test' ? 'test' : 'manual',
    status: row.status as SkillRunStatus,
    startedAt: row.started_at,
    endedAt: row.ended_at ?? undefined,
    durationMs: row.duration_ms ?? undefined,
    output: row.output ?? undefined,
    error: row.error ?? undefined,
  };
}
