/**
 * A tool module's default export → the tools and hooks it defines, checked. The module's own mistakes are said in
 * terms of its file ("item 2: parameters must describe an object"); nothing is registered from a module with one.
 */
import { errorMessage } from '../errors.js';
import { failure, succeed, type Result } from '../lib/result.js';
import { fail, ok, type AnyTool, type ToolCallContext, type ToolResult } from '../tools/types.js';
import type { FamiliarEvent } from '../tools/events.js';
import { seedFailure } from '../tools/seed-failure.js';
import { checkDescription, checkEffects, checkName, checkParameters, checkRisk, checkTimeout, flattenSeedShape } from './check-definition.js';

const DEFINITION = Symbol.for('familiar.definition');

export interface HookSpec {
  event: string;
  handler: (...args: never[]) => unknown;
}

export interface ModuleDefinitions {
  tools: AnyTool[];
  hooks: HookSpec[];
}

/** Checks every item of the default export; the first problem fails the whole module. */
export async function readModuleDefinitions(exported: unknown): Promise<Result<ModuleDefinitions>> {
  if (exported === undefined) return failure('it has no default export: end it with `export default defineTool({ … })` (or an array of definitions)');
  const items = Array.isArray(exported) ? (exported as unknown[]) : [exported];
  if (items.length === 0) return failure('its default export is an empty array: it defines nothing');
  const tools: AnyTool[] = [];
  const hooks: HookSpec[] = [];
  for (const [index, item] of items.entries()) {
    const where = items.length > 1 ? `item ${index + 1} of the default export` : 'the default export';
    if (item === null || typeof item !== 'object') return failure(`${where} is ${item === null ? 'null' : typeof item}, not defineTool(…) or defineHook(…)`);
    const record = item as Record<PropertyKey, unknown>;
    const kind = record[DEFINITION] ?? (typeof record.execute === 'function' ? 'tool' : typeof record.handler === 'function' ? 'hook' : undefined);
    if (kind === 'hook') {
      const hook = checkHook(record);
      if (!hook.success) return failure(`${where}: ${hook.error}`);
      hooks.push(hook.value);
      continue;
    }
    if (kind !== 'tool') return failure(`${where} is neither defineTool(…) nor defineHook(…) (a tool needs name, description, parameters and execute)`);
    const tool = await checkTool(record);
    if (!tool.success) return failure(`${where}${nameOf(record) !== undefined ? ` (${nameOf(record)})` : ''}: ${tool.error}`);
    if (tools.some((other) => other.name === tool.value.name)) return failure(`${where}: the module defines "${tool.value.name}" twice`);
    tools.push(tool.value);
  }
  return succeed({ tools, hooks });
}

/** The tool's name in either shape, for messages. */
function nameOf(record: Record<PropertyKey, unknown>): string | undefined {
  const name = record.name ?? (record.schema as { name?: unknown } | null | undefined)?.name;
  return typeof name === 'string' ? name : undefined;
}

function checkHook(record: Record<PropertyKey, unknown>): Result<HookSpec> {
  const { event, handler } = record;
  if (typeof event !== 'string' || event === '') return failure('a hook needs an event name (tool:before, tool:after, turn:start, turn:end, tool:call, * or a tool\'s own event)');
  if (typeof handler !== 'function') return failure(`the ${event} hook needs a handler function`);
  return succeed({ event, handler: handler as HookSpec['handler'] });
}

/** A permission a tool declares: a plain name, no patterns (those are for grants). */
const PERMISSION_NAME = /^[a-z0-9][a-z0-9_.:-]*$/i;

async function checkTool(given: Record<PropertyKey, unknown>): Promise<Result<AnyTool>> {
  const flattened = flattenSeedShape(given);
  if (!flattened.success) return flattened;
  const record = flattened.value;
  const problem = checkName(record.name) ?? checkDescription(record.description) ?? checkRisk(record.risk) ?? checkEffects(record.effects)
    ?? checkTimeout(record.timeoutMs)
    ?? (typeof record.execute !== 'function' ? 'execute must be a function (params, ctx) => result' : undefined)
    ?? (record.external !== undefined && typeof record.external !== 'boolean' ? 'external must be true or false' : undefined)
    ?? (record.readOnly !== undefined && typeof record.readOnly !== 'boolean' ? 'readOnly must be true or false' : undefined)
    ?? (record.group !== undefined && (typeof record.group !== 'string' || record.group === '') ? 'group must be a non-empty text' : undefined)
    ?? (record.aliases !== undefined && (!Array.isArray(record.aliases) || record.aliases.some((alias) => typeof alias !== 'string' || checkName(alias) !== undefined)) ? 'aliases must be a list of names (letters, digits, _ or -)' : undefined)
    ?? (record.permissions !== undefined && (!Array.isArray(record.permissions) || record.permissions.some((permission) => typeof permission !== 'string' || !PERMISSION_NAME.test(permission))) ? 'permissions must be a list of names such as "home.lights" (letters, digits, ".", ":", "_" or "-")' : undefined)
    ?? (record.callPermissions !== undefined && typeof record.callPermissions !== 'function' ? 'callPermissions must be a function (params) => a list of permission names' : undefined);
  if (problem) return failure(problem);
  const parameters = await checkParameters(record.parameters);
  if (!parameters.success) return parameters;
  const name = record.name as string;
  const execute = record.execute as (params: unknown, ctx: unknown) => unknown;
  const tool: AnyTool = {
    name,
    description: record.description as string,
    parameters: parameters.value,
    ...(record.risk !== undefined ? { risk: record.risk as NonNullable<AnyTool['risk']> } : {}),
    ...(record.effects !== undefined ? { effects: record.effects as NonNullable<AnyTool['effects']> } : {}),
    ...(record.external !== undefined ? { external: record.external as boolean } : {}),
    ...(record.readOnly !== undefined ? { readOnly: record.readOnly as boolean } : {}),
    ...(record.timeoutMs !== undefined ? { timeoutMs: record.timeoutMs as number } : {}),
    ...(record.group !== undefined ? { group: record.group as string } : {}),
    ...(record.aliases !== undefined ? { aliases: record.aliases as string[] } : {}),
    ...(record.permissions !== undefined ? { permissions: record.permissions as string[] } : {}),
    ...(record.callPermissions !== undefined ? { callPermissions: record.callPermissions as (params: Record<string, unknown>) => string[] } : {}),
    async execute(params: Record<string, unknown>, ctx: ToolCallContext): Promise<ToolResult> {
      return asToolResult(name, await execute(params, customContext(name, ctx)));
    },
  };
  return succeed(tool);
}

/** The SDK's context: the call's, plus this tool's settings and an `emit` that is always there. */
function customContext(name: string, ctx: ToolCallContext): ToolCallContext & { settings: Readonly<Record<string, unknown>>; emit(event: FamiliarEvent): void; input: string; state: Map<string, unknown>; cancel(reason?: string): void } {
  const settings = ctx.config.tools.settings;
  return {
    ...ctx,
    input: ctx.input ?? '',
    state: ctx.state ?? new Map<string, unknown>(),
    cancel: (reason) => ctx.cancel?.(reason),
    // A copy per call: a tool that changes its settings object changes nothing for the next call.
    settings: Object.hasOwn(settings, name) ? structuredClone(settings[name] ?? {}) : {},
    emit: (event) => ctx.emit?.(event),
  };
}

/** Text is a success; a ToolResult is kept; `{ success: false, error }` is a failure; any other value is sent as JSON. */
export function asToolResult(name: string, value: unknown): ToolResult {
  if (typeof value === 'string') return ok(value);
  if (value === undefined || value === null) return fail(`${name} returned nothing; tell the person its module should return text or { success, output }.`);
  const failed = seedFailure(value);
  if (failed) return failed;
  if (typeof value === 'object' && typeof (value as ToolResult).success === 'boolean' && typeof (value as ToolResult).output === 'string') return value as ToolResult;
  try {
    return ok(JSON.stringify(value) ?? String(value));
  } catch (error) {
    return fail(`${name} returned something that is not JSON (${errorMessage(error)}).`);
  }
}
