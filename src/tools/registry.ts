import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';
import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { redactSecrets, redactSecretValues } from '../log.js';
import { errorMessage } from '../errors.js';
import { ALLOW_ALL, type ToolPolicy } from './policy.js';
import { fail, type AnyTool, type CallOrigin, type FunctionSchema, type Risk, type ToolCallContext, type ToolContext, type ToolEvent, type ToolResult } from './types.js';
import { linkAbort } from '../lib/abort.js';
import { compareCodePoints } from '../lib/compare.js';
import { maskJsonText, maskSecretKeys } from '../lib/mask.js';
import { checkArgumentKeys } from './argument-keys.js';
import { RESERVED_EVENTS, type EventSink, type FamiliarEvent } from './events.js';
import { withCallScope } from '../lib/call-scope.js';
import { UNKNOWN_EFFECTS, type Effect, type Provenance, type ProvenanceVerdict } from './effects.js';

const FUNCTION_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

export interface RegisteredTool {
  tool: AnyTool;
  name: string;
  /** The name the model sees (the canonical name when it is function-safe). */
  functionName: string;
  aliases: readonly string[];
  group: string;
  /** Compiled on the first call (ajv is loaded then, not at start-up). */
  validate: ValidateFunction | undefined;
}

/** One call as the agent asks for it. */
export interface CallRequest {
  name: string;
  /** Raw JSON text from the model, or an already-parsed object (CLI, tests, skills). */
  arguments: string | Record<string, unknown>;
  callId?: string;
  conversationId: string;
  turnId: string;
  origin: CallOrigin;
  unattended?: boolean;
  policy?: ToolPolicy;
  signal?: AbortSignal;
  /** Asked before a high-risk call; absent means no one to ask (then the registry's default gate decides). */
  approve?: ApprovalHandler;
  /** Names the outside content already in this turn, if any (approval gating). */
  taint?: readonly string[];
  /** Where the conversation's texts came from: a tainted call's inputs are checked against them. */
  provenance?: Provenance;
  /**
   * When given, the call's audit record is pushed here instead of being written at once; the caller writes it
   * with `writeAudit` (the agent does, in the same commit as the call's result).
   */
  deferAudit?: AuditRecord[];
  /** Receives the events the tool emits while it runs (progress), named with the tool and the call. */
  onEvent?: (event: CallEvent) => void;
}

/** A tool's event as the caller sees it: which call it came from. */
export type CallEvent = ToolEvent & { tool: string; callId: string };

export interface ApprovalRequest {
  tool: string;
  params: Record<string, unknown>;
  risk: Risk;
  callId: string;
  conversationId: string;
  origin: CallOrigin;
  unattended: boolean;
  taint: readonly string[];
  /** The turn's signal: a question still open when it aborts (/stop, shutdown) ends unapproved. */
  signal?: AbortSignal;
  /**
   * Why the person is asked: `risk` (a high-risk tool or call), or `provenance` (the turn holds outside content and
   * the call could carry data out or change what runs later; `provenance` lines say where its inputs came from).
   */
  reason: 'risk' | 'provenance';
  provenance?: readonly string[];
  /** What the tool says the call would do (`NativeTool.explain`), for the question. */
  details?: readonly string[];
}

export type ApprovalDecision = { approved: true; by?: string } | { approved: false; reason: string };
export type ApprovalHandler = (request: ApprovalRequest) => Promise<ApprovalDecision>;

export interface CallOutcome {
  callId: string;
  tool: string | undefined;
  result: ToolResult;
  durationMs: number;
  decision?: string;
}

/**
 * `tool:before` middleware, run after validation and before approval, so the person approves what will run: return
 * nothing to let the call through, `{ block }` to refuse it with that message, or `{ params }` to run it with other
 * arguments — validated again against the tool's schema, and audited beside the arguments the model sent.
 * `params` is the hook's own copy: changing it in place changes nothing.
 */
export type BeforeVerdict = void | undefined | { block: string } | { params: Record<string, unknown> };
export type BeforeHook = (event: { tool: string; params: Record<string, unknown>; ctx: ToolCallContext }) => BeforeVerdict | Promise<BeforeVerdict>;
/** `tool:after` middleware: return nothing to keep the result, or `{ result }` to replace it (e.g. redacted). */
export type AfterVerdict = void | undefined | { result: ToolResult };
export type AfterHook = (event: { tool: string; params: Record<string, unknown>; ctx: ToolCallContext; result: ToolResult; durationMs: number }) => AfterVerdict | Promise<AfterVerdict>;

interface Hooked<H> {
  hook: H;
  /** Who registered it (a module's file, a part), for the messages when it fails. */
  source: string;
}

export interface AuditRecord {
  callId: string;
  conversationId: string;
  turnId: string;
  tool: string;
  input: string;
  output: string;
  error: string | undefined;
  success: boolean;
  durationMs: number;
  decision: string | undefined;
  /** The arguments as the model sent them, when a `tool:before` hook rewrote them (`input` is what ran). */
  requestedInput?: string;
}

export interface ToolRegistryOptions {
  defaultTimeoutMs?: number;
  timeouts?: Readonly<Record<string, number>>;
  outputChars?: number;
  audit?: (record: AuditRecord) => void;
  /** Decides high-risk calls when the request brings no handler of its own. Default: allow. */
  approvalGate?: (request: ApprovalRequest, handler: ApprovalHandler | undefined) => Promise<ApprovalDecision>;
  /** Gets a `tool:call` event for every finished call, and what tools send with `ctx.emit`. */
  events?: EventSink;
  /**
   * In a turn that holds outside content, decides from a call's declared effects and the provenance of its inputs
   * whether the person must approve it (src/trust/policy.ts). Without it only `risk` decides.
   */
  provenanceGate?: (effects: readonly Effect[], provenance: Provenance | undefined) => ProvenanceVerdict;
}

/**
 * Looks tools up, validates arguments, polices, approves, runs with a deadline, caps and audits.
 * Contract: `execute` never throws; every failure is a ToolResult the model can act on.
 */
export class ToolRegistry {
  private readonly byName = new Map<string, RegisteredTool>();
  private readonly byAlias = new Map<string, RegisteredTool>();
  private ajv: Promise<Ajv> | undefined;
  private readonly beforeHooks: Array<Hooked<BeforeHook>> = [];
  private readonly afterHooks: Array<Hooked<AfterHook>> = [];
  private context: ToolContext | undefined;
  private options: Required<Omit<ToolRegistryOptions, 'audit' | 'approvalGate' | 'events' | 'provenanceGate'>> & ToolRegistryOptions;

  constructor(options: ToolRegistryOptions = {}) {
    this.options = { defaultTimeoutMs: 30_000, timeouts: {}, outputChars: 16_000, ...options };
  }

  /** New deadlines and output cap from a config reload; calls already running keep theirs. */
  setLimits(limits: Pick<ToolRegistryOptions, 'defaultTimeoutMs' | 'timeouts' | 'outputChars'>): void {
    this.options = { ...this.options, ...limits };
  }

  private loadAjv(): Promise<Ajv> {
    this.ajv ??= import('ajv').then(({ Ajv: AjvClass }) => new AjvClass({ allErrors: true, strict: false, useDefaults: true }));
    return this.ajv;
  }

  setContext(context: ToolContext): void {
    this.context = context;
  }

  setApprovalGate(gate: NonNullable<ToolRegistryOptions['approvalGate']>): void {
    this.options.approvalGate = gate;
  }

  register(tool: AnyTool): void {
    if (this.byName.has(tool.name) || this.byAlias.has(tool.name)) throw new Error(`tool ${tool.name} is already registered`);
    const safeName = FUNCTION_NAME.test(tool.name) ? tool.name : functionSafeName(tool.name);
    const aliases = [...new Set([...(tool.aliases ?? []), ...(safeName !== tool.name ? [safeName] : [])])];
    const entry: RegisteredTool = {
      tool,
      name: tool.name,
      functionName: safeName,
      aliases,
      group: toolGroup(tool),
      validate: undefined,
    };
    this.byName.set(tool.name, entry);
    for (const alias of aliases) this.byAlias.set(alias, entry);
  }

  unregister(name: string): void {
    const entry = this.byName.get(name);
    if (!entry) return;
    this.byName.delete(name);
    for (const alias of entry.aliases) this.byAlias.delete(alias);
  }

  get(name: string): RegisteredTool | undefined {
    return this.byName.get(name) ?? this.byAlias.get(name);
  }

  list(policy: ToolPolicy = ALLOW_ALL): RegisteredTool[] {
    return [...this.byName.values()].filter((entry) => policy.allows(entry)).sort((a, b) => compareCodePoints(a.name, b.name));
  }

  toFunctionSchemas(policy: ToolPolicy = ALLOW_ALL): FunctionSchema[] {
    return this.list(policy).map((entry) => ({
      type: 'function',
      function: { name: entry.functionName, description: entry.tool.description, parameters: entry.tool.parameters },
    }));
  }

  /**
   * Middleware for every call, in the order added. `source` names who added it in the messages when it fails: a
   * hook that throws never crashes a turn — a failed `tool:before` refuses the call, a failed `tool:after` withholds
   * the result (either could have been a guard or a redaction). Returns the way to remove it.
   */
  on(event: 'tool:before', hook: BeforeHook, options?: { source?: string }): () => void;
  on(event: 'tool:after', hook: AfterHook, options?: { source?: string }): () => void;
  on(event: 'tool:before' | 'tool:after', hook: BeforeHook | AfterHook, options: { source?: string } = {}): () => void {
    const list: Array<Hooked<BeforeHook | AfterHook>> = event === 'tool:before' ? this.beforeHooks : this.afterHooks;
    const entry = { hook, source: options.source ?? 'a hook' };
    list.push(entry);
    return () => {
      const index = list.indexOf(entry);
      if (index >= 0) list.splice(index, 1);
    };
  }

  riskOf(entry: RegisteredTool, params: Record<string, unknown>): Risk {
    const risk = entry.tool.risk;
    if (typeof risk === 'function') {
      try {
        return risk(params);
      } catch {
        return 'high';
      }
    }
    return risk ?? 'low';
  }

  /**
   * One call, step by step: look up → parse → validate → policy → `tool:before` hooks (a rewrite validated again)
   * → approval → run with a deadline, then `tool:after` hooks → cap, redact and audit.
   * Contract: never throws; every failure is a ToolResult the model can act on.
   */
  async execute(request: CallRequest): Promise<CallOutcome> {
    const started = performance.now();
    const callId = request.callId ?? randomUUID();
    /** The arguments the model sent, for the audit, once a hook has rewritten them. */
    let requestedInput: string | undefined;
    /** `input` is what the audit row keeps: the arguments as sent when refused early, else as executed. */
    const finish = (tool: string | undefined, result: ToolResult, input: unknown, decision?: string): CallOutcome => {
      const capped = this.finalize(result);
      const durationMs = performance.now() - started;
      this.record({ callId, request, tool: tool ?? request.name, input: input instanceof AuditInput ? input.text : this.auditText(input), result: capped, durationMs, decision, requestedInput });
      this.options.events?.emit({
        type: 'tool:call', tool: tool ?? request.name, callId, conversationId: request.conversationId, turnId: request.turnId,
        origin: request.origin, success: capped.success, durationMs, ...(decision ? { decision } : {}),
      });
      return { callId, tool, result: capped, durationMs, ...(decision ? { decision } : {}) };
    };

    const entry = this.lookUp(request);
    if (!entry.success) return finish(undefined, entry.error, request.arguments);
    const tool = entry.value;
    const params = this.parse(tool, request.arguments);
    if (!params.success) return finish(tool.name, params.error, request.arguments);
    const invalid = await this.validate(tool, params.value);
    if (invalid) return finish(tool.name, invalid, params.value);
    const context = this.context;
    if (!context) return finish(tool.name, fail('Tools are not ready yet (no context); try again shortly.'), params.value);

    const call = this.callContext(tool, request, context, callId);
    try {
      const intercepted = await this.intercept(tool, params.value, call.ctx, request);
      if (!intercepted.success) return finish(tool.name, intercepted.error, params.value);
      const args = intercepted.value;
      if (args !== params.value) requestedInput = this.auditText(params.value);
      const approval = await this.approve(tool, args, request, callId);
      if (approval && !approval.approved) {
        return finish(tool.name, fail(`The call to ${tool.functionName} was not approved: ${approval.reason}. Do not retry it; tell the person what you wanted to do.`), args, approval.decision);
      }
      const { result, executed } = await this.run(tool, args, request, call, started);
      return finish(tool.name, result, executed, approval?.decision);
    } finally {
      call.dispose();
    }
  }

  /** The tool by name or alias, if the call's policy allows it; else a failure listing the valid names. */
  private lookUp(request: CallRequest): { success: true; value: RegisteredTool } | { success: false; error: ToolResult } {
    const policy = request.policy ?? ALLOW_ALL;
    const entry = this.get(request.name);
    if (entry && policy.allows(entry)) return { success: true, value: entry };
    const valid = this.list(policy).map((candidate) => candidate.functionName).join(', ');
    const reason = entry ? `Tool "${request.name}" is not allowed here.` : `Unknown tool "${request.name}".`;
    return { success: false, error: fail(`${reason} Valid tools: ${valid || '(none)'}.`) };
  }

  /**
   * The model's JSON text as one object (a copy, when the caller passed an object). Keys such as `__proto__` are
   * refused: dropped by a copy, they would be sent without being shown (see argument-keys.ts).
   */
  private parse(entry: RegisteredTool, raw: CallRequest['arguments']): { success: true; value: Record<string, unknown> } | { success: false; error: ToolResult } {
    let params: Record<string, unknown>;
    if (typeof raw !== 'string') {
      params = structuredClone(raw);
    } else {
      const parsed = parseArguments(raw);
      if (!parsed.success) return { success: false, error: fail(`Arguments for ${entry.functionName} are not valid JSON (${parsed.error}). Send one JSON object that matches the tool's schema.`) };
      params = parsed.value;
    }
    const keys = checkArgumentKeys(params);
    if (!keys.success) return { success: false, error: fail(`Arguments for ${entry.functionName} refused: ${keys.error}.`) };
    return { success: true, value: params };
  }

  /** ajv against the tool's JSON Schema (compiled on first use); a failure names what to fix. */
  private async validate(entry: RegisteredTool, params: Record<string, unknown>): Promise<ToolResult | undefined> {
    entry.validate ??= (await this.loadAjv()).compile(entry.tool.parameters);
    if (entry.validate(params)) return undefined;
    return fail(`Invalid arguments for ${entry.functionName}: ${formatAjvErrors(entry.validate.errors)}. Fix them and call again.`);
  }

  /**
   * High-risk calls, and in a turn that holds outside content the calls whose effects the provenance gate wants a
   * person to see, go through the approval gate (or the request's handler); undefined when none was needed.
   */
  private async approve(entry: RegisteredTool, params: Record<string, unknown>, request: CallRequest, callId: string): Promise<(ApprovalDecision & { decision: string }) | undefined> {
    const risk = this.riskOf(entry, params);
    const taint = request.taint ?? [];
    const gate = this.options.provenanceGate;
    const verdict = taint.length > 0 && gate ? gate(this.effectsOf(entry, params), request.provenance) : undefined;
    if (risk !== 'high' && verdict?.ask !== true) return undefined;
    const approvalRequest: ApprovalRequest = {
      tool: entry.name, params, risk, callId, conversationId: request.conversationId, origin: request.origin,
      unattended: request.unattended ?? false, taint,
      reason: risk === 'high' ? 'risk' : 'provenance',
      ...(verdict && verdict.lines.length > 0 ? { provenance: verdict.lines } : {}),
      ...(entry.tool.explain ? { details: safeLines(() => entry.tool.explain?.(params) ?? []) } : {}),
      ...(request.signal ? { signal: request.signal } : {}),
    };
    const approvalGate = this.options.approvalGate;
    const decided: ApprovalDecision = approvalGate
      ? await approvalGate(approvalRequest, request.approve)
      : request.approve
        ? await request.approve(approvalRequest)
        : { approved: true };
    return { ...decided, decision: decided.approved ? `approved${decided.by ? ` by ${decided.by}` : ''}` : `denied: ${decided.reason}` };
  }

  /** What a call can do beyond answering, as its tool declares; undeclared means it could send data anywhere. */
  effectsOf(entry: RegisteredTool, params: Record<string, unknown>): readonly Effect[] {
    const effects = entry.tool.effects;
    if (effects === undefined) return UNKNOWN_EFFECTS;
    if (typeof effects !== 'function') return effects;
    try {
      return effects(params);
    } catch {
      return UNKNOWN_EFFECTS;
    }
  }

  /**
   * The per-call view of the context, its cancellation linked to the turn's. `emit` passes what a tool sends to the
   * event sink, marked with who sent it. `dispose` unlinks it once the call is done.
   */
  private callContext(entry: RegisteredTool, request: CallRequest, context: ToolContext, callId: string): CallScope {
    const controller = new AbortController();
    const unlink = linkAbort(controller, request.signal);
    const log = context.log.child({ tool: entry.name, callId });
    const events = this.options.events;
    /** Set by `run` while the tool runs: a progress report moves the deadline. */
    const progress: { onProgress?: (() => void) | undefined } = {};
    const ctx: ToolCallContext = {
      ...context,
      log,
      conversationId: request.conversationId,
      turnId: request.turnId,
      callId,
      signal: controller.signal,
      origin: request.origin,
      unattended: request.unattended ?? false,
      taint: request.taint ?? [],
      emit(event: FamiliarEvent) {
        if (event === null || typeof event !== 'object' || typeof event.type !== 'string' || RESERVED_EVENTS.has(event.type)) {
          log.warn({ event: (event as { type?: unknown } | null)?.type }, 'tool emitted an event without a type of its own; dropped');
          return;
        }
        if (controller.signal.aborted) return;
        if (event.type === 'progress' && typeof event.progress === 'number') {
          // A call that reports progress is alive: its deadline moves (see run), and the turn's watcher shows it.
          progress.onProgress?.();
          try {
            request.onEvent?.({ ...(event as ToolEvent), tool: entry.name, callId });
          } catch (error) {
            log.warn({ err: error }, 'tool event listener failed');
          }
        }
        events?.emit({ ...event, tool: entry.name, callId, conversationId: request.conversationId });
      },
    };
    return { ctx, controller, progress, dispose: unlink };
  }

  /**
   * `tool:before` hooks, each bounded by the call's deadline. A veto or a failed hook refuses the call; a rewrite is
   * checked like the model's own arguments (forbidden keys, the schema) before the next hook sees it.
   * The returned value is the arguments to run with: the same object when no hook changed them.
   */
  private async intercept(entry: RegisteredTool, params: Record<string, unknown>, ctx: ToolCallContext, request: CallRequest): Promise<{ success: true; value: Record<string, unknown> } | { success: false; error: ToolResult }> {
    let current = params;
    for (const { hook, source } of [...this.beforeHooks]) {
      let verdict: BeforeVerdict;
      try {
        verdict = await bounded(Promise.resolve(hook({ tool: entry.name, params: structuredClone(current), ctx })), this.timeoutFor(entry), request.signal, `the tool:before hook of ${source}`);
      } catch (error) {
        ctx.log.warn({ err: error, hook: source }, 'tool:before hook failed; the call is refused');
        return { success: false, error: fail(`${entry.functionName} was not run: a tool:before hook (${source}) failed: ${errorMessage(error)}. Tell the person; retrying will not help.`) };
      }
      if (verdict === undefined || verdict === null) continue;
      if (typeof verdict === 'object' && 'block' in verdict) {
        return { success: false, error: fail(typeof verdict.block === 'string' && verdict.block !== '' ? verdict.block : `${entry.functionName} was refused by ${source}.`) };
      }
      if (typeof verdict === 'object' && 'params' in verdict) {
        const rewritten = await this.checkRewrite(entry, verdict.params, source);
        if (!rewritten.success) {
          ctx.log.warn({ hook: source, reason: rewritten.error.output }, 'tool:before hook rewrote the arguments into invalid ones; the call is refused');
          return rewritten;
        }
        if (!isDeepStrictEqual(rewritten.value, current)) current = rewritten.value;
        continue;
      }
      ctx.log.warn({ hook: source }, 'tool:before hook returned something other than nothing, { block } or { params }; ignored');
    }
    return { success: true, value: current };
  }

  /** A hook's new arguments pass the same checks as the model's: one object, no forbidden keys, the schema. */
  private async checkRewrite(entry: RegisteredTool, params: unknown, source: string): Promise<{ success: true; value: Record<string, unknown> } | { success: false; error: ToolResult }> {
    const refused = (why: string) => ({ success: false as const, error: fail(`${entry.functionName} was not run: the tool:before hook of ${source} changed its arguments into ones the tool refuses (${why}). Tell the person; retrying will not help.`) });
    if (params === null || typeof params !== 'object' || Array.isArray(params)) return refused('not an object');
    let copy: Record<string, unknown>;
    try {
      copy = structuredClone(params as Record<string, unknown>);
    } catch (error) {
      return refused(errorMessage(error));
    }
    const keys = checkArgumentKeys(copy);
    if (!keys.success) return refused(keys.error);
    const invalid = await this.validate(entry, copy);
    if (invalid) return refused(formatAjvErrors(entry.validate?.errors));
    return { success: true, value: copy };
  }

  /**
   * The tool raced against its deadline and the turn's cancellation, then `tool:after` hooks (bounded too). A thrown
   * tool becomes a failed result; a failed hook withholds the result, saying that the tool did run.
   */
  private async run(entry: RegisteredTool, params: Record<string, unknown>, request: CallRequest, call: CallScope, started: number): Promise<{ result: ToolResult; executed: AuditInput }> {
    const { ctx: callContext, controller } = call;
    const log = callContext.log;
    const timeoutMs = this.timeoutFor(entry);
    // Progress moves the deadline only for tools that declare a cap, and never below the configured timeout.
    const capMs = Math.max(timeoutMs, entry.tool.maxTimeoutMs ?? timeoutMs);
    const callStarted = performance.now();
    let timer: NodeJS.Timeout | undefined;
    let expire: (() => void) | undefined;
    let extended = false;
    /** (Re)arms the deadline `ms` from now. */
    const arm = (ms: number): void => {
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => expire?.(), ms);
      timer.unref?.();
    };
    if (capMs > timeoutMs) {
      call.progress.onProgress = () => {
        const left = capMs - (performance.now() - callStarted);
        if (left > 0) {
          arm(Math.min(timeoutMs, left));
          extended = true;
        }
      };
    }
    let onCancelled: (() => void) | undefined;
    try {
      const deadline = new Promise<ToolResult>((resolve) => {
        expire = () => {
          const ranMs = performance.now() - callStarted;
          controller.abort(new DOMException(`${entry.name} timed out`, 'TimeoutError'));
          resolve(fail(extended
            ? `${entry.functionName} was stopped after ${formatSeconds(Math.round(ranMs / 1000) * 1000)}: its progress reports keep it going ${formatSeconds(timeoutMs)} at a time, up to ${formatSeconds(capMs)} in all. Try a smaller task.`
            : `${entry.functionName} did not finish within ${formatSeconds(timeoutMs)} and was stopped. Try a smaller task or a longer timeout if the tool accepts one.`));
        };
        arm(timeoutMs);
      });
      const cancelled = new Promise<ToolResult>((resolve) => {
        if (request.signal?.aborted) resolve(fail('The turn was cancelled.'));
        onCancelled = () => resolve(fail('The turn was cancelled.'));
        request.signal?.addEventListener('abort', onCancelled, { once: true });
      });
      // The audit row keeps the arguments as they go to the tool (after defaults, approval and hooks).
      const executed = new AuditInput(this.auditText(params));
      let result: ToolResult;
      try {
        // Stores the call writes to (memory files, jobs) label what they keep with the sources in play.
        result = await Promise.race([withCallScope({ taint: callContext.taint }, () => entry.tool.execute(params, callContext)), deadline, cancelled]);
      } catch (error) {
        log.warn({ err: error }, 'tool threw');
        result = fail(`${entry.functionName} failed: ${errorMessage(error)}`);
      }
      if (!isToolResult(result)) result = fail(`${entry.functionName} returned no result.`);
      if (entry.tool.external && result.success && !result.externalSource) result = { ...result, externalSource: entry.name };
      const durationMs = performance.now() - started;
      for (const { hook, source } of [...this.afterHooks]) {
        try {
          const verdict = await bounded(Promise.resolve(hook({ tool: entry.name, params, ctx: callContext, result, durationMs })), timeoutMs, request.signal, `the tool:after hook of ${source}`);
          if (verdict === undefined || verdict === null) continue;
          if (typeof verdict !== 'object' || !('result' in verdict) || !isToolResult(verdict.result)) throw new Error('it returned something other than nothing or { result: { success, output } }');
          // What the tool said about outside content stays, whatever the hook wrote.
          result = { ...verdict.result, ...(result.externalSource && !verdict.result.externalSource ? { externalSource: result.externalSource } : {}) };
        } catch (error) {
          callContext.log.warn({ err: error, hook: source }, 'tool:after hook failed; the result is withheld');
          result = fail(`${entry.functionName} ran (${result.success ? 'it succeeded' : 'it failed'}), but its result is withheld: a tool:after hook (${source}) failed: ${errorMessage(error)}. Do not call it again for this; tell the person.`);
          break;
        }
      }
      return { result, executed };
    } finally {
      if (timer) clearTimeout(timer);
      expire = undefined;
      call.progress.onProgress = undefined;
      if (onCancelled) request.signal?.removeEventListener('abort', onCancelled);
    }
  }

  private timeoutFor(entry: RegisteredTool): number {
    const configured = this.options.timeouts[entry.name] ?? this.options.timeouts[entry.functionName];
    if (configured !== undefined) return configured * 1000;
    return entry.tool.timeoutMs ?? this.options.defaultTimeoutMs;
  }

  /** Secrets never reach the model; output is capped with a visible note. */
  private finalize(result: ToolResult): ToolResult {
    const secrets = this.context?.secrets ?? [];
    let output = redactSecrets(result.output, secrets);
    const limit = this.options.outputChars;
    if (output.length > limit) {
      const cut = output.length - limit;
      output = `${output.slice(0, limit)}\n…[output truncated: ${cut} more characters not shown; ask for a narrower range or a smaller result]`;
    }
    return { ...result, output };
  }

  /** Writes audit records collected through `deferAudit`. Never throws: a failed write is logged. */
  writeAudit(records: readonly AuditRecord[]): void {
    const audit = this.options.audit;
    if (!audit) return;
    for (const record of records) {
      try {
        audit(record);
      } catch (error) {
        this.context?.log.error({ err: error }, 'audit write failed');
      }
    }
  }

  /**
   * Arguments as the audit keeps them: secret values redacted before serialising (so a secret with a quote in it
   * is still found) and secret-looking keys masked, as displayed: a password that is in the arguments only (not in
   * the config) is not kept. Raw text from the model is kept as sent, parsed when it is JSON.
   */
  private auditText(input: unknown): string {
    if (!this.options.audit) return '';
    const secrets = this.context?.secrets ?? [];
    if (typeof input === 'string') return maskJsonText(input, secrets);
    return JSON.stringify(maskSecretKeys(redactSecretValues(input ?? null, secrets))) ?? 'null';
  }

  private record(entry: { callId: string; request: CallRequest; tool: string; input: string; result: ToolResult; durationMs: number; decision: string | undefined; requestedInput: string | undefined }): void {
    if (!this.options.audit) return;
    const record: AuditRecord = {
      callId: entry.callId,
      conversationId: entry.request.conversationId,
      turnId: entry.request.turnId,
      tool: entry.tool,
      input: entry.input.slice(0, 8000),
      output: entry.result.output.slice(0, 8000),
      error: entry.result.success ? undefined : entry.result.output.slice(0, 2000),
      success: entry.result.success,
      durationMs: entry.durationMs,
      decision: entry.decision,
      ...(entry.requestedInput !== undefined ? { requestedInput: entry.requestedInput.slice(0, 8000) } : {}),
    };
    if (entry.request.deferAudit) entry.request.deferAudit.push(record);
    else this.writeAudit([record]);
  }
}

/** Arguments already serialised for the audit (taken when the call ran). */
class AuditInput {
  constructor(readonly text: string) {}
}

/** One call's context and the controller that cancels it. */
interface CallScope {
  ctx: ToolCallContext;
  controller: AbortController;
  /** Set by `run` while the tool runs: a progress report moves the deadline. */
  progress: { onProgress?: (() => void) | undefined };
  dispose(): void;
}

function isToolResult(value: unknown): value is ToolResult {
  return value !== null && typeof value === 'object' && typeof (value as ToolResult).output === 'string' && typeof (value as ToolResult).success === 'boolean';
}

/** A hook's answer, or a throw when it takes longer than the call may, or the turn is cancelled meanwhile. */
function bounded<T>(promise: Promise<T>, timeoutMs: number, signal: AbortSignal | undefined, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const limits = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${formatSeconds(timeoutMs)}`)), timeoutMs);
    timer.unref?.();
    onAbort = () => reject(new Error('the turn was cancelled'));
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
  });
  return Promise.race([promise, limits]).finally(() => {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  });
}

/** The group policy patterns such as `memory.*` match: the tool's own, else its name up to the first `_`, `:` or `.`. */
export function toolGroup(tool: Pick<AnyTool, 'name' | 'group'>): string {
  return tool.group ?? /^[^_:.]+/.exec(tool.name)?.[0] ?? tool.name;
}

/** A tool's own explanation lines; one that throws explains nothing rather than stopping the question. */
function safeLines(explain: () => string[]): string[] {
  try {
    return explain().filter((line) => typeof line === 'string').slice(0, 20);
  } catch {
    return [];
  }
}

export function functionSafeName(name: string): string {
  return name.replace(/:/g, '__').replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64);
}

function parseArguments(text: string): { success: true; value: Record<string, unknown> } | { success: false; error: string } {
  const trimmed = text.trim();
  // Models send "" for a tool without parameters.
  if (trimmed === '') return { success: true, value: {} };
  try {
    const value: unknown = JSON.parse(trimmed);
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return { success: false, error: 'expected a JSON object' };
    return { success: true, value: value as Record<string, unknown> };
  } catch (error) {
    return { success: false, error: errorMessage(error) };
  }
}

export function formatAjvErrors(errors: ErrorObject[] | null | undefined): string {
  if (!errors || errors.length === 0) return 'does not match the schema';
  const messages = errors.map((error) => {
    const at = error.instancePath ? error.instancePath.slice(1).replace(/\//g, '.') : '';
    switch (error.keyword) {
      case 'required':
        return `missing required field "${String(error.params.missingProperty)}"`;
      case 'additionalProperties':
        return `unknown field "${String(error.params.additionalProperty)}"${at ? ` in ${at}` : ''}`;
      case 'enum':
        return `${at || 'value'} must be one of ${(error.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
      case 'type':
        return `${at || 'value'} must be ${String(error.params.type)}`;
      default:
        return `${at || 'value'} ${error.message ?? 'is invalid'}`;
    }
  });
  return [...new Set(messages)].join('; ');
}

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}
