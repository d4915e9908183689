import type { Config } from '../config/schema.js';
import { errorMessage } from '../errors.js';
import { redactSecrets, type Logger } from '../log.js';
import { escapeInvisible } from '../lib/invisible.js';
import type { ToolRegistry } from '../registry/registry.js';
import type { ApprovalDecision, ApprovalHandler, ApprovalRequest } from '../tools/call.js';
import { describeArguments, type Described } from './describe.js';
import { OpenQuestions, type Settlement } from './open-questions.js';
import type { CallOrigin } from '../tools/types.js';
import type { ApprovalPrompter } from './prompter.js';

/** Room left in a channel's message for the outcome line added once the question is decided. */
const OUTCOME_ROOM = 120;

export interface ApprovalsOptions {
  config: Config;
  secrets: readonly string[];
  /** How a tool is named to the person (its canonical and function names). */
  tools: Pick<ToolRegistry, 'get'>;
  log: Logger;
}

/**
 * How a person is asked: the prompters the channels register, the question's text, the open questions any surface
 * may answer, and the deadline. Whether to ask, and who may answer, is the gate's (src/gate/answer.ts).
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
      return this.decision(await open.settled, origin);
    };
  }

  /**
   * A question only the console answers: the owner is reachable on no chat (docs/household.md). It is listed in
   * `questions` as the console's own, so a Web Push goes out where the console has one set up.
   */
  handlerForConsole(): ApprovalHandler {
    return async (request) => {
      const question = this.question(request);
      if (!question.success) return { approved: false, reason: question.error };
      const open = this.questions.ask({
        callId: request.callId, tool: request.tool, channel: 'console', chatId: 'owner', userId: undefined,
        conversationId: request.conversationId, text: question.value, taint: request.taint, timeoutMs: this.timeoutMs, signal: request.signal,
      });
      return this.decision(await open.settled, { channel: 'console', chatId: 'owner' });
    };
  }

  /** How a question ended, as the gate's decision: who said yes (and where), or why not. */
  private decision({ answer, surface }: Settlement, origin: CallOrigin): ApprovalDecision {
    if (answer === 'stopped') return { approved: false, reason: STOPPED };
    if (answer === 'approve') {
      return { approved: true, by: surface === origin.channel && origin.channel !== 'console' ? `${origin.channel}:${origin.userId ?? origin.chatId}` : `the owner in the ${surface ?? 'console'}` };
    }
    const asked = surface === undefined || (surface === origin.channel && origin.channel !== 'console');
    if (answer === 'deny') return { approved: false, reason: asked ? 'the person said no' : `the owner said no in the ${surface}` };
    return { approved: false, reason: `no answer within ${formatSeconds(this.timeoutMs)}` };
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
      : request.reason === 'budget'
        ? `Approve this action? This conversation holds outside content, and ${shown} was chosen among addresses or words it offered: enough such choices could spell out what I know. It will run with:`
        : `Approve this action? ${shown} is a high-risk tool. It will run with:`;
    const tail: string[] = [];
    for (const line of request.details ?? []) tail.push(escapeInvisible(redactSecrets(line, this.options.secrets)).slice(0, 600));
    // Where the call's inputs came from: the person, the outside content, or the model; the budget (src/gate/).
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

  /** The prompter registered for a channel, as a handler; undefined when that channel cannot ask. */
  handlerForChannel(channel: string): ApprovalHandler | undefined {
    const prompter = this.prompters.get(channel);
    return prompter ? this.handlerFor(prompter) : undefined;
  }

  /**
   * Asks through `handler`, racing `approval.timeout_s` and the turn's cancellation. Contract: never throws; a handler
   * that fails is a denial with the reason.
   */
  async ask(handler: ApprovalHandler, request: ApprovalRequest): Promise<ApprovalDecision> {
    const log = this.options.log.child({ tool: request.tool, callId: request.callId });
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
