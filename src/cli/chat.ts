import { createInterface } from 'node:readline/promises';
import { createTerminalPrompter } from '../approval/terminal.js';
import { formatProgress } from '../channels/progress.js';
import { errorMessage } from '../errors.js';
import type { Command } from './context.js';

const CHAT_HELP = 'Commands: /reset (new conversation), /undo (last memory change), /usage, /exit. Anything else goes to the assistant.\n';

/** `familiar chat`: an interactive conversation in the terminal; history is kept across sessions. */
export const chatCommand: Command = async (context) => {
  const app = await context.daemon('command');
  const { stdout } = context.io;
  const rl = createInterface({ input: context.io.stdin, output: stdout, terminal: process.stdin.isTTY === true && context.io.stdin === process.stdin });
  // Lines are read through the iterator, made at once, which queues them: input piped in (even before the app is
  // ready), or typed while a turn runs, is not lost (rl.question drops lines that arrive while nobody asks). An
  // approval question still takes the next line as its answer, ahead of the queue.
  const lines = rl[Symbol.asyncIterator]();
  const origin = { channel: 'cli', chatId: 'terminal', userId: 'owner' };
  let running: AbortController | undefined;
  rl.on('SIGINT', () => {
    if (running) running.abort(new DOMException('stopped by the person', 'AbortError'));
    else rl.close();
  });
  // While the model thinks, a spinner on a terminal (nothing when the output is piped). Its own signal handlers stay
  // off: Ctrl-C stops the turn (readline's SIGINT above), not the process.
  const spinner = (stdout as NodeJS.WriteStream).isTTY === true
    ? (await import('yocto-spinner')).default({ text: 'thinking…', stream: stdout as NodeJS.WriteStream, handleSignals: false })
    : undefined;
  // High-risk tool calls ask y/N on this same readline (Ctrl-C during the question counts as no); the spinner gives
  // way to the question and comes back after the answer.
  const terminalPrompter = createTerminalPrompter(rl, stdout, () => running?.signal);
  const approve = app.approvals.handlerFor({
    ...terminalPrompter,
    ask: async (prompt) => {
      spinner?.stop();
      const answer = await terminalPrompter.ask(prompt);
      if (running) spinner?.start('thinking…');
      return answer;
    },
  });
  // MCP tools are offered from the first message; a server that failed keeps being retried in the background.
  await app.mcp?.connectNow();
  app.mcp?.start();
  stdout.write(`Familiar (${app.config.llm.model}). ${CHAT_HELP}`);
  rl.setPrompt('you> ');
  try {
    for (;;) {
      rl.prompt();
      const next = await lines.next();
      if (next.done) break; // input closed (end of input, Ctrl-C between turns)
      const line = String(next.value).trim();
      if (line === '') continue;
      if (line === '/exit' || line === '/quit') break;
      if (line === '/help') {
        // The chat commands every channel answers (/task, /tasks, /save, …, MCP prompts as they come and go), then the
        // terminal's own.
        const commands = [...app.commands.entries()].filter(([name]) => name !== 'help' && name !== 'reset');
        stdout.write(`${commands.map(([name, entry]) => `/${name} — ${entry.description}`).join('\n')}\n${CHAT_HELP}`);
        continue;
      }
      if (line === '/reset') {
        app.conversations.reset(origin.channel, origin.chatId);
        stdout.write('Started a new conversation (the old one is kept in the database).\n');
        continue;
      }
      const command = /^\/([a-zA-Z0-9_]+)(?:\s+(.*))?$/s.exec(line);
      const handler = command?.[1] !== undefined ? app.commands.get(command[1].toLowerCase()) : undefined;
      let question: { text: string; externalSources?: readonly string[]; images?: ReadonlyArray<{ mimeType: string; data: Buffer }> } = { text: line };
      if (handler) {
        const conversationId = app.conversations.resolve(origin.channel, origin.chatId);
        const reply = await handler.run({ ...origin, args: (command?.[2] ?? '').trim(), conversationId }).catch((error: unknown) => `/${command?.[1] ?? ''} failed: ${errorMessage(error)}`);
        if (typeof reply === 'string') {
          stdout.write(`${reply}\n`);
          continue;
        }
        // The command starts a turn (an MCP prompt): its text goes to the assistant as the question.
        question = reply.turn;
      }
      running = new AbortController();
      spinner?.start('thinking…');
      const result = await app.turns.start({
        text: question.text, origin, source: 'cli', signal: running.signal, approve,
        ...(question.externalSources ? { taint: question.externalSources } : {}),
        ...(question.images && app.config.llm.vision ? { images: question.images } : {}),
        onEvent: (event) => {
          // The spinner clears itself around these lines and goes on below them.
          if (event.type === 'tool_start') {
            stdout.write(`  · ${event.tool}\n`);
            if (spinner) spinner.text = `${event.tool}…`;
          } else if (event.type === 'progress') stdout.write(`  ${formatProgress(event)}\n`);
        },
      }).finally(() => spinner?.stop());
      running = undefined;
      stdout.write(`familiar> ${result.text}\n`);
      for (const artifact of result.artifacts) stdout.write(`  [artifact: ${artifact.type} ${artifact.name}]\n`);
    }
  } finally {
    rl.close();
    await app.close(2000);
  }
  return 0;
};
