import { errorMessage } from '../errors.js';
import { redactSecrets } from '../log.js';
import type { SandboxRun, SandboxStream } from '../tools/context.js';
import { fail, ok, type AnyTool, type ToolResult, workspaceIdOf } from '../tools/types.js';
import { createFileTools } from './file-tools.js';
import { guestNote } from './guest.js';
import type { SandboxConfig } from './pool.js';
import { walk } from '../workspace/walk.js';
import { fullMessage, nearlyFull } from '../workspace/workspace-files.js';
import type { Workspaces } from '../workspace/workspace.js';

/** Room left for the frame around the two streams inside `tools.output_chars`. */
const FRAME_CHARS = 400;

/** sandbox_exec, the file tools and (when `code_agent` is configured) opencode. */
export function createSandboxTools(workspaces: Workspaces, config: SandboxConfig, options: { codeAgent: boolean } = { codeAgent: true }): AnyTool[] {
  const tools = [createExecTool(workspaces, config), ...createFileTools(workspaces, config)];
  if (config.code_agent && options.codeAgent) tools.push(createCodeAgentTool(workspaces, config));
  return tools;
}

function createExecTool(workspaces: Workspaces, config: SandboxConfig): AnyTool {
  return {
    name: 'sandbox_exec',
    group: 'sandbox',
    description:
      'Run a bash command in this conversation\'s Docker sandbox (Debian with python3, node, git, curl, jq, ripgrep), in /workspace, ' +
      'where files persist between calls (the file tools see the same folder). No network unless network: true is allowed. ' +
      `Returns the exit code, stdout and stderr. Default timeout ${config.timeout_s} s.`,
    parameters: {
      type: 'object',
      properties: {
        command: { type: 'string', minLength: 1, description: 'a bash command line, e.g. "python3 script.py" or "ls -la"' },
        timeout_s: { type: 'number', minimum: 1, maximum: config.max_timeout_s, description: `seconds before the command is killed; default ${config.timeout_s}` },
        network: { type: 'boolean', description: 'run with network access (only if the operator allows it)' },
        modify_existing: { type: 'boolean', description: 'only when the person asked to change or delete files already in the workspace and outside content was read in this turn (the person is asked first)' },
      },
      required: ['command'],
      additionalProperties: false,
    },
    // A refused network request (allow_network off) is not worth asking the person about.
    risk: (params: { network?: boolean }) => (params.network && config.allow_network ? 'high' : 'low'),
    // Without network nothing leaves the container; with it, anything may. In a turn holding outside content the
    // command runs as a guest that cannot touch the person's files (guest.ts) unless the person says yes.
    effects: (params: { network?: boolean; modify_existing?: boolean; command?: string }) => [
      ...(params.network ? [{ kind: 'egress', what: 'a sandbox command with network' } as const] : []),
      ...(params.modify_existing ? [{ kind: 'modify', target: 'workspace', explicit: true, what: `the command: ${params.command ?? ''}` } as const] : []),
    ],
    // Its output and the workspace's files are outside content: the container may have been fed from anywhere.
    external: true,

    // The call's own timeout_s decides; the registry deadline is only a backstop above the longest allowed.
    timeoutMs: (config.max_timeout_s + 30) * 1000,
    async execute(params: { command: string; timeout_s?: number; network?: boolean; modify_existing?: boolean }, ctx) {
      if (params.network && !config.allow_network) {
        return fail('Network access is off in the sandbox (tools.sandbox.allow_network is false). Run the command without network: true, or ask the person to allow it.');
      }
      if (!ctx.pool) return fail('The sandbox is not running (no Docker engine); tell the person to run familiar doctor.');
      const timeoutS = params.timeout_s ?? config.timeout_s;
      const guest = ctx.guest === true;
      let result: SandboxRun;
      try {
        result = await ctx.pool.run(workspaceIdOf(ctx), {
          command: params.command, timeoutMs: timeoutS * 1000, signal: ctx.signal, ...(params.network ? { network: true } : {}),
          ...(guest ? { guest: config.guest_user } : {}),
        });
      } catch (error) {
        ctx.log.warn({ err: error }, 'sandbox: run failed');
        return fail(`The sandbox could not run the command: ${errorMessage(error)}. Try again; if it keeps failing, tell the person to run familiar doctor.`);
      }
      const formatted = formatRun(result, { timeoutS, memoryMb: config.memory_mb, budget: ctx.config.tools.output_chars - FRAME_CHARS });
      // A command that filled the workspace fails with "No space left on device"; say which limit that is.
      const usage = await workspaces.usage(workspaceIdOf(ctx));
      if (usage && nearlyFull(usage)) formatted.output += `\nNote: ${fullMessage(usage)}.`;
      const note = guest && result.exitCode !== 0 ? guestNote(ctx, result.stderr.text()) : undefined;
      if (note) formatted.output += `\n${note}`;
      return formatted;
    },
  };
}

function createCodeAgentTool(workspaces: Workspaces, config: SandboxConfig): AnyTool {
  const agentConfig = config.code_agent;
  if (!agentConfig) throw new Error('code_agent is not configured');
  const secrets = Object.values(agentConfig.env);
  return {
    name: 'opencode',
    group: 'sandbox',
    description:
      `Give a programming task to a coding agent (${agentConfig.command.split(/\s+/)[0] ?? 'agent'}) that works in this conversation's workspace (/workspace) ` +
      'in its own sandbox container. Returns its final output and the files it changed. Use it for multi-step coding work.',
    parameters: {
      type: 'object',
      properties: {
        task: { type: 'string', minLength: 1, description: 'what to build or change, with all details the agent needs' },
        agent: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,40}$', description: 'the coding agent\'s own agent/mode name, if it has several (e.g. "plan")' },
        timeout_s: { type: 'number', minimum: 1, maximum: agentConfig.timeout_s, description: `default ${agentConfig.timeout_s}` },
      },
      required: ['task'],
      additionalProperties: false,
    },
    risk: 'high',
    effects: agentConfig.network === 'none' ? [] : [{ kind: 'egress', what: 'a coding agent with network' }],
    // Its output and the workspace's files are outside content: the container may have been fed from anywhere.
    external: true,
    timeoutMs: (agentConfig.timeout_s + 60) * 1000,
    async execute(params: { task: string; agent?: string; timeout_s?: number }, ctx) {
      if (!ctx.pool) return fail('The sandbox is not running (no Docker engine); tell the person to run familiar doctor.');
      const timeoutS = params.timeout_s ?? agentConfig.timeout_s;
      const command = [agentConfig.command, ...(params.agent ? [agentConfig.agent_flag, shellQuote(params.agent)] : []), shellQuote(params.task)].join(' ');
      let result: SandboxRun;
      let changes: string[];
      try {
        const workspaceId = workspaceIdOf(ctx);
        const dir = await workspaces.ensure(workspaceId);
        const before = await snapshot(workspaces, workspaceId);
        // The key goes into this one container's environment only: not the command line, not a log line.
        result = await ctx.pool.runOneOff(dir, {
          cmd: ['/bin/bash', '-c', command],
          timeoutMs: timeoutS * 1000,
          network: agentConfig.network,
          env: Object.entries(agentConfig.env).map(([key, value]) => `${key}=${value}`),
          signal: ctx.signal,
          ...(agentConfig.image ? { image: agentConfig.image } : {}),
        });
        changes = diffSnapshots(before, await snapshot(workspaces, workspaceId));
      } catch (error) {
        ctx.log.warn({ err: error }, 'sandbox: coding agent failed to start');
        return fail(`The coding agent could not be started: ${redactSecrets(errorMessage(error), secrets)}.`);
      }
      ctx.log.info({ exitCode: result.exitCode, changed: changes.length, timedOut: result.timedOut }, 'sandbox: coding agent finished');
      const status = result.timedOut
        ? `The coding agent did not finish within ${timeoutS} s and was stopped.`
        : result.exitCode === 0
          ? 'The coding agent finished.'
          : `The coding agent failed (exit code ${result.exitCode ?? 'unknown'}).`;
      const changed = changes.length > 0 ? `Files changed in the workspace:\n${changes.join('\n')}` : 'No file in the workspace changed.';
      const budget = ctx.config.tools.output_chars - FRAME_CHARS - changed.length;
      const output = tail(result.stdout, Math.max(500, result.exitCode === 0 ? budget : Math.floor(budget / 2)));
      const errors = result.exitCode === 0 ? '' : `\nIts stderr (end):\n${tail(result.stderr, Math.max(300, Math.floor(budget / 2)))}`;
      const text = redactSecrets(`${status}\n${changed}\nIts output (end):\n${output || '(none)'}${errors}`, secrets);
      return { success: result.exitCode === 0 && !result.timedOut, output: text };
    },
  };
}

/** The tool output for one command: exit code (or why there is none), then stdout and stderr, each within its share. */
export function formatRun(result: SandboxRun, options: { timeoutS: number; memoryMb: number; budget: number }): ToolResult {
  let status: string;
  if (result.timedOut) {
    status = `timed out after ${options.timeoutS} s: the command was killed with its container (files in /workspace are kept; the next call gets a fresh container). Make it faster, run it in the background with output to a file, or pass a larger timeout_s.`;
  } else if (result.cancelled) {
    status = 'cancelled: the turn was stopped, and the command was killed with its container.';
  } else if (result.exitCode === null) {
    status = 'no exit code: the container stopped before the command finished (another command in this conversation may have timed out). Run it again.';
  } else if (result.oomKilled) {
    status = `exit code ${result.exitCode}: killed for running out of memory (the sandbox allows ${options.memoryMb} MB). Use less memory, e.g. process the data in chunks.`;
  } else if (result.exitCode === 137) {
    status = 'exit code 137: killed (SIGKILL).';
  } else {
    status = `exit code ${result.exitCode}`;
  }
  const stderrShare = Math.min(result.stderr.total, Math.max(Math.floor(options.budget / 3), options.budget - result.stdout.total));
  const stdoutShare = Math.max(0, options.budget - stderrShare);
  const output = `${status}\n${section('stdout', result.stdout, stdoutShare)}\n${section('stderr', result.stderr, stderrShare)}`;
  return result.exitCode === 0 && !result.timedOut && !result.cancelled ? ok(output) : fail(output);
}

function section(name: string, buffer: SandboxStream, share: number): string {
  if (buffer.total === 0) return `--- ${name}: (empty) ---`;
  const text = buffer.text();
  const shown = text.length > share ? text.slice(0, share) : text;
  const notShown = buffer.total - Buffer.byteLength(shown);
  const note = notShown > 0 ? `\n…[${name} truncated: ${notShown} of ${buffer.total} bytes not shown; write the output to a file and read parts of it]` : '';
  return `--- ${name} (${buffer.total} bytes) ---\n${shown}${note}`;
}

function tail(buffer: SandboxStream, chars: number): string {
  const text = buffer.text().trimEnd();
  return text.length > chars ? `…${text.slice(text.length - chars)}` : text;
}

export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** Size, mtime and inode of every non-folder entry, read through pinned folders (the agent's container may be hostile). */
async function snapshot(workspaces: Workspaces, workspaceId: string): Promise<Map<string, string>> {
  const opened = await workspaces.open(workspaceId, { create: true });
  if (!opened.success) throw new Error(opened.error);
  const files = opened.value;
  try {
    const { entries } = await files.withFolder([], (dir) => walk(dir));
    return new Map(entries.filter((entry) => entry.kind !== 'dir').map((entry) => [entry.relative, `${entry.size}:${entry.mtimeMs}:${entry.ino}`]));
  } finally {
    await files.close();
  }
}

function diffSnapshots(before: Map<string, string>, after: Map<string, string>): string[] {
  const changes: string[] = [];
  for (const [file, signature] of after) {
    const previous = before.get(file);
    if (previous === undefined) changes.push(`created  ${file}`);
    else if (previous !== signature) changes.push(`modified ${file}`);
  }
  for (const file of before.keys()) if (!after.has(file)) changes.push(`deleted  ${file}`);
  return changes.sort((a, b) => a.slice(9).localeCompare(b.slice(9)));
}
