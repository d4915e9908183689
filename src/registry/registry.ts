import { randomUUID } from 'node:crypto';
import { compareCodePoints } from '../lib/compare.js';
import type { Result } from '../lib/result.js';
import type { AfterHook, AuditRecord, BeforeHook, CallGate, CallOutcome, CallRequest, GateCall, GateDecision, RegisteredTool } from '../tools/call.js';
import { UNKNOWN_EFFECTS, type Effect } from '../tools/effects.js';
import type { EventSink } from '../tools/events.js';
import { FUNCTION_NAME, functionSafeName, toolGroup } from '../tools/names.js';
import { ALLOW_ALL, type ToolFilter } from '../tools/tool-filter.js';
import { fail, type AnyTool, type FunctionSchema, type Risk, type ToolContext, type ToolResult } from '../tools/types.js';
import { ArgumentChecker } from './arguments.js';
import { auditRecord, auditText } from './audit.js';
import { checkCallRequest, directRequest, type DirectCallOptions } from './direct-call.js';
import { openCallScope } from './call-context.js';
import { runWithDeadline } from './deadline.js';
import { Hooks } from './hooks.js';
import { finalizeResult } from './output.js';

export interface ToolRegistryOptions {
  defaultTimeoutMs?: number;
  timeouts?: Readonly<Record<string, number>>;
  outputChars?: number;
  audit?: (record: AuditRecord) => void;
  /** The checks between a valid call and its run (src/gate/). Without one, anything that would ask is denied. */
  gate?: CallGate;
  /** Gets a `tool:call` event for every finished call, and what tools send with `ctx.emit`. */
  events?: EventSink;
}

type Limits = Required<Pick<ToolRegistryOptions, 'defaultTimeoutMs' | 'timeouts' | 'outputChars'>>;

/**
 * Looks tools up and runs each call through its pipeline: look up (the call's tool filter) → parse and check the
 * arguments (arguments.ts) → `tool:before` hooks (hooks.ts) → the gate (src/gate/: provenance, leak budget, risk,
 * approval) → run with a deadline (deadline.ts) → `tool:after` hooks → redact and cap (output.ts) → audit
 * (audit.ts) and a `tool:call` event.
 * Contract: `execute` never throws; every failure is a ToolResult the model can act on.
 */
export class ToolRegistry {
  private readonly byName = new Map<string, RegisteredTool>();
  private readonly byAlias = new Map<string, RegisteredTool>();
  private readonly checker = new ArgumentChecker();
  private readonly hooks = new Hooks(this.checker);
  private context: ToolContext | undefined;
  private limits: Limits;
  private gate: CallGate;
  private readonly options: ToolRegistryOptions;

  constructor(options: ToolRegistryOptions = {}) {
    this.options = options;
    this.limits = { defaultTimeoutMs: options.defaultTimeoutMs ?? 30_000, timeouts: options.timeouts ?? {}, outputChars: options.outputChars ?? 16_000 };
    this.gate = options.gate ?? CLOSED_GATE;
  }

  /** New deadlines and output cap from a config reload; calls already running keep theirs. */
  setLimits(limits: Partial<Limits>): void {
    this.limits = { ...this.limits, ...limits };
  }

  setContext(context: ToolContext): void {
    this.context = context;
  }

  setGate(gate: CallGate): void {
    this.gate = gate;
  }

  /** `permissions` stands in for a tool that declares none (the root passes the built-in catalogue's). */
  register(tool: AnyTool, options: { permissions?: readonly string[] | undefined } = {}): void {
    if (this.byName.has(tool.name) || this.byAlias.has(tool.name)) throw new Error(`tool ${tool.name} is already registered`);
    const safeName = FUNCTION_NAME.test(tool.name) ? tool.name : functionSafeName(tool.name);
    const aliases = [...new Set([...(tool.aliases ?? []), ...(safeName !== tool.name ? [safeName] : [])])];
    const permissions = tool.permissions ?? options.permissions;
    const entry: RegisteredTool = { tool, name: tool.name, functionName: safeName, aliases, group: toolGroup(tool), ...(permissions ? { permissions } : {}) };
    this.byName.set(tool.name, entry);
    for (const alias of aliases) this.byAlias.set(alias, entry);
  }

  /**
   * Makes `alias` call the registered tool `target` (by its name or one of its aliases), as seed 002's later alias.
   * The model still sees the tool under its own name; the alias answers calls and agents' tool patterns. Contract:
   * throws when the target is unknown or the alias is taken, so a typo is not a quietly missing name.
   */
  alias(alias: string, target: string): void {
    if (typeof alias !== 'string' || !FUNCTION_NAME.test(alias)) throw new TypeError(`alias must be 1-64 letters, digits, _ or - (got ${JSON.stringify(alias) ?? 'nothing'})`);
    const entry = this.get(target);
    if (!entry) throw new Error(`cannot alias ${alias} to ${target}: no tool named ${target}`);
    const taken = this.get(alias);
    if (taken === entry) return;
    if (taken) throw new Error(`cannot alias ${alias} to ${entry.name}: ${alias} already names ${taken.name}`);
    entry.aliases = [...entry.aliases, alias];
    this.byAlias.set(alias, entry);
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

  list(filter: ToolFilter = ALLOW_ALL): RegisteredTool[] {
    return [...this.byName.values()].filter((entry) => filter.allows(entry)).sort((a, b) => compareCodePoints(a.name, b.name));
  }

  toFunctionSchemas(filter: ToolFilter = ALLOW_ALL): FunctionSchema[] {
    return this.list(filter).map((entry) => ({
      type: 'function',
      function: { name: entry.functionName, description: entry.tool.description, parameters: entry.tool.parameters },
    }));
  }

  /**
   * Middleware for every call, in the order added. `source` names who added it in the messages when it fails.
   * Returns the way to remove it.
   */
  on(event: 'tool:before', hook: BeforeHook, options?: { source?: string }): () => void;
  on(event: 'tool:after', hook: AfterHook, options?: { source?: string }): () => void;
  on(event: 'tool:before' | 'tool:after', hook: BeforeHook | AfterHook, options: { source?: string } = {}): () => void {
    return this.hooks.add(event, hook, options.source ?? 'a hook');
  }

  riskOf(entry: RegisteredTool, params: Record<string, unknown>): Risk {
    const risk = entry.tool.risk;
    if (typeof risk !== 'function') return risk ?? 'low';
    try {
      return risk(params);
    } catch {
      return 'high';
    }
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
   * One call through the pipeline (see the class): a whole call, answered with its outcome; or seed 000's
   * `execute(name, params, options?)`, answered with the tool's result, for code that calls a tool directly (it
   * runs as a call from nowhere: no chat, no one to approve, the same checks and audit).
   * Contract: never throws for anything a tool or the model did; a TypeError (a rejected promise) for a call shape no
   * model could have made — no name, arguments that are neither JSON text nor an object.
   */
  // The whole call first: an inline `approve` is typed from it (the first overload tried fixes a callback's type).
  execute(request: CallRequest): Promise<CallOutcome>;
  execute(name: string, params?: Record<string, unknown>, options?: DirectCallOptions): Promise<ToolResult>;
  async execute(first: CallRequest | string, params?: Record<string, unknown>, options?: DirectCallOptions): Promise<CallOutcome | ToolResult> {
    if (typeof first === 'string' || first === null || typeof first !== 'object') return (await this.run(directRequest(first, params, options))).result;
    checkCallRequest(first);
    return this.run(first);
  }

  private async run(request: CallRequest): Promise<CallOutcome> {
    const started = performance.now();
    const callId = request.callId ?? randomUUID();
    const secrets = () => this.context?.secrets ?? [];
    /** The arguments the model sent, for the audit, once a hook has rewritten them. */
    let requestedInput: string | undefined;
    /**
     * `input` is what the audit row keeps: the arguments as sent when refused early, else as executed (`Sent`, taken
     * before the tool ran, which may change its own arguments object).
     */
    const finish = (entry: RegisteredTool | undefined, result: ToolResult, input: unknown, decision?: string): CallOutcome => {
      const capped = finalizeResult(result, secrets(), this.limits.outputChars);
      const durationMs = performance.now() - started;
      const tool = entry?.name ?? request.name;
      if (this.options.audit) {
        const text = input instanceof Sent ? input.text : auditText(input, secrets());
        const record = auditRecord({ callId, request, tool, input: text, result: capped, durationMs, decision, requestedInput });
        if (request.deferAudit) request.deferAudit.push(record);
        else this.writeAudit([record]);
      }
      this.options.events?.emit({
        type: 'tool:call', tool, callId, conversationId: request.conversationId, turnId: request.turnId,
        origin: request.origin, success: capped.success, durationMs, ...(decision ? { decision } : {}),
      });
      const vouched = entry && input instanceof Sent && input.params && capped.success && capped.thirdParty ? this.gate.vouched(entry, input.params, capped) : undefined;
      return { callId, tool: entry?.name, result: capped, durationMs, ...(decision ? { decision } : {}), ...(vouched ? { vouched } : {}) };
    };

    const entry = this.lookUp(request);
    if (!entry.success) return finish(undefined, entry.error, request.arguments);
    const tool = entry.value;
    const parsed = this.checker.parse(tool, request.arguments);
    if (!parsed.success) return finish(tool, fail(parsed.error), request.arguments);
    const invalid = await this.checker.validate(tool, parsed.value);
    if (invalid !== undefined) return finish(tool, fail(`Invalid arguments for ${tool.functionName}: ${invalid}. Fix them and call again.`), parsed.value);
    const context = this.context;
    if (!context) return finish(tool, fail('Tools are not ready yet (no context); try again shortly.'), parsed.value);

    const call = openCallScope(tool, request, context, callId, this.options.events);
    const timeoutMs = this.timeoutFor(tool);
    try {
      const intercepted = await this.hooks.intercept(tool, parsed.value, call.ctx, timeoutMs, request.signal);
      if (!intercepted.success) return finish(tool, fail(intercepted.error), parsed.value);
      const params = intercepted.value;
      if (params !== parsed.value) requestedInput = auditText(parsed.value, secrets());
      const decided = await this.decide({ entry: tool, params, request, callId, risk: this.riskOf(tool, params), effects: this.effectsOf(tool, params) });
      if (!decided.allowed) {
        return finish(tool, fail(`The call to ${tool.functionName} was not approved: ${decided.reason}. Do not retry it; tell the person what you wanted to do.`), params, decided.decision);
      }
      call.params = params;
      if (decided.guest === true) call.ctx.guest = true;
      const sent = new Sent(this.options.audit ? auditText(params, secrets()) : '', tool.tool.vouches === true ? structuredClone(params) : undefined);
      // Progress moves the deadline only for tools that declare a cap, and never below the configured timeout.
      const capMs = Math.max(timeoutMs, tool.tool.maxTimeoutMs ?? timeoutMs);
      const personTexts = request.provenance ? () => request.provenance?.personTexts() ?? [] : undefined;
      let result = await runWithDeadline(call, { timeoutMs, capMs }, request.signal, personTexts);
      if (tool.tool.external && result.success && !result.externalSource) result = { ...result, externalSource: tool.name };
      result = await this.hooks.settle(tool, params, call.ctx, result, performance.now() - started, timeoutMs, request.signal);
      return finish(tool, result, sent, decided.decision);
    } finally {
      call.dispose();
    }
  }

  /** The gate's answer; a gate that throws is a denial, never a pass. */
  private async decide(call: GateCall): Promise<GateDecision> {
    try {
      return await this.gate.decide(call);
    } catch (error) {
      this.context?.log.error({ err: error, tool: call.entry.name }, 'the gate failed; the call is refused');
      return { allowed: false, decision: 'denied: the gate failed', reason: 'the check before running it failed (a bug, logged)' };
    }
  }

  /** The tool by name or alias, if the call's filter allows it; else a failure listing the valid names. */
  private lookUp(request: CallRequest): Result<RegisteredTool, ToolResult> {
    const filter = request.filter ?? ALLOW_ALL;
    const entry = this.get(request.name);
    if (entry && filter.allows(entry)) return { success: true, value: entry };
    const valid = this.list(filter).map((candidate) => candidate.functionName).join(', ');
    const why = entry ? filter.why?.(entry) : undefined;
    const reason = entry ? `Tool "${request.name}" is not allowed here${why !== undefined ? ` (${why})` : ''}.` : `Unknown tool "${request.name}".`;
    return { success: false, error: fail(`${reason} Valid tools: ${valid || '(none)'}.`) };
  }

  private timeoutFor(entry: RegisteredTool): number {
    const configured = this.limits.timeouts[entry.name] ?? this.limits.timeouts[entry.functionName];
    if (configured !== undefined) return configured * 1000;
    return entry.tool.timeoutMs ?? this.limits.defaultTimeoutMs;
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
}

/** The arguments as they went to the tool: their audit text, and a copy for what a vouching tool's result vouches for. */
class Sent {
  constructor(readonly text: string, readonly params: Record<string, unknown> | undefined) {}
}

/**
 * The gate a registry has until it is given one: nothing that would need a person runs (a high-risk call, or in a
 * turn holding outside content any call that does more than answer), and nothing vouches for an address. A caller
 * that forgets the gate gets refusals, never "allow".
 */
const CLOSED_GATE: CallGate = {
  async decide(call) {
    const tainted = (call.request.taint?.length ?? 0) > 0;
    if (call.risk !== 'high' && !(tainted && call.effects.length > 0)) return tainted ? { allowed: true, guest: true } : { allowed: true };
    return { allowed: false, decision: 'denied: no gate', reason: 'no approval gate is set up in this process, so nothing that needs approval can run' };
  },
  vouched: () => undefined,
};
