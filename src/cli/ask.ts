import { formatProgress } from '../channels/progress.js';
import { parseCommandArgs } from './args.js';
import { optionsOf } from './spec.js';
import type { Command } from './context.js';

/** `familiar ask "text"`: one turn, the reply on stdout; non-zero exit when the turn failed. */
export const askCommand: Command = async (context) => {
  const { positionals, values } = parseCommandArgs(context.args, optionsOf('ask'));
  const text = positionals.join(' ').trim();
  if (text === '') {
    context.io.stderr.write('usage: familiar ask [--conversation NAME] [--new] "your question"\n');
    return 2;
  }
  const app = await context.daemon('command');
  try {
    const chatId = typeof values.conversation === 'string' ? values.conversation : 'ask';
    if (values.new === true) app.conversations.reset('cli', chatId);
    // Modules are not started for one turn, but configured MCP tools should be there (each bounded by its timeout_s).
    await app.mcp?.connectNow();
    const result = await app.turns.start({
      text, origin: { channel: 'cli', chatId, userId: 'owner' }, source: 'cli',
      // Progress of a long call goes to stderr; stdout keeps only the answer.
      onEvent: (event) => {
        if (event.type === 'progress') context.io.stderr.write(`${formatProgress(event)}\n`);
      },
    });
    const stream = result.status === 'ok' ? context.io.stdout : context.io.stderr;
    stream.write(`${result.text}\n`);
    for (const artifact of result.artifacts) context.io.stderr.write(`[artifact: ${artifact.type} ${artifact.name}]\n`);
    return result.status === 'ok' ? 0 : 1;
  } finally {
    await app.close(1000);
  }
};
