import { createInterface, type Interface } from 'node:readline/promises';
import { createTerminalPrompter } from '../approval/terminal.js';
import type { ApprovalPrompter } from '../approval/prompter.js';
import { formatProgress } from '../channels/progress.js';
import { parseCommandArgs } from './args.js';
import { optionsOf } from './spec.js';
import type { Command, CommandContext } from './context.js';

/** `familiar ask "text"`: one turn, the reply on stdout; non-zero exit when the turn failed. */
export const askCommand: Command = async (context) => {
  const { positionals, values } = parseCommandArgs(context.args, optionsOf('ask'));
  const text = positionals.join(' ').trim();
  if (text === '') {
    context.io.stderr.write('usage: familiar ask [--conversation NAME] [--new] "your question"\n');
    return 2;
  }
  const app = await context.daemon('command');
  const running = new AbortController();
  const terminal = onTerminal(context.io) ? terminalQuestions(running) : undefined;
  try {
    const chatId = typeof values.conversation === 'string' ? values.conversation : 'ask';
    if (values.new === true) app.conversations.reset('cli', chatId);
    // Modules are not started for one turn, but configured MCP tools should be there (each bounded by its timeout_s).
    await app.mcp?.connectNow();
    const result = await app.turns.start({
      text, origin: { channel: 'cli', chatId, userId: 'owner' }, source: 'cli', signal: running.signal,
      ...(terminal ? { approve: app.approvals.handlerFor(terminal.prompter) } : {}),
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
    terminal?.close();
    await app.close(1000);
  }
};

/** A person at a terminal can answer; piped or redirected, nobody can, and the gate refuses with the reason. */
function onTerminal(io: CommandContext['io']): boolean {
  return io.stdin === process.stdin && io.stdout === process.stdout && process.stdin.isTTY === true && process.stdout.isTTY === true;
}

/**
 * Asks y/N on the terminal, as `familiar chat` does. The terminal is taken (raw mode) only once a question comes, so
 * until then Ctrl-C ends the command as always; afterwards Ctrl-C stops the turn, and during a question it is a no.
 */
function terminalQuestions(running: AbortController): { prompter: ApprovalPrompter; close(): void } {
  let rl: Interface | undefined;
  let prompter: ApprovalPrompter | undefined;
  return {
    prompter: {
      ask(prompt) {
        if (!rl || !prompter) {
          rl = createInterface({ input: process.stdin, output: process.stdout, terminal: true });
          rl.on('SIGINT', () => running.abort(new DOMException('stopped by the person', 'AbortError')));
          prompter = createTerminalPrompter(rl, process.stdout, () => running.signal);
        }
        return prompter.ask(prompt);
      },
    },
    close: () => rl?.close(),
  };
}
