import { isDeepStrictEqual } from 'node:util';
import { errorMessage } from '../errors.js';
import { failure, succeed, type Result } from '../lib/result.js';
import type { AfterHook, BeforeHook, BeforeVerdict, RegisteredTool } from '../tools/call.js';
import { fail, type ToolCallContext, type ToolResult } from '../tools/types.js';
import type { ArgumentChecker } from './arguments.js';
import { bounded, isToolResult } from './deadline.js';

interface Hooked<H> {
  hook: H;
  /** Who registered it (a module's file, a part), for the messages when it fails. */
  source: string;
}

/**
 * `tool:before` and `tool:after` middleware, in the order added. A hook that throws never crashes a turn — a failed
 * `tool:before` refuses the call, a failed `tool:after` withholds the result (either could have been a guard or a
 * redaction) — and none may take longer than the call may.
 */
export class Hooks {
  private readonly before: Array<Hooked<BeforeHook>> = [];
  private readonly after: Array<Hooked<AfterHook>> = [];

  constructor(private readonly checker: ArgumentChecker) {}

  /** Adds a hook; returns the way to remove it. */
  add(event: 'tool:before' | 'tool:after', hook: BeforeHook | AfterHook, source: string): () => void {
    const list: Array<Hooked<BeforeHook | AfterHook>> = event === 'tool:before' ? this.before : this.after;
    const entry = { hook, source };
    list.push(entry);
    return () => {
      const index = list.indexOf(entry);
      if (index >= 0) list.splice(index, 1);
    };
  }

  /**
   * `tool:before` hooks, each bounded by the call's deadline. A veto or a failed hook refuses the call; a rewrite is
   * checked like the model's own arguments (forbidden keys, the schema) before the next hook sees it. The value is
   * the arguments to run with: the same object when no hook changed them.
   */
  async intercept(entry: RegisteredTool, params: Record<string, unknown>, ctx: ToolCallContext, timeoutMs: number, signal: AbortSignal | undefined): Promise<Result<Record<string, unknown>>> {
    let current = params;
    for (const { hook, source } of [...this.before]) {
      let verdict: BeforeVerdict;
      try {
        verdict = await bounded(Promise.resolve((hook as BeforeHook)({ tool: entry.name, params: structuredClone(current), ctx })), timeoutMs, signal, `the tool:before hook of ${source}`);
      } catch (error) {
        ctx.log.warn({ err: error, hook: source }, 'tool:before hook failed; the call is refused');
        return failure(`${entry.functionName} was not run: a tool:before hook (${source}) failed: ${errorMessage(error)}. Tell the person; retrying will not help.`);
      }
      if (verdict === undefined || verdict === null) continue;
      if (typeof verdict === 'object' && 'block' in verdict) {
        return failure(typeof verdict.block === 'string' && verdict.block !== '' ? verdict.block : `${entry.functionName} was refused by ${source}.`);
      }
      if (typeof verdict === 'object' && 'params' in verdict) {
        const rewritten = await this.checker.checkRewrite(entry, verdict.params);
        if (!rewritten.success) {
          const message = `${entry.functionName} was not run: the tool:before hook of ${source} changed its arguments into ones the tool refuses (${rewritten.error}). Tell the person; retrying will not help.`;
          ctx.log.warn({ hook: source, reason: message }, 'tool:before hook rewrote the arguments into invalid ones; the call is refused');
          return failure(message);
        }
        if (!isDeepStrictEqual(rewritten.value, current)) current = rewritten.value;
        continue;
      }
      ctx.log.warn({ hook: source }, 'tool:before hook returned something other than nothing, { block } or { params }; ignored');
    }
    return succeed(current);
  }

  /** `tool:after` hooks over a finished call's result: each may replace it; what the tool said about outside content stays. */
  async settle(entry: RegisteredTool, params: Record<string, unknown>, ctx: ToolCallContext, result: ToolResult, durationMs: number, timeoutMs: number, signal: AbortSignal | undefined): Promise<ToolResult> {
    let current = result;
    for (const { hook, source } of [...this.after]) {
      try {
        const verdict = await bounded(Promise.resolve((hook as AfterHook)({ tool: entry.name, params, ctx, result: current, durationMs })), timeoutMs, signal, `the tool:after hook of ${source}`);
        if (verdict === undefined || verdict === null) continue;
        if (typeof verdict !== 'object' || !('result' in verdict) || !isToolResult(verdict.result)) throw new Error('it returned something other than nothing or { result: { success, output } }');
        // A hook may rewrite the text, not what the tool said about where it came from: the source and the
        // third-party text stay the tool's (a hook that drops them would make outside content look like ours).
        const { externalSource, thirdParty } = current;
        current = {
          ...verdict.result,
          ...(externalSource && !verdict.result.externalSource ? { externalSource } : {}),
          ...(thirdParty ? { thirdParty } : {}),
        };
      } catch (error) {
        ctx.log.warn({ err: error, hook: source }, 'tool:after hook failed; the result is withheld');
        return fail(`${entry.functionName} ran (${current.success ? 'it succeeded' : 'it failed'}), but its result is withheld: a tool:after hook (${source}) failed: ${errorMessage(error)}. Do not call it again for this; tell the person.`);
      }
    }
    return current;
  }
}
