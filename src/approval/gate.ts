import type { Config } from '../config/schema.js';
import { errorMessage } from '../errors.js';
import { redactSecrets, type Logger } from '../log.js';
import { escapeInvisible } from '../lib/invisible.js';
import { createPolicy } from '../tools/policy.js';
import type { ApprovalDecision, ApprovalHandler, ApprovalRequest, ToolRegistry } from '../tools/registry.js';
import { describeArguments, type Described } from './describe.js';
import { OpenQuestions } from './open-questions.js';
import type { ApprovalPrompter } from './prompter.js';

/** Room left in a channel's message for the outcome line added once the question is decided. */
const OUTCOME_ROOM = 120;

export interface ApprovalsOptions {
  config: Config;
  secrets: readonly string[];
  tools: ToolRegistry;
  log: Logger;
}

/**
 * Decides every high-risk call (installed as the registry's approval gate):
 * 1. unattended runs cannot ask: the run's own handler decides (a job's `approve` list), else denied — and a
 *    tainted unattended run is denied outright (its approve list is a standing approval, like auto_approve);
 * 2. `approval.auto_approve` tools pass, unless the turn has taken in outside content (tainted);
 * 3. otherwise the person is asked — through the request's handler, or the prompter registered for the
 *    origin's channel — and no answer within `approval.timeout_s` is a denial.
 */
export class Approvals {
  /** Every question waiting for a person, whichever channel asked: any surface may list and answer them. */
  readonly questions = new OpenQuestions();
  private readonly options: ApprovalsOptions;
  private readonly prompters = new Map<string, ApprovalPrompter>();
  private readonly timeoutMs: number;

  constructor(options: ApprovalsOptions) {
    this.options = options;
    this.timeoutMs = options.config.approval.timeout_s * 1000;
  }

  /** A channel registers how it asks its people (one prompter per channel name: `telegram`, `cli`, …). */
  registerPrompter(channel: string, prompter: ApprovalPrompter): void {
    this.prompters.set(channel, prompter);
  }

  unregisterPrompter(channel: string, prompter?: ApprovalPrompter): void {
    if (!prompter || this.prompters.get(channel) === prompter) this.prompters.delete(channel);
  }

  /**
   * An ApprovalHandler that asks through `prompter` with the standard text (for `TurnInput.approve`). The question
   * is also listed in `questions` while it is open, so another surface (the console) can answer it: the first
   * answer anywhere wins, and the prompter hears how it ended (`settled`) to update its message.
   */
  handlerFor(prompter: ApprovalPrompter): ApprovalHandler {
    return async (request) => {
      const question = this.question(request, prompter.maxChars !== undefined ? prompter.maxChars - OUTCOME_ROOM : undefined);
      // What cannot be shown whole is not asked about: the person would approve something they did not see.
      if (!question.success) return { approved: false, reason: question.error };
      const whole = prompter.maxChars === undefined ? question : this.question(request);
      const { origin } = request;
      const open = this.questions.ask({
        callId: request.callId, tool: request.tool, channel: origin.channel, chatId: origin.chatId, userId: origin.userId,
        conversationId: request.conversationId, text: whole.success ? whole.value : question.value, taint: request.taint,
        timeoutMs: this.timeoutMs, signal: request.signal,
      });
      const asked = prompter.ask({
        chatId: origin.chatId,
        ...(origin.userId !== undefined ? { userId: origin.userId } : {}),
        text: question.value,
        timeoutMs: this.timeoutMs,
        callId: request.callId,
        tool: request.tool,
        ...(request.signal ? { signal: request.signal } : {}),
        claim: (answer, by) => open.settle(answer, { by, surface: origin.channel }),
        settled: open.settled.then(({ answer, outcome }) => ({ answer, outcome })),
      });
      try {
        // A prompter that does not claim (the terminal) settles the question when it answers; the first answer wins.
        const answer = await Promise.race([asked, open.settled.then((settlement) => settlement.answer)]);
        open.settle(answer, { surface: origin.channel });
      } catch (error) {
        // The question could not be shown: it is not left open for another surface (nobody saw it where it was asked).
        open.settle('timeout');
        throw error;
      }
      const { answer, surface } = await open.settled;
      if (answer === 'stopped') return { approved: false, reason: STOPPED };
      if (answer === 'approve') {
        return { approved: true, by: surface === origin.channel ? `${origin.channel}:${origin.userId ?? origin.chatId}` : `the owner in the ${surface ?? 'console'}` };
      }
      if (answer === 'deny') return { approved: false, reason: surface === origin.channel || surface === undefined ? 'the person said no' : `the owner said no in the ${surface}` };
      return { approved: false, reason: `no answer within ${formatSeconds(this.timeoutMs)}` };
    };
  }

  /**
   * The question shown to the person: the tool, then its arguments with where the call goes first and whole
   * (`describe.ts`), then for a tainted turn its outside sources, then the deadline. Secrets are redacted and
   * secret-looking keys masked. Fails when the question cannot fit `maxChars` with its destination whole.
   */
  question(request: ApprovalRequest, maxChars?: number): Described {
    const entry = this.options.tools.get(request.tool);
    const shown = entry && entry.functionName !== entry.name ? `${entry.name} (${entry.functionName})` : request.tool;
    const head = request.reason === 'provenance'
      ? `Approve this action? This conversation holds outside content, and ${shown} could send data out or change what runs later. It will run with:`
      : `Approve this action? ${shown} is a high-risk tool. It will run with:`;
    const tail: string[] = [];
    for (const line of request.details ?? []) tail.push(escapeInvisible(redactSecrets(line, this.options.secrets)).slice(0, 600));
    // Where the call's inputs came from: the person, the outside content, or the model (src/trust/policy.ts).
    for (const line of request.provenance ?? []) tail.push(`• ${escapeInvisible(redactSecrets(line, this.options.secrets)).slice(0, 600)}`);
    if (request.taint.length > 0) {
      const sources = request.taint.map((source) => escapeInvisible(redactSecrets(source, this.options.secrets).slice(0, 200))).join(', ');
      tail.push(`⚠ This conversation holds outside content (${sources}). It may carry instructions that did not come from you: approve only if you asked for this.`);
    }
    tail.push(`No answer within ${formatSeconds(this.timeoutMs)} means no.`);
    const frame = head.length + tail.reduce((total, line) => total + line.length + 1, 0) + 2;
    const body = describeArguments(request.params, this.options.secrets, maxChars !== undefined ? maxChars - frame : undefined);
    if (!body.success) return body;
    return { success: true, value: [head, body.value, ...tail].join('\n') };
  }

  /** The registry's approval gate. Contract: never throws; every failure is a denial with a reason. */
  readonly gate = async (request: ApprovalRequest, handler: ApprovalHandler | undefined): Promise<ApprovalDecision> => {
    const log = this.options.log.child({ tool: request.tool, callId: request.callId });
    const tainted = request.taint.length > 0;
    if (request.unattended) {
      if (!handler) {
        return { approved: false, reason: `this is an unattended run (job or skill) and nobody can approve ${request.tool}; list it in the job's or skill's approve list if it should run unattended` };
      }
      // A job's approve list is a standing approval, like auto_approve: outside content read in this run
      // (a mail, a page) could be steering the call, and nobody is there to look.
      if (tainted) {
        return { approved: false, reason: `this unattended run has read outside content (${request.taint.map((source) => redactSecrets(source, this.options.secrets)).join(', ')}), so ${request.tool} needs a person's approval and nobody can give it here, even with the tool on the approve list` };
      }
      return this.ask(handler, request, log);
    }
    if (this.autoApproved(request.tool)) {
      if (!tainted) return { approved: true, by: 'auto_approve' };
      log.info({ taint: request.taint }, 'auto-approved tool asked anyway: the turn read outside content');
    }
    const prompter = this.prompters.get(request.origin.channel);
    const ask = handler ?? (prompter ? this.handlerFor(prompter) : undefined);
    if (!ask) {
      return { approved: false, reason: `nobody can be asked to approve ${request.tool} on ${request.origin.channel} (this channel has no approval prompt); the person can add it to approval.auto_approve or use a chat that can ask` };
    }
    return this.ask(ask, request, log);
  };

  private autoApproved(tool: string): boolean {
    const patterns = this.options.config.approval.auto_approve;
    if (patterns.length === 0) return false;
    const entry = this.options.tools.get(tool);
    return entry ? createPolicy(patterns).allows(entry) : patterns.includes(tool);
  }

  private async ask(handler: ApprovalHandler, request: ApprovalRequest, log: Logger): Promise<ApprovalDecision> {
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const timeout = new Promise<ApprovalDecision>((resolve) => {
      timer = setTimeout(() => resolve({ approved: false, reason: `no answer within ${formatSeconds(this.timeoutMs)}` }), this.timeoutMs);
      timer.unref?.();
      // A stopped turn does not wait for the person, whatever the prompter does with the signal.
      onAbort = () => resolve({ approved: false, reason: STOPPED });
      if (request.signal?.aborted) onAbort();
      else request.signal?.addEventListener('abort', onAbort, { once: true });
    });
    try {
      const decision = await Promise.race([handler(request), timeout]);
      log.info({ approved: decision.approved, ...(decision.approved ? { by: decision.by } : { reason: decision.reason }) }, 'approval decided');
      return decision;
    } catch (error) {
      log.warn({ err: error }, 'approval handler failed');
      return { approved: false, reason: `the approval could not be asked (${errorMessage(error)})` };
    } finally {
      if (timer) clearTimeout(timer);
      if (onAbort) request.signal?.removeEventListener('abort', onAbort);
    }
  }
}

const STOPPED = 'the turn was stopped before anyone answered';

export function formatSeconds(ms: number): string {
  if (ms < 10_000 && ms % 1000 !== 0) return `${(ms / 1000).toFixed(1)} s`;
  const seconds = Math.round(ms / 1000);
  if (seconds < 120) return `${seconds} s`;
  return `${Math.round(seconds / 60)} min`;
}
