import { randomUUID } from 'node:crypto';
import type OpenAI from 'openai';
import type { Config } from '../config/schema.js';
import type { Database } from '../db/database.js';
import { LlmError, errorMessage } from '../errors.js';
import type { ChatMessage, LlmClient, LlmResponse, LlmUsage } from '../llm/types.js';
import type { Logger } from '../log.js';
import type { MemoryStore } from '../memory/store.js';
import type { ToolPolicy } from '../tools/policy.js';
import type { ApprovalHandler, AuditRecord, ToolRegistry } from '../tools/registry.js';
import type { Artifact, CallOrigin } from '../tools/types.js';
import type { ZonedClock } from './clock.js';
import { ConversationStore } from './conversations.js';
import { buildSystemPrompt } from './prompt.js';
import { compareCodePoints } from '../compare.js';

export interface TurnInput {
  conversationId: string;
  text: string;
  /** Sent as image content when `llm.vision` is on; only a text note is kept in history. */
  images?: ReadonlyArray<{ mimeType: string; data: Buffer }>;
  origin: CallOrigin;
  source: 'chat' | 'cli' | 'job' | 'skill';
  signal?: AbortSignal;
  unattended?: boolean;
  policy?: ToolPolicy;
  approve?: ApprovalHandler;
  /** Agent profile overrides. */
  persona?: string;
  model?: string;
  /** Appended to the system prompt (a skill's instructions, a job's context). */
  systemExtra?: string;
  /** Called for progress (the terminal prints tool calls). */
  onEvent?: (event: TurnEvent) => void;
}

export type TurnEvent =
  | { type: 'tool_start'; tool: string; arguments: string }
  | { type: 'tool_end'; tool: string; success: boolean; durationMs: number };

/** `error`: the turn threw (a bug, or the database failing); it is recorded so, and the error goes to the caller. */
export type TurnStatus = 'ok' | 'loop_cap' | 'repeat' | 'llm_error' | 'cancelled' | 'blocked' | 'error';

export interface TurnResult {
  turnId: string;
  status: TurnStatus;
  /** What to show the person: the answer, or a short honest notice. */
  text: string;
  artifacts: Artifact[];
  usage: LlmUsage & { llmCalls: number };
  model: string | undefined;
  toolCalls: number;
  externalSources: string[];
  error?: string;
}

/** Checked before every LLM call (usage budget): a string stops the turn with that message. */
export type LlmGate = (input: { conversationId: string; source: TurnInput['source'] }) => string | undefined;

export interface AgentDeps {
  config: Config;
  db: Database;
  llm: LlmClient;
  tools: ToolRegistry;
  memory: MemoryStore;
  conversations: ConversationStore;
  clock: ZonedClock;
  log: Logger;
  now?: () => Date;
}

const REPEAT_LIMIT = 3;

/**
 * The function-calling loop. Contract: `runTurn` never throws for provider or tool failures; the result
 * always carries text for the person, and history stays valid (every tool call has its result).
 */
export class Agent {
  private readonly deps: AgentDeps;
  private readonly gates: LlmGate[] = [];
  private readonly usageListeners: Array<(usage: { turnId: string; conversationId: string; model: string; usage: LlmUsage }) => void> = [];

  private readonly saveTurn;

  constructor(deps: AgentDeps) {
    this.deps = deps;
    // One statement writes the turn row at each commit: created with the first, brought up to date after.
    this.saveTurn = deps.db.prepare(
      `INSERT INTO turns (id, conversation_id, source, started_at, ended_at, status, model, llm_calls, prompt_tokens, completion_tokens, error)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET ended_at = excluded.ended_at, status = excluded.status, model = excluded.model,
         llm_calls = excluded.llm_calls, prompt_tokens = excluded.prompt_tokens, completion_tokens = excluded.completion_tokens, error = excluded.error`,
    );
  }

  addLlmGate(gate: LlmGate): void {
    this.gates.push(gate);
  }

  onUsage(listener: (usage: { turnId: string; conversationId: string; model: string; usage: LlmUsage }) => void): void {
    this.usageListeners.push(listener);
  }

  async runTurn(input: TurnInput): Promise<TurnResult> {
    const { config, llm, tools, conversations } = this.deps;
    const turnId = newTurnId();
    // Built on use: a child logger per turn costs more than the rest of a turn's bookkeeping.
    const log = () => this.deps.log.child({ conversation: input.conversationId, turn: turnId.slice(-8) });
    const startedAt = Date.now();

    // One controller per turn, linked by hand: AbortSignal.timeout keeps its timer (and the turn) alive until
    // it fires, and AbortSignal.any retains its sources — both grow memory over thousands of turns.
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new DOMException('turn timeout', 'TimeoutError'));
    }, config.agent.turn_timeout_s * 1000);
    timer.unref();
    const onCancel = () => controller.abort(input.signal?.reason);
    if (input.signal?.aborted) onCancel();
    else input.signal?.addEventListener('abort', onCancel, { once: true });
    const signal = controller.signal;
    const result: TurnResult = {
      turnId, status: 'ok', text: '', artifacts: [], usage: { promptTokens: 0, completionTokens: 0, llmCalls: 0 },
      model: undefined, toolCalls: 0, externalSources: [],
    };

    // One commit per step: the question is stored with the first step's calls and results (or with the answer,
    // for a turn without tools), each with the turn row and its usage so far. A turn cut by a crash before its
    // first commit leaves nothing behind, so a replayed message is not stored twice.
    const userMessage: ChatMessage = { role: 'user', content: input.text };
    let questionSaved = false;
    // The tool calls' audit records join the same commit as their results.
    const audit: AuditRecord[] = [];
    const commit = (messages: ChatMessage[], ended: boolean) => {
      conversations.append(input.conversationId, turnId, questionSaved ? messages : [userMessage, ...messages], () => {
        this.saveTurn.run(turnId, input.conversationId, input.source, startedAt, ended ? Date.now() : null, ended ? result.status : 'running',
          result.model ?? null, result.usage.llmCalls, result.usage.promptTokens, result.usage.completionTokens, result.error ?? null);
        tools.writeAudit(audit.splice(0));
      });
      questionSaved = true;
    };
    let closing: ChatMessage[] = [];
    const system = buildSystemPrompt({
      persona: input.persona ?? config.agent.persona,
      agentName: config.agent.name,
      clock: this.deps.clock,
      now: this.deps.now?.() ?? new Date(),
      memory: this.deps.memory,
      memoryBudget: config.memory.prompt_chars,
      extra: input.systemExtra,
    });
    const messages: ChatMessage[] = [{ role: 'system', content: system }, ...conversations.history(input.conversationId, config.agent.history_tokens, config.agent.history_messages, [userMessage])];
    if (input.images && input.images.length > 0 && config.llm.vision) attachImages(messages, input.text, input.images);

    const schemas = tools.toFunctionSchemas(input.policy);
    let models: readonly string[] = input.model ? [input.model, ...llm.models.filter((m) => m !== input.model)] : llm.models;
    const repeats = new Map<string, number>();

    try {
      for (let loop = 0; ; loop += 1) {
        if (loop >= config.llm.max_loops) {
          result.status = 'loop_cap';
          result.text = `I stopped after ${config.llm.max_loops} steps without reaching an answer. Tell me how to narrow it down, or ask me to continue.`;
          break;
        }
        const blocked = this.gates.map((gate) => gate({ conversationId: input.conversationId, source: input.source })).find((reason) => reason);
        if (blocked) {
          result.status = 'blocked';
          result.text = blocked;
          break;
        }
        let response: LlmResponse;
        try {
          response = await llm.complete({ messages, tools: schemas, models, signal });
        } catch (error) {
          if (signal.aborted) throw error;
          const reason = error instanceof LlmError ? error.message : errorMessage(error);
          // On the terminal (ask, chat) the reply below is the report; the log line would only repeat it.
          log()[input.source === 'cli' ? 'debug' : 'error']({ err: error }, `llm failed: ${reason}`);
          result.status = 'llm_error';
          result.error = reason;
          // "Try again" only where waiting helps; a wrong key or URL needs the fix the reason names.
          const transient = !(error instanceof LlmError) || error.transient;
          result.text = `Sorry, I could not answer: ${reason}.${transient ? ' Please try again in a moment.' : ''}`;
          break;
        }
        result.usage.promptTokens += response.usage.promptTokens;
        result.usage.completionTokens += response.usage.completionTokens;
        result.usage.llmCalls += 1;
        result.model = response.model;
        for (const listener of this.usageListeners) listener({ turnId, conversationId: input.conversationId, model: response.model, usage: response.usage });
        // The model that answered serves the rest of this turn (a fallback sticks until the turn ends).
        const answered = models.indexOf(response.model);
        if (answered > 0) models = models.slice(answered);

        if (response.toolCalls.length === 0) {
          result.text = response.content.trim() || '(I have nothing to add.)';
          closing = [{ role: 'assistant', content: response.content }];
          break;
        }

        const assistant: OpenAI.Chat.Completions.ChatCompletionAssistantMessageParam = {
          role: 'assistant',
          content: response.content || null,
          tool_calls: response.toolCalls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } })),
        };
        let repeated: string | undefined;
        const outcomes = await Promise.all(
          response.toolCalls.map(async (call) => {
            const key = `${call.name}\u0000${normalizeArguments(call.arguments)}`;
            const count = (repeats.get(key) ?? 0) + 1;
            repeats.set(key, count);
            if (count >= REPEAT_LIMIT) {
              repeated = call.name;
              return { content: `Not run: ${call.name} was called with the same arguments ${REPEAT_LIMIT} times in this turn.`, artifacts: [] as Artifact[] };
            }
            input.onEvent?.({ type: 'tool_start', tool: call.name, arguments: call.arguments });
            const outcome = await tools.execute({
              name: call.name, arguments: call.arguments, callId: call.id, conversationId: input.conversationId, turnId,
              origin: input.origin, unattended: input.unattended ?? false, signal,
              ...(input.policy ? { policy: input.policy } : {}),
              ...(input.approve ? { approve: input.approve } : {}),
              taint: [...result.externalSources],
              deferAudit: audit,
            });
            input.onEvent?.({ type: 'tool_end', tool: call.name, success: outcome.result.success, durationMs: outcome.durationMs });
            if (outcome.result.externalSource && !result.externalSources.includes(outcome.result.externalSource)) {
              result.externalSources.push(outcome.result.externalSource);
            }
            const content = outcome.result.success ? outcome.result.output : `ERROR: ${outcome.result.output}`;
            return { content, artifacts: outcome.result.artifacts ?? [] };
          }),
        );
        result.toolCalls += response.toolCalls.length;
        const toolMessages: ChatMessage[] = response.toolCalls.map((call, index) => ({
          role: 'tool', tool_call_id: call.id, content: outcomes[index]?.content ?? '',
        }));
        for (const outcome of outcomes) result.artifacts.push(...outcome.artifacts);
        // A call and its results are stored together, so history never holds a call without a result.
        commit([assistant, ...toolMessages], false);
        messages.push(assistant, ...toolMessages);
        if (signal.aborted) throw signal.reason;
        if (repeated) {
          result.status = 'repeat';
          result.text = `I stopped because I kept calling ${repeated} with the same arguments without getting further. Could you rephrase or give me more detail?`;
          break;
        }
      }
      if (result.status === 'loop_cap' || result.status === 'repeat') closing = [{ role: 'assistant', content: result.text }];
    } catch (error) {
      if (!signal.aborted) {
        result.status = 'error';
        result.error = errorMessage(error);
        throw error;
      }
      result.status = 'cancelled';
      result.text = timedOut ? `I stopped: the turn took longer than ${config.agent.turn_timeout_s} s.` : 'Stopped.';
      result.error = timedOut ? 'turn timeout' : 'cancelled';
    } finally {
      clearTimeout(timer);
      input.signal?.removeEventListener('abort', onCancel);
      commit(closing, true);
    }
    if (this.deps.log.isLevelEnabled('debug')) log().debug({ status: result.status, toolCalls: result.toolCalls, ms: Date.now() - startedAt }, 'turn done');
    return result;
  }
}

/**
 * A UUID (version 7 layout) that starts with the time: turns are written in id order, so the primary-key index
 * grows at its end instead of touching a random page on every insert.
 */
function newTurnId(): string {
  const random = randomUUID(); // xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx, from a cached entropy pool
  const time = Date.now().toString(16).padStart(12, '0');
  return `${time.slice(0, 8)}-${time.slice(8, 12)}-7${random.slice(15)}`;
}

/** Key order and spacing do not make a call different. */
function normalizeArguments(text: string): string {
  try {
    return JSON.stringify(sortKeys(JSON.parse(text)));
  } catch {
    return text.trim();
  }
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).sort(([a], [b]) => compareCodePoints(a, b)).map(([k, v]) => [k, sortKeys(v)]));
  }
  return value;
}

function attachImages(messages: ChatMessage[], text: string, images: ReadonlyArray<{ mimeType: string; data: Buffer }>): void {
  const last = messages.at(-1);
  if (!last || last.role !== 'user') return;
  // A new object: history messages are shared with the conversation cache and must not change.
  messages[messages.length - 1] = {
    role: 'user',
    content: [
      { type: 'text', text },
      ...images.map((image) => ({ type: 'image_url' as const, image_url: { url: `data:${image.mimeType};base64,${image.data.toString('base64')}` } })),
    ],
  };
}
