import { agentProfile } from '../agent/profiles.js';
import { parseCommandArgs } from './args.js';
import { optionsOf } from './spec.js';
import type { Command } from './context.js';

/**
 * `familiar tools list [--json] [--agent NAME]`: every registered tool with its schema (only the agent's with --agent).
 * Configured MCP servers are connected for the listing (each bounded by its timeout_s) and closed again.
 */
export const toolsCommand: Command = async (context) => {
  const { positionals, values } = parseCommandArgs(context.args, optionsOf('tools'));
  if (positionals[0] !== 'list') {
    context.io.stderr.write('usage: familiar tools list [--json] [--agent NAME]\n');
    return 2;
  }
  const app = await context.daemon('command');
  try {
    const profile = typeof values.agent === 'string' ? agentProfile(app.config, values.agent) : undefined;
    if (typeof values.agent === 'string' && !profile) {
      const known = Object.keys(app.config.agents);
      context.io.stderr.write(`familiar: no agent named "${values.agent}" (declared in agents: ${known.length > 0 ? known.join(', ') : 'none'})\n`);
      return 2;
    }
    if (app.mcp) {
      await app.mcp.connectNow();
      for (const server of app.mcp.status()) {
        if (server.state !== 'connected') context.io.stderr.write(`mcp server ${server.name}: not reachable (${server.error ?? server.state}); its tools are not listed\n`);
      }
    }
    const entries = app.tools.list(profile?.policy);
    if (context.options.json) {
      const out = entries.map((entry) => ({
        name: entry.name,
        function_name: entry.functionName,
        aliases: entry.aliases,
        group: entry.group,
        risk: typeof entry.tool.risk === 'function' ? 'per-call' : (entry.tool.risk ?? 'low'),
        external: entry.tool.external === true,
        description: entry.tool.description,
        parameters: entry.tool.parameters,
      }));
      context.io.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
    } else {
      for (const entry of entries) {
        const risk = typeof entry.tool.risk === 'function' ? 'risk per call' : `${entry.tool.risk ?? 'low'} risk`;
        const alias = entry.functionName !== entry.name ? ` (as ${entry.functionName})` : '';
        context.io.stdout.write(`${entry.name}${alias} — ${risk}\n  ${entry.tool.description}\n  parameters: ${JSON.stringify(entry.tool.parameters)}\n`);
      }
    }
    return 0;
  } finally {
    await app.close(0);
  }
};
