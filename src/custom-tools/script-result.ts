import type { ToolResult } from '../tools/types.js';

/** What a finished script says to the model: its stdout on exit 0, else why it failed with the end of its stderr. */
export function scriptResult(name: string, run: { exitCode: number | null; stdout: string; stderr: string; stdoutDropped: number; timedOut: boolean; cancelled: boolean; timeoutMs: number; oomKilled?: boolean }): ToolResult {
  const seconds = Math.round(run.timeoutMs / 100) / 10;
  if (run.cancelled) return { success: false, output: 'The turn was cancelled; the script was stopped.' };
  if (run.timedOut) return { success: false, output: `${name} did not finish within ${seconds} s and was stopped.${tail('Its stderr', run.stderr)}` };
  if (run.oomKilled) return { success: false, output: `${name} ran out of memory in the sandbox and was stopped.` };
  const more = run.stdoutDropped > 0 ? `\n…[${run.stdoutDropped} more bytes of output not kept]` : '';
  if (run.exitCode === 0) {
    const output = run.stdout.replace(/\n+$/, '');
    return { success: true, output: output === '' ? `${name} finished and printed nothing.` : `${output}${more}` };
  }
  const status = run.exitCode === null ? 'was killed' : `exited with status ${run.exitCode}`;
  return { success: false, output: `${name} ${status}.${tail('Its stderr', run.stderr)}${tail('Its stdout', run.stdout)}` };
}

function tail(label: string, text: string, max = 2000): string {
  const trimmed = text.trim();
  if (trimmed === '') return '';
  return `\n${label}: ${trimmed.length > max ? `…${trimmed.slice(-max)}` : trimmed}`;
}
