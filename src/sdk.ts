/**
 * Familiar's SDK for your own tools: what a module in `tools_dir` imports as `import { defineTool } from 'familiar'`.
 * A module's default export is one `defineTool(...)` / `defineHook(...)` or an array of them; the daemon registers
 * the tools in its one registry (validation, agents' policies, approvals, deadlines, output caps, redaction, audit
 * apply as to every built-in tool) and adds the hooks. Modules run inside the daemon with its full rights.
 *
 * This file must load on its own, from anywhere: the daemon maps `familiar` to it for modules outside the checkout,
 * so it imports nothing at run time (types only).
 */
import type { Effect } from './tools/effects.js';
import type { FamiliarEvent, KnownEvents, TurnEndEvent, TurnStartEvent, ToolCallEvent } from './tools/events.js';
import type { AfterHook, BeforeHook } from './tools/call.js';
import type { Artifact, JsonSchema, Risk, ToolCallContext, ToolResult } from './tools/types.js';

export type { AfterHook, Artifact, BeforeHook, Effect, FamiliarEvent, JsonSchema, Risk, ToolCallEvent, ToolResult, TurnEndEvent, TurnStartEvent };

/** What `execute` gets besides its arguments: the call (conversation, origin, deadline) and the daemon's services. */
export interface CustomToolContext extends ToolCallContext {
  /** `tools.settings.<tool name>` from config.yaml (`{}` when there is none), `${VAR}`s already filled in. */
  settings: Readonly<Record<string, unknown>>;
  /** Sends an event of the tool's own `type` to the listeners (`defineHook('meter:reading', …)`). */
  emit(event: FamiliarEvent): void;
  /** The person's text of this turn, or the job's prompt ('' for a call made outside a turn, e.g. `familiar tools test`). */
  input: string;
  /** Shared by the tool calls of one turn or job run: leave something for a later call of the same turn. */
  state: Map<string, unknown>;
  /** Stops the run: this call's result is kept, calls running beside it are cancelled, no further step is made. */
  cancel(reason?: string): void;
}

/**
 * What `execute` may return: a ToolResult, or text (a success), or any other JSON value (a success, sent as JSON).
 * Throwing is fine too: the model gets "NAME failed: <message>".
 */
export type ToolReturn = ToolResult | string | number | boolean | Record<string, unknown> | unknown[];

export interface ToolDefinition<P = Record<string, unknown>> {
  /** What the model calls: letters, digits, `_` and `-`, at most 64. Must not be taken by another tool. */
  name: string;
  /** What the model reads to decide when to call it; say what it returns. */
  description: string;
  /** JSON Schema of the arguments (`type: 'object'`), checked before `execute` runs. */
  parameters: JsonSchema;
  /** `high` asks the person before each call (or only some calls, as a function of the arguments). Default low. */
  risk?: Risk | ((params: P) => Risk);
  /**
   * What a call can do beyond answering (docs/tools/your-own-tools.md): the trust policy uses it in a turn that holds outside
   * content. Declare `[]` when a call cannot carry anything the model chose out of the machine. A tool that
   * declares nothing is treated as able to send data anywhere.
   */
  effects?: readonly Effect[] | ((params: P) => readonly Effect[]);
  /** Results carry outside content (a web page, someone else's text): the turn is then treated as tainted. */
  external?: boolean;
  /**
   * A call changes nothing anywhere (it only looks something up): a step of only such calls is stored with the turn's
   * next step, one write fewer. Leave it out for anything that switches, sends, writes or starts. Default false.
   */
  readOnly?: boolean;
  /** Deadline of one call (default `tools.timeout_s`; `tools.timeouts.<name>` overrides both). */
  timeoutMs?: number;
  /** For agents' tool patterns such as `home.*` (default: the name up to its first `_`). */
  group?: string;
  aliases?: readonly string[];
  /**
   * Named permissions every call needs (`home.lights`): an agent with a `permissions` grant list is offered the tool
   * only when it holds them all. Undeclared, the tool needs `tool:<its name>`. Agents without a grant list ignore it.
   */
  permissions?: readonly string[];
  /** Permissions some calls need beyond `permissions` (a "delete" action needing `home.admin`), checked per call. */
  callPermissions?: (params: P) => readonly string[];
  execute(params: P, ctx: CustomToolContext): ToolReturn | Promise<ToolReturn>;
}

/**
 * Seed 001's shape of the same definition: what the model sees under `schema`, the rest beside it. `defineTool`
 * takes either shape and makes the same tool.
 */
export type SeedToolDefinition<P = Record<string, unknown>> = Omit<ToolDefinition<P>, 'name' | 'description' | 'parameters'> & {
  schema: { name: string; description: string; parameters: JsonSchema };
};

/** Marks what `defineTool` and `defineHook` made, across copies of this file (a global symbol). */
export const DEFINITION: unique symbol = Symbol.for('familiar.definition');

export type DefinedTool<P = Record<string, unknown>> = ToolDefinition<P> & { readonly [DEFINITION]: 'tool' };

/**
 * A tool for the daemon's registry, flat (`{ name, description, parameters, execute }`) or as seed 001 writes it
 * (`{ schema: { name, description, parameters }, execute }`). `P` is the type of the arguments the schema describes.
 * The daemon checks the definition when it loads the module and says what is wrong with it.
 */
export function defineTool<P = Record<string, unknown>>(definition: ToolDefinition<P> | SeedToolDefinition<P>): DefinedTool<P> {
  const record = definition as Partial<ToolDefinition<P>> & { schema?: unknown };
  const schema = record.schema;
  const flat = record.name === undefined && record.description === undefined && record.parameters === undefined;
  if (schema === null || typeof schema !== 'object' || !flat) return Object.freeze({ ...definition, [DEFINITION]: 'tool' as const }) as DefinedTool<P>;
  // Flattened here so that `defineTool(…).name` is the name in either shape; one with both is left for the loader to refuse.
  const { schema: _schema, ...rest } = record;
  const { name, description, parameters } = schema as Partial<ToolDefinition<P>>;
  return Object.freeze({ ...rest, name, description, parameters, [DEFINITION]: 'tool' as const }) as DefinedTool<P>;
}

/** What each hook gets and may answer. */
export interface HookHandlers {
  /** Before a call runs (after validation, before approval): veto with `{ block }`, rewrite with `{ params }`. */
  'tool:before': BeforeHook;
  /** After a call ran: observe, or replace the result with `{ result }` (e.g. redacted). */
  'tool:after': AfterHook;
  'turn:start': (event: KnownEvents['turn:start']) => void | Promise<void>;
  'turn:end': (event: KnownEvents['turn:end']) => void | Promise<void>;
  'tool:call': (event: KnownEvents['tool:call']) => void | Promise<void>;
}

export interface HookDefinition {
  readonly [DEFINITION]: 'hook';
  /** A name of `HookHandlers`, `*` for every event, or a tool's own event type (`meter:reading`). */
  readonly event: string;
  readonly handler: (...args: never[]) => unknown;
}

/**
 * A hook on the daemon's calls and turns. A hook that throws never crashes a turn: a failed `tool:before` refuses
 * the call, a failed `tool:after` withholds the result, a failed listener is only logged.
 */
export function defineHook<K extends keyof HookHandlers>(event: K, handler: HookHandlers[K]): HookDefinition;
export function defineHook(event: string, handler: (event: FamiliarEvent) => void | Promise<void>): HookDefinition;
export function defineHook(event: string, handler: (...args: never[]) => unknown): HookDefinition {
  return Object.freeze({ [DEFINITION]: 'hook' as const, event, handler });
}

/** A successful result. */
export function ok(output: string, extra: Omit<ToolResult, 'success' | 'output'> = {}): ToolResult {
  return { success: true, output, ...extra };
}

/** A failure the model can act on: say what went wrong and what to do next. */
export function fail(output: string): ToolResult {
  return { success: false, output };
}
