import { parseCommandArgs } from './run.js';
import type { Command } from './context.js';

/** `familiar tools list [--json]`: every registered tool with its schema. */
export const toolsCommand: Command = async (context) => {
  const { positionals } = parseCommandArgs(context.args, {});
  if (positionals[0] !== 'list') {
    context.io.stderr.write('usage: familiar tools list [--json]\n');
    return 2;
  }
  const app = await context.createApp('quiet');
  try {
    const entries = app.tools.list();
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
