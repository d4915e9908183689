import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline/promises';
import { agentProfile } from '../agent/profiles.js';
import type { ApprovalPrompter } from '../approval/prompter.js';
import { createTerminalPrompter } from '../approval/terminal.js';
import { nearestKey } from '../config/suggest.js';
import type { RegisteredTool } from '../tools/call.js';
import { neededPermissions } from '../tools/permissions.js';
import type { ApprovalHandler } from '../tools/call.js';
import { parseCommandArgs } from './args.js';
import { optionsOf } from './spec.js';
import type { Command, CommandContext } from './context.js';

const USAGE = `usage: familiar tools list [--json] [--agent NAME [--all]] [--builtins]
       familiar tools new NAME [--script]
       familiar tools test NAME ['{"argument": …}'] [--yes]
`;

/**
 * `familiar tools list|new|test`: the registered tools; a new tool of your own from a template; one call of a tool
 * outside a chat, through the registry (validation, approval, deadline, redaction, audit as in a chat).
 */
export const toolsCommand: Command = async (context) => {
  let parsed;
  try {
    parsed = parseCommandArgs(context.args, optionsOf('tools'));
  } catch (error) {
    context.io.stderr.write(`familiar: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  const { positionals, values } = parsed;
  const [action, name, argumentsText, ...rest] = positionals;
  if (action === 'list' && values.builtins === true) return listBuiltins(context);
  if (action === 'list') return listTools(context, typeof values.agent === 'string' ? values.agent : undefined, values.all === true);
  if (action === 'new' && name !== undefined && argumentsText === undefined) return newTool(context, name, values.script === true);
  if (action === 'test' && name !== undefined && rest.length === 0) return testTool(context, name, argumentsText ?? '{}', values.yes === true);
  context.io.stderr.write(USAGE);
  return 2;
};

async function listTools(context: CommandContext, agent: string | undefined, all: boolean): Promise<number> {
  const app = await context.daemon('command');
  try {
    const profile = agent !== undefined ? agentProfile(app.config, agent) : undefined;
    if (agent !== undefined && !profile) {
      const known = Object.keys(app.config.agents);
      context.io.stderr.write(`familiar: no agent named "${agent}" (declared in agents: ${known.length > 0 ? known.join(', ') : 'none'})\n`);
      return 2;
    }
    if (app.mcp) {
      await app.mcp.connectNow();
      for (const server of app.mcp.status()) {
        if (server.state !== 'connected') context.io.stderr.write(`mcp server ${server.name}: not reachable (${server.error ?? server.state}); its tools are not listed\n`);
      }
    }
    for (const problem of app.customTools.report().problems) context.io.stderr.write(`custom tool ${problem.name}: ${problem.error}\n`);
    const custom = new Map(app.customTools.report().files.flatMap((file) => file.tools.map((tool) => [tool, file] as const)));
    const entries = app.tools.list(profile?.tools);
    const left = profile ? app.tools.list().filter((entry) => !profile.tools.allows(entry)) : [];
    const why = (entry: RegisteredTool): string => profile?.tools.why?.(entry) ?? `left out by ${profile?.tools.description ?? 'the agent'}`;
    if (context.options.json) {
      const row = (entry: RegisteredTool) => ({
        name: entry.name,
        function_name: entry.functionName,
        aliases: entry.aliases,
        group: entry.group,
        permissions: neededPermissions(entry),
        risk: typeof entry.tool.risk === 'function' ? 'per-call' : (entry.tool.risk ?? 'low'),
        external: entry.tool.external === true,
        ...(custom.has(entry.name) ? { custom: { file: custom.get(entry.name)?.file, sha256: custom.get(entry.name)?.sha256 } } : {}),
        description: entry.tool.description,
        parameters: entry.tool.parameters,
      });
      const out = [
        ...entries.map((entry) => ({ ...row(entry), ...(profile ? { offered: true } : {}) })),
        ...(all ? left.map((entry) => ({ ...row(entry), offered: false, why: why(entry) })) : []),
      ];
      context.io.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
    } else {
      if (profile) context.io.stdout.write(`Agent "${profile.name}" is offered the tools its list allows (${profile.tools.description}):\n\n`);
      for (const entry of entries) {
        const risk = typeof entry.tool.risk === 'function' ? 'risk per call' : `${entry.tool.risk ?? 'low'} risk`;
        const alias = entry.functionName !== entry.name ? ` (as ${entry.functionName})` : '';
        const file = custom.get(entry.name);
        const origin = file ? ` — yours: ${file.name}` : '';
        context.io.stdout.write(`${entry.name}${alias} — ${risk}${origin}\n  ${entry.tool.description}\n  permissions: ${neededPermissions(entry).join(', ')}\n  parameters: ${JSON.stringify(entry.tool.parameters)}\n`);
      }
      if (profile && left.length > 0) {
        context.io.stdout.write(`\nNot offered to agent "${profile.name}":\n`);
        for (const entry of left) context.io.stdout.write(`${entry.name} — ${why(entry)}\n`);
      }
    }
    return 0;
  } finally {
    await app.close(0);
  }
}

/** The built-in tools by name, from the catalogue: nothing is built, nothing connects, no database is opened. */
async function listBuiltins(context: CommandContext): Promise<number> {
  const { config } = context.loadConfig();
  const { BUILTIN_TOOLS, enabledBuiltins } = await import('../tools/builtins.js');
  const enabled = enabledBuiltins(config);
  const rows = BUILTIN_TOOLS.map((tool) => {
    const on = enabled.allows({ name: tool.name, group: tool.group, aliases: [] });
    const off = tool.off?.(config);
    return { name: tool.name, group: tool.group, part: tool.part, settings: tool.settings, permissions: tool.permissions, enabled: on, available: off === undefined, ...(off ? { off } : {}), summary: tool.summary };
  });
  if (context.options.json) {
    const schemas = builtinSchemas();
    const withSchemas = rows.map((row) => ({ ...row, ...(schemas.has(row.name) ? { schema: schemas.get(row.name) } : {}) }));
    context.io.stdout.write(`${JSON.stringify(withSchemas, null, 2)}\n`);
    return 0;
  }
  const width = Math.max(...rows.map((row) => row.name.length));
  for (const row of rows) {
    const state = !row.enabled ? 'left out by tools.enabled' : row.off ? `off: ${row.off}` : 'on';
    context.io.stdout.write(`${row.name.padEnd(width)}  ${row.summary} [${row.part}, from ${row.settings}; needs ${row.permissions.join(', ')}] — ${state}\n`);
  }
  context.io.stdout.write(`\n${config.tools.enabled === undefined ? 'tools.enabled is not set: every built-in tool whose settings are there exists.' : `tools.enabled: ${config.tools.enabled.join(', ')}`}\n`);
  return 0;
}

/**
 * Each built-in's schema as the model sees it (seed 004's SchemaForBuiltin), from assets/builtin-tools.json: written
 * from a daemon with every part on and checked against one by test/tools/builtins.test.ts, so nothing is built here.
 */
function builtinSchemas(): Map<string, { name: string; description: string; parameters: Record<string, unknown> }> {
  const text = readFileSync(new URL('../../assets/builtin-tools.json', import.meta.url), 'utf8');
  const list = JSON.parse(text) as Array<{ name: string; description: string; parameters: Record<string, unknown> }>;
  return new Map(list.map((schema) => [schema.name, schema]));
}

async function newTool(context: CommandContext, name: string, script: boolean): Promise<number> {
  const { config } = context.loadConfig();
  const { scaffoldTool } = await import('../custom-tools/scaffold.js');
  const made = scaffoldTool(config.tools_dir, name, script ? 'script' : 'module');
  if (!made.success) {
    context.io.stderr.write(`familiar: ${made.error}\n`);
    return 2;
  }
  const out = context.io.stdout;
  out.write(`Wrote ${made.value.files.join(', ')}\n`);
  if (made.value.link) out.write(`Linked ${made.value.link} to this Familiar, for the test and your editor's types.\n`);
  out.write(`Try it:   familiar tools test ${name} '${script ? '{"text": "one two three"}' : '{"text": "hello"}'}'\n`);
  out.write(`Its test: (cd ${config.tools_dir} && node --test ${name}.test.mjs)\n`);
  if (script && !config.tools.sandbox && !(Object.hasOwn(config.tools.scripts, name) && config.tools.scripts[name]?.host === true)) {
    out.write(`Note: script tools run in the sandbox, and tools.sandbox is not configured. Configure it, or let this one run on the host (with the daemon's rights) with tools.scripts.${name}.host: true in config.yaml.\n`);
  }
  out.write('A running daemon picks the new tool up by itself. Tool modules run inside the daemon with its full rights.\n');
  return 0;
}

async function testTool(context: CommandContext, name: string, argumentsText: string, yes: boolean): Promise<number> {
  const app = await context.daemon('command');
  try {
    await app.mcp?.connectNow();
    const entry = app.tools.get(name);
    if (!entry) {
      const report = app.customTools.report();
      const broken = report.problems.find((problem) => problem.name.replace(/\.[^.]+$/, '') === name);
      if (broken) context.io.stderr.write(`familiar: ${broken.name} did not load: ${broken.error}\n`);
      else {
        const near = nearestKey(name, app.tools.list().map((tool) => tool.name));
        context.io.stderr.write(`familiar: no tool named "${name}"${near ? `; did you mean "${near}"?` : ''} (familiar tools list shows them; yours are in ${report.dir})\n`);
        for (const problem of report.problems) context.io.stderr.write(`  ${problem.name} did not load: ${problem.error}\n`);
      }
      return 2;
    }
    const origin = { channel: 'cli', chatId: 'tools-test', userId: 'owner' };
    const conversationId = app.conversations.resolve(origin.channel, origin.chatId);
    const { approve, close } = approvalFor(context, yes, (prompter) => app.approvals.handlerFor(prompter));
    try {
      const outcome = await app.tools.execute({
        name, arguments: argumentsText, conversationId, turnId: `tools-test-${randomBytes(4).toString('hex')}`, origin,
        ...(approve ? { approve } : {}),
      });
      const { result } = outcome;
      if (context.options.json) {
        context.io.stdout.write(`${JSON.stringify({ tool: outcome.tool, callId: outcome.callId, success: result.success, output: result.output, durationMs: Math.round(outcome.durationMs), decision: outcome.decision ?? null, artifacts: (result.artifacts ?? []).map((artifact) => ({ type: artifact.type, name: artifact.name })) }, null, 2)}\n`);
      } else {
        (result.success ? context.io.stdout : context.io.stderr).write(`${result.output}\n`);
        for (const artifact of result.artifacts ?? []) context.io.stderr.write(`[artifact: ${artifact.type} ${artifact.name}]\n`);
        const approval = outcome.decision ? `; ${outcome.decision}` : '';
        context.io.stderr.write(`(${result.success ? 'ok' : 'failed'} in ${Math.round(outcome.durationMs)} ms${approval}; audited as call ${outcome.callId}: familiar audit --tool ${entry.name})\n`);
        if (!result.success && outcome.decision?.startsWith('denied') && !yes) context.io.stderr.write('(a high-risk tool: --yes approves this one call)\n');
      }
      return result.success ? 0 : 1;
    } finally {
      close();
    }
  } finally {
    await app.close(0);
  }
}

/** `--yes` approves this call; on a terminal the person is asked (y/N); otherwise nobody can approve it (denied). */
function approvalFor(context: CommandContext, yes: boolean, handlerFor: (prompter: ApprovalPrompter) => ApprovalHandler): { approve: ApprovalHandler | undefined; close(): void } {
  if (yes) return { approve: async () => ({ approved: true, by: 'familiar tools test --yes' }), close: () => undefined };
  const stdin = context.io.stdin as NodeJS.ReadableStream & { isTTY?: boolean };
  if (stdin.isTTY !== true) return { approve: undefined, close: () => undefined };
  const rl = createInterface({ input: stdin, output: context.io.stdout, terminal: true });
  return { approve: handlerFor(createTerminalPrompter(rl, context.io.stdout)), close: () => rl.close() };
}
