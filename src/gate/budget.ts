import type { Config } from '../config/schema.js';
import type { Database } from '../db/database.js';
import { failure, succeed, type Result } from '../lib/result.js';
import type { RunIdentity } from '../tools/call.js';

const DAY_MS = 24 * 60 * 60 * 1000;
/** Charges are kept this long (what `familiar audit` and the budgets look back on, with room to spare). */
const KEEP_MS = 7 * DAY_MS;

/** One charge: a fetch or search in a tainted turn that goes ahead unasked. */
export interface Charge {
  turnId: string;
  conversationId: string;
  tool: string;
  callId: string;
  unattended: boolean;
  run: RunIdentity | undefined;
  bits: number;
}

/**
 * The leak budget. A turn holding outside content may fetch an address, or search words, that the person or a third
 * party wrote without asking — but *which* one it picks among N is a choice the content can steer, worth log2(N+1)
 * bits to whoever reads the requests. Every such call is charged here before it runs; a call that would pass a budget
 * is not charged and asks instead (refused, unattended). The budgets: one turn (`turn_bits`) or unattended run
 * (`run_bits`), one job or skill in any 24 hours (`job_day_bits`), everything in any 24 hours (`day_bits`). Charges
 * live in SQLite (`leak_charges`), so they hold across restarts and one-shot commands.
 * Contract: `charge` is synchronous — parallel calls of one step see each other's charges.
 */
export class LeakBudget {
  private readonly statements;
  private readonly now: () => number;
  private lastPrune = 0;

  constructor(db: Database, private readonly config: Pick<Config, 'trust'>, now: () => number = Date.now) {
    this.now = now;
    this.statements = {
      insert: db.prepare('INSERT INTO leak_charges (at, turn_id, conversation_id, scope, tool, call_id, bits) VALUES (?, ?, ?, ?, ?, ?, ?)'),
      turn: db.prepare('SELECT COALESCE(SUM(bits), 0) AS bits FROM leak_charges WHERE turn_id = ?'),
      scope: db.prepare('SELECT COALESCE(SUM(bits), 0) AS bits FROM leak_charges WHERE scope = ? AND at > ?'),
      day: db.prepare('SELECT COALESCE(SUM(bits), 0) AS bits FROM leak_charges WHERE at > ?'),
      prune: db.prepare('DELETE FROM leak_charges WHERE at < ?'),
    };
  }

  /**
   * Charges `bits` unless that would pass a budget. The value is the audit's decision line ("unasked: 8.0 bits of the
   * leak budget; turn 8.0 of 16, …"); the error says which budget and how to go on.
   */
  charge(charge: Charge): Result<string> {
    const limits = this.config.trust.leak_budget;
    const at = this.now();
    const since = at - DAY_MS;
    const scope = charge.run ? `${charge.run.owner}:${charge.run.id}` : null;
    const turnLimit = charge.unattended ? limits.run_bits : limits.turn_bits;
    const spent = {
      turn: this.sum(this.statements.turn, charge.turnId),
      job: scope !== null ? this.sum(this.statements.scope, scope, since) : 0,
      day: this.sum(this.statements.day, since),
    };
    const after = { turn: spent.turn + charge.bits, job: spent.job + charge.bits, day: spent.day + charge.bits };
    const what = charge.unattended ? `this ${charge.run?.owner ?? 'run'}'s run` : 'this turn';
    const over = after.turn > turnLimit + EPSILON ? `${what} has ${format(turnLimit - spent.turn)} of its ${format(turnLimit)} bits left`
      : scope !== null && after.job > limits.job_day_bits + EPSILON ? `the ${charge.run?.owner ?? 'job'} "${charge.run?.id ?? ''}" has ${format(limits.job_day_bits - spent.job)} of its ${format(limits.job_day_bits)} bits for 24 hours left`
        : after.day > limits.day_bits + EPSILON ? `the daemon has ${format(limits.day_bits - spent.day)} of its ${format(limits.day_bits)} bits for 24 hours left`
          : undefined;
    if (over !== undefined) {
      return failure(`This ${charge.tool} call would go ahead without asking only because its address or words appear in what the person or a third party wrote, but choosing it among the others could carry ${format(charge.bits)} bits of what the model knows, and ${over} (trust.leak_budget)`);
    }
    this.statements.insert.run(at, charge.turnId, charge.conversationId, scope, charge.tool, charge.callId, charge.bits);
    this.prune(at);
    const parts = [`${charge.unattended ? 'run' : 'turn'} ${format(after.turn)} of ${format(turnLimit)}`, ...(scope !== null ? [`${scope} ${format(after.job)} of ${format(limits.job_day_bits)} in 24 h`] : []), `all ${format(after.day)} of ${format(limits.day_bits)} in 24 h`];
    return succeed(`unasked: ${format(charge.bits)} bits of the leak budget (${parts.join(', ')})`);
  }

  /** What was charged in the last 24 hours, for `familiar status` and the console. */
  spentToday(): number {
    return this.sum(this.statements.day, this.now() - DAY_MS);
  }

  private sum(statement: { get(...args: unknown[]): unknown }, ...args: unknown[]): number {
    return (statement.get(...args) as { bits: number }).bits;
  }

  private prune(at: number): void {
    if (at - this.lastPrune < DAY_MS) return;
    this.lastPrune = at;
    this.statements.prune.run(at - KEEP_MS);
  }
}

/** Sums of logarithms are not exact: a budget is not passed by rounding. */
const EPSILON = 1e-9;

function format(bits: number): string {
  return (Math.max(0, bits)).toFixed(1);
}
