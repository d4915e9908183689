import { errorMessage } from '../errors.js';
import type { SandboxAccess } from '../tools/context.js';
import type { ToolResult } from '../tools/types.js';
import { scriptResult } from './script-result.js';

/**
 * The script and the arguments travel inside the command (base64), so the sandbox needs no mount of the tools folder
 * and no stdin: Linux caps one argument at 128 KiB, hence these limits.
 */
export const SANDBOX_SCRIPT_MAX_BYTES = 60 * 1024;
const COMMAND_MAX_CHARS = 120_000;

export interface SandboxScriptRun {
  name: string;
  pool: SandboxAccess;
  /** The script as loaded (and listed at start). */
  script: Buffer;
  params: Record<string, unknown>;
  timeoutMs: number;
  network: boolean;
  conversationId: string;
  /** Its container and workspace: the call's (`ctx.workspaceId`). */
  workspaceId: string;
  signal: AbortSignal;
}

/** Runs a script tool in the conversation's container, in /workspace, as the sandbox user. Contract: never throws. */
export async function runInSandbox(run: SandboxScriptRun): Promise<ToolResult> {
  const command = sandboxCommand(run.name, run.conversationId, run.script, JSON.stringify(run.params));
  if (command.length > COMMAND_MAX_CHARS) {
    return { success: false, output: `The arguments for ${run.name} are too large to pass to a sandbox script; put the data in a workspace file and pass its path.` };
  }
  try {
    const result = await run.pool.run(run.workspaceId, { command, timeoutMs: run.timeoutMs, signal: run.signal, ...(run.network ? { network: true } : {}) });
    return scriptResult(run.name, {
      exitCode: result.exitCode, stdout: result.stdout.text(), stderr: result.stderr.text(), stdoutDropped: result.stdout.dropped,
      timedOut: result.timedOut, cancelled: result.cancelled, oomKilled: result.oomKilled, timeoutMs: run.timeoutMs,
    });
  } catch (error) {
    return { success: false, output: `The sandbox could not run ${run.name}: ${errorMessage(error)}. Try again; if it keeps failing, tell the person to run familiar doctor.` };
  }
}

/** A bash command that writes the script to /tmp, runs it with the arguments on stdin, removes it and keeps its status. */
export function sandboxCommand(name: string, conversationId: string, script: Buffer, argumentsJson: string): string {
  // base64's alphabet needs no quoting inside '…'; the conversation id might.
  const quote = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;
  return [
    'f=$(mktemp /tmp/familiar-tool.XXXXXX) || exit 126',
    `printf '%s' '${script.toString('base64')}' | base64 -d > "$f" && chmod 700 "$f" || exit 126`,
    `printf '%s' '${Buffer.from(argumentsJson).toString('base64')}' | base64 -d | FAMILIAR_TOOL=${quote(name)} FAMILIAR_CONVERSATION=${quote(conversationId)} "$f"`,
    'status=$?',
    'rm -f "$f"',
    'exit $status',
  ].join('\n');
}
