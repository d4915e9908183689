import { defaultMaxListeners, setMaxListeners } from 'node:events';
import type OpenAI from 'openai';
import type { Config } from '../config/schema.js';
import type { Database } from '../db/database.js';
import { LlmError, errorMessage } from '../errors.js';
import { linkAbort } from '../lib/abort.js';
import { ZonedClock } from '../lib/clock.js';
import type { ChatMessage, LlmClient, LlmResponse, LlmTextEvent, ToolCallRequest } from '../llm/types.js';
import type { Logger } from '../log.js';
import type { ToolFilter } from '../tools/tool-filter.js';
import type { ToolRegistry } from '../registry/registry.js';
import type { ApprovalHandler, AuditRecord, RunIdentity } from '../tools/call.js';
import type { Artifact, CallOrigin } from '../tools/types.js';
import type { LlmGate, TurnEvent, TurnResult, TurnSource } from './types.js';
import type { ConversationStore, History } from './conversations.js';
import type { Provenance, Vouched } from '../tools/effects.js';
import { attachImages, buildSystemPrompt, type PromptMemory } from './prompt.js';
import { callKey } from './call-key.js';
import { newTurnId } from './turn-id.js';

export interface TurnInput {
  conversationId: string;
  /** Its calls' workspace (src/workspace/workspace-key.ts); default the conversation's. */
  workspaceId?: string;
  text: string;
  /** Sent as image content when `llm.vision` is on; only a text note is kept in history. */
  images?: ReadonlyArray<{ mimeType: string; data: Buffer }>;
  origin: CallOrigin;
  source: TurnSource;
  signal?: AbortSignal;
  /**
   * The turn's own controller when its caller made one (the chat queue, which aborts it at shutdown): the turn
   * aborts it on its timeout or a tool's cancel, instead of making a second one linked to `signal`.
   */
  controller?: AbortController;
  unattended?: boolean;
  /** The unattended run this turn is (its leak budget). */
  run?: RunIdentity;
  /** The tools this turn is offered (the agent's, a skill's list, the unattended set). */
  filter?: ToolFilter;
  approve?: ApprovalHandler;
  /** Agent profile overrides. */
  persona?: string;
  model?: string;
  /** Appended to the system prompt (a skill's instructions, a job's context). */
  systemExtra?: string;
  /** Called for progress (the terminal prints tool calls). */
  onEvent?: (event: TurnEvent) => void;
  /** Also stream the answer's text to `onEvent` (text_delta events). */
  stream?: boolean;
  /** Outside sources the turn starts with (a tainted job or skill, a skill run from a tainted turn). */
  taint?: readonly string[];
  /** In a household, whom the turn is for (kept on its row: usage and budget per person). */
  person?: string;
  /** The person's own time zone for the prompt's date (default: the daemon's). */
  timezone?: string;
}

export interface AgentDeps {
  config: Config;
  db: Database;
  llm: LlmClient;
  tools: ToolRegistry;
  memory: PromptMemory;
  conversations: ConversationStore;
  clock: ZonedClock;
  log: Logger;
  /** Checked before every LLM call, in order (the daily token budget). */
  gates?: readonly LlmGate[];
  /** Written on each turn row: which process runs it (`daemon`, or `pid:N` for a one-shot command). */
  runner?: string;
  now?: () => Date;
}

const REPEAT_LIMIT = 3;
/** What one tool call adds to the turn's signal at most: its own cancellation, the deadline race, a hook's bound. */
const LISTENERS_PER_CALL = 3;

/** Messages waiting for a commit, each with its outside sources and what it vouches for. */
interface Staged {
  messages: ChatMessage[];
  sources: Array<string[] | undefined>;
  vouched: Array<Vouched | undefined>;
}

/** What one call of a step gives the turn; `readOnly`: its tool declares it changes nothing. */
interface StepOutcome {
  content: string;
  artifacts: Artifact[];
  vouched?: Vouched;
  readOnly?: boolean;
}

/**
 * The function-calling loop. Contract: `runTurn` never throws for provider or tool failures; the result
 * always carries text for the person, and history stays valid (every tool call has its result).
 */
export class Agent {
  readonly deps: AgentDeps;
  readonly runner: string;
  /** One statement writes the turn row at each commit: created with the first, brought up to date after. */
  readonly saveTurn;

  constructor(deps: AgentDeps) {
    this.deps = deps;
    this.runner = deps.runner ?? `pid:${process.pid}`;
    this.saveTurn = deps.db.prepare(
      `INSERT INTO turns (id, conversation_id, source, started_at, ended_at, status, model, llm_calls, prompt_tokens, completion_tokens, error, runner, person)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET ended_at = excluded.ended_at, status = excluded.status, model = excluded.model,
         llm_calls = excluded.llm_calls, prompt_tokens = excluded.prompt_tokens, completion_tokens = excluded.completion_tokens, error = excluded.error`,
    );
  }

  runTurn(input: TurnInput): Promise<TurnResult> {
    return new Turn(this, input).run();
  }
}

/** One turn's state and its steps: open, build the messages, then model call and tool calls until an answer, close. */
class Turn {
  private readonly agent: Agent;
  private readonly input: TurnInput;
  private readonly turnId = newTurnId();
  private readonly startedAt = Date.now();
  private readonly controller: AbortController;
  private readonly result: TurnResult;
  private readonly userMessage: ChatMessage;
  private readonly repeats = new Map<string, number>();
  /** The tool calls' audit records join the same commit as their results. */
  private readonly audit: AuditRecord[] = [];
  private timer: NodeJS.Timeout | undefined;
  private timedOut = false;
  /** Made and not stored yet: the question until the first commit, a step of read-only calls until the next. */
  private readonly staged: Staged = { messages: [], sources: [], vouched: [] };
  private questionStaged = false;
  private models: readonly string[];
  private closing: ChatMessage[] = [];
  /** Every outside source in play: the history window's, the run's own, and what this turn reads. */
  private readonly taint: string[] = [];
  /** What third parties' words read in this turn vouch for, for the provenance of later calls. */
  private readonly vouchedRead: Vouched[] = [];
  private history: History | undefined;
  private readonly provenance: Provenance;
  /** What the turn's tools share (`ctx.state`), dropped with the turn. */
  private readonly toolState = new Map<string, unknown>();
  /** Set when a tool called `ctx.cancel(reason)`: the turn ends after the step, saying why. */
  private cancelledBy: string | undefined;

  constructor(agent: Agent, input: TurnInput) {
    this.agent = agent;
    this.input = input;
    this.controller = input.controller ?? new AbortController();
    this.userMessage = { role: 'user', content: input.text };
    this.result = {
      turnId: this.turnId, status: 'ok', text: '', artifacts: [], usage: { promptTokens: 0, completionTokens: 0, llmCalls: 0 },
      model: undefined, toolCalls: 0, externalSources: [], taint: this.taint, denied: [],
    };
    for (const source of input.taint ?? []) this.addTaint(source);
    // Where the texts of this conversation came from, read only when a tainted call sends something out.
    this.provenance = {
      personTexts: () => [...(this.history?.personTexts() ?? []), ...((input.taint?.length ?? 0) === 0 ? [input.text] : [])],
      // Only third parties' words vouch for an address: what vouching tools said a third party wrote (never their
      // framing, never an echo of the call's arguments), kept with each result.
      vouched: () => [...(this.history?.vouched() ?? []), ...this.vouchedRead],
    };
    const { llm } = agent.deps;
    this.models = input.model ? [input.model, ...llm.models.filter((model) => model !== input.model)] : llm.models;
  }

  private get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Built on use: a child logger per turn costs more than the rest of a turn's bookkeeping. */
  private log(): Logger {
    return this.agent.deps.log.child({ conversation: this.input.conversationId, turn: this.turnId.slice(-8) });
  }

  async run(): Promise<TurnResult> {
    const { config } = this.agent.deps;
    const unlink = this.linkCancellation();
    const messages = this.buildMessages();
    const schemas = this.agent.deps.tools.toFunctionSchemas(this.input.filter);
    try {
      for (let loop = 0; ; loop += 1) {
        if (loop >= config.llm.max_loops) {
          this.stop('loop_cap', `I stopped after ${config.llm.max_loops} steps without reaching an answer. Tell me how to narrow it down, or ask me to continue.`);
          break;
        }
        if (this.checkGates()) break;
        const response = await this.callModel(messages, schemas);
        if (!response) break;
        if (response.toolCalls.length === 0) {
          this.result.text = response.content.trim() || '(I have nothing to add.)';
          this.closing = [{ role: 'assistant', content: response.content }];
          break;
        }
        const repeated = await this.runToolCalls(response, messages);
        if (this.signal.aborted) throw this.signal.reason;
        if (repeated) {
          this.stop('repeat', `I stopped because I kept calling ${repeated} with the same arguments without getting further. Could you rephrase or give me more detail?`);
          break;
        }
      }
    } catch (error) {
      this.fail(error);
    } finally {
      clearTimeout(this.timer);
      unlink();
      this.stage(this.closing);
      this.commit(true);
    }
    if (this.agent.deps.log.isLevelEnabled('debug')) this.log().debug({ status: this.result.status, toolCalls: this.result.toolCalls, ms: Date.now() - this.startedAt }, 'turn done');
    return this.result;
  }

  /**
   * One controller per turn (the caller's, or one linked to the caller's signal), with its own timer:
   * AbortSignal.timeout keeps its timer (and the turn) alive until it fires. Returns how to unlink it.
   */
  private linkCancellation(): () => void {
    const { config } = this.agent.deps;
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.controller.abort(new DOMException('turn timeout', 'TimeoutError'));
    }, config.agent.turn_timeout_s * 1000);
    this.timer.unref();
    return this.input.controller ? () => undefined : linkAbort(this.controller, this.input.signal);
  }

  /** System prompt (persona, date, memory, tool guidance) + the budgeted history + the question. */
  private buildMessages(): ChatMessage[] {
    const { config, conversations, clock, memory, now } = this.agent.deps;
    const system = buildSystemPrompt({
      persona: this.input.persona ?? config.agent.persona,
      agentName: config.agent.name,
      clock: this.input.timezone !== undefined && this.input.timezone !== clock.timeZone ? new ZonedClock(this.input.timezone) : clock,
      now: now?.() ?? new Date(),
      memory,
      memoryBudget: config.memory.prompt_chars,
      extra: this.input.systemExtra,
    });
    // Outside content still in the history window keeps the conversation tainted: "continue" is not a clean slate.
    this.history = conversations.window(this.input.conversationId, config.agent.history_tokens, config.agent.history_messages, [this.userMessage]);
    for (const source of this.history.sources) this.addTaint(source);
    const messages: ChatMessage[] = [{ role: 'system', content: system }, ...this.history.messages];
    if (this.input.images && this.input.images.length > 0 && config.llm.vision) attachImages(messages, this.input.text, this.input.images);
    return messages;
  }

  /** The usage budget and other gates: true when one stopped the turn. */
  private checkGates(): boolean {
    for (const gate of this.agent.deps.gates ?? []) {
      const blocked = gate({ conversationId: this.input.conversationId, source: this.input.source });
      if (blocked) {
        this.stop('blocked', blocked);
        return true;
      }
    }
    return false;
  }

  /** One LLM call; undefined when the provider failed for good (the turn then answers with an apology). */
  private async callModel(messages: ChatMessage[], schemas: ReturnType<ToolRegistry['toFunctionSchemas']>): Promise<LlmResponse | undefined> {
    let response: LlmResponse;
    try {
      const onEvent = this.input.stream ? this.input.onEvent : undefined;
      response = await this.agent.deps.llm.complete({
        messages, tools: schemas, models: this.models, signal: this.signal,
        ...(onEvent ? { onText: (event: LlmTextEvent) => onEvent(event.type === 'delta' ? { type: 'text_delta', text: event.text } : { type: 'text_reset' }) } : {}),
      });
    } catch (error) {
      if (this.signal.aborted) throw error;
      const reason = error instanceof LlmError ? error.message : errorMessage(error);
      // On the terminal (ask, chat) the reply is the report; the log line would only repeat it.
      this.log()[this.input.source === 'cli' ? 'debug' : 'error']({ err: error }, `llm failed: ${reason}`);
      this.result.error = reason;
      // "Try again" only where waiting helps; a wrong key or URL needs the fix the reason names.
      const transient = !(error instanceof LlmError) || error.transient;
      this.stop('llm_error', `Sorry, I could not answer: ${reason}.${transient ? ' Please try again in a moment.' : ''}`);
      return undefined;
    }
    const { usage } = this.result;
    usage.promptTokens += response.usage.promptTokens;
    usage.completionTokens += response.usage.completionTokens;
    usage.llmCalls += 1;
    this.result.model = response.model;
    // The model that answered serves the rest of this turn (a fallback sticks until the turn ends).
    const answered = this.models.indexOf(response.model);
    if (answered > 0) this.models = this.models.slice(answered);
    return response;
  }

  /** Runs a step's calls concurrently, results in call order, stored with the call. Returns a tool called too often. */
  private async runToolCalls(response: LlmResponse, messages: ChatMessage[]): Promise<string | undefined> {
    const assistant: OpenAI.Chat.Completions.ChatCompletionAssistantMessageParam = {
      role: 'assistant',
      content: response.content || null,
      tool_calls: response.toolCalls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } })),
    };
    let repeated: string | undefined;
    // Each call listens to the turn's signal while it runs (its cancellation, its deadline race): a step of many
    // parallel calls is not a leak, and Node's warning would be printed on the person's terminal.
    setMaxListeners(Math.max(defaultMaxListeners, response.toolCalls.length * LISTENERS_PER_CALL + defaultMaxListeners), this.signal);
    const outcomes = await Promise.all(
      response.toolCalls.map(async (call): Promise<StepOutcome> => {
        if (this.countRepeat(call) >= REPEAT_LIMIT) {
          repeated = call.name;
          return { content: `Not run: ${call.name} was called with the same arguments ${REPEAT_LIMIT} times in this turn.`, artifacts: [] };
        }
        return this.runToolCall(call);
      }),
    );
    this.result.toolCalls += response.toolCalls.length;
    const toolMessages: ChatMessage[] = response.toolCalls.map((call, index) => ({
      role: 'tool', tool_call_id: call.id, content: outcomes[index]?.content ?? '',
    }));
    for (const outcome of outcomes) this.result.artifacts.push(...outcome.artifacts);
    // A call and its results are stored together, so history never holds a call without a result.
    this.stage([assistant, ...toolMessages], [undefined, ...outcomes.map((outcome) => outcome.vouched)]);
    if (!outcomes.every((outcome) => outcome.readOnly)) this.commit(false);
    messages.push(assistant, ...toolMessages);
    return repeated;
  }

  private countRepeat(call: ToolCallRequest): number {
    const key = callKey(call.name, call.arguments);
    const count = (this.repeats.get(key) ?? 0) + 1;
    this.repeats.set(key, count);
    return count;
  }

  private async runToolCall(call: ToolCallRequest): Promise<StepOutcome> {
    const { input, result } = this;
    input.onEvent?.({ type: 'tool_start', tool: call.name, arguments: call.arguments, callId: call.id });
    const outcome = await this.agent.deps.tools.execute({
      name: call.name, arguments: call.arguments, callId: call.id, conversationId: input.conversationId, turnId: this.turnId,
      ...(input.workspaceId !== undefined ? { workspaceId: input.workspaceId } : {}),
      origin: input.origin, unattended: input.unattended ?? false, signal: this.signal,
      ...(input.run ? { run: input.run } : {}),
      ...(input.filter ? { filter: input.filter } : {}),
      ...(input.approve ? { approve: input.approve } : {}),
      taint: [...this.taint],
      provenance: this.provenance,
      deferAudit: this.audit,
      ...(input.onEvent ? { onEvent: input.onEvent } : {}),
      input: input.text,
      state: this.toolState,
      cancel: (reason) => {
        this.cancelledBy ??= reason;
        this.controller.abort(new DOMException(reason, 'AbortError'));
      },
    });
    input.onEvent?.({
      type: 'tool_end', tool: call.name, success: outcome.result.success, durationMs: outcome.durationMs, callId: call.id, output: outcome.result.output,
      ...(outcome.decision !== undefined ? { decision: outcome.decision } : {}),
    });
    if (outcome.decision?.startsWith('denied') && !result.denied.includes(outcome.tool ?? call.name)) result.denied.push(outcome.tool ?? call.name);
    const source = outcome.result.externalSource;
    if (source) {
      if (!result.externalSources.includes(source)) result.externalSources.push(source);
      this.addTaint(source);
    }
    if (outcome.vouched) this.vouchedRead.push(outcome.vouched);
    return {
      content: outcome.result.success ? outcome.result.output : `ERROR: ${outcome.result.output}`, artifacts: outcome.result.artifacts ?? [],
      ...(outcome.vouched ? { vouched: outcome.vouched } : {}),
      readOnly: outcome.tool !== undefined && this.agent.deps.tools.get(outcome.tool)?.tool.readOnly === true,
    };
  }

  private addTaint(source: string): void {
    if (!this.taint.includes(source)) this.taint.push(source);
  }

  /** Ends the loop with a notice; loop cap and repeat stops are kept in history as the assistant's answer. */
  private stop(status: TurnResult['status'], text: string): void {
    this.result.status = status;
    this.result.text = text;
    if (status === 'loop_cap' || status === 'repeat') this.closing = [{ role: 'assistant', content: text }];
  }

  /** A throw inside the loop: a cancellation becomes an answer; anything else is recorded and rethrown. */
  private fail(error: unknown): void {
    if (!this.signal.aborted) {
      this.result.status = 'error';
      this.result.error = errorMessage(error);
      throw error;
    }
    const { config } = this.agent.deps;
    this.result.status = 'cancelled';
    this.result.text = this.timedOut ? `I stopped: the turn took longer than ${config.agent.turn_timeout_s} s.` : this.cancelledBy !== undefined ? `Stopped: ${this.cancelledBy.replace(/[.!]+$/, '')}.` : 'Stopped.';
    this.result.error = this.timedOut ? 'turn timeout' : this.cancelledBy !== undefined ? `cancelled by a tool: ${this.cancelledBy}` : 'cancelled';
  }

  /**
   * Keeps messages for the next commit, each labelled with the outside sources in play when it was made (the
   * question with the run's own) and with what its third-party text vouches for.
   */
  private stage(messages: readonly ChatMessage[], vouched: ReadonlyArray<Vouched | undefined> = []): void {
    const { staged, input } = this;
    if (!this.questionStaged) {
      staged.messages.push(this.userMessage);
      staged.sources.push(input.taint && input.taint.length > 0 ? [...input.taint] : undefined);
      staged.vouched.push(undefined);
      this.questionStaged = true;
    }
    const inPlay = this.taint.length > 0 ? [...this.taint] : undefined;
    messages.forEach((message, index) => {
      staged.messages.push(message);
      staged.sources.push(inPlay);
      staged.vouched.push(vouched[index]);
    });
  }

  /**
   * One commit per step that may have changed something: what is staged (the question with the first such step, or
   * with the answer), the turn row with its usage so far, the calls' audit rows. A step of read-only calls waits for
   * the next commit: a crash before it leaves the turn as if the step had not run, and running it again changes
   * nothing. A turn cut by a crash before its first commit leaves nothing behind, so a replayed message is not
   * stored twice.
   */
  private commit(ended: boolean): void {
    const { input, result, agent, staged } = this;
    const { conversations, tools } = agent.deps;
    conversations.append(input.conversationId, this.turnId, staged.messages.splice(0), {
      within: () => {
        agent.saveTurn.run(this.turnId, input.conversationId, input.source, this.startedAt, ended ? Date.now() : null, ended ? result.status : 'running',
          result.model ?? null, result.usage.llmCalls, result.usage.promptTokens, result.usage.completionTokens, result.error ?? null, agent.runner, input.person ?? null);
        tools.writeAudit(this.audit.splice(0));
      },
      sources: staged.sources.splice(0),
      vouched: staged.vouched.splice(0),
    });
  }
}
