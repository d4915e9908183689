import { createInterface, type Interface } from 'node:readline/promises';
import type { Spinner } from 'yocto-spinner';
import { createTerminalPrompter } from '../approval/terminal.js';
import { formatProgress } from '../channels/progress.js';
import { errorMessage } from '../errors.js';
import type { Daemon } from '../daemon.js';
import type { Command } from './context.js';

const ORIGIN = { channel: 'cli', chatId: 'terminal', userId: 'owner' };
const CHAT_HELP = 'Commands: /reset (new conversation), /undo (last memory change), /usage, /exit. Anything else goes to the assistant.\n';

type Question = { text: string; externalSources?: readonly string[]; images?: ReadonlyArray<{ mimeType: string; data: Buffer }> };

interface ChatSession {
  app: Daemon;
  stdout: NodeJS.WritableStream;
  spinner: Spinner | undefined;
  approve: ReturnType<Daemon['approvals']['handlerFor']>;
  /** The turn running now: Ctrl-C stops it. */
  running: AbortController | undefined;
}

/** `familiar chat`: an interactive conversation in the terminal; history is kept across sessions. */
export const chatCommand: Command = async (context) => {
  const app = await context.daemon('command');
  const { stdout } = context.io;
  const rl = createInterface({ input: context.io.stdin, output: stdout, terminal: process.stdin.isTTY === true && context.io.stdin === process.stdin });
  // Lines are read through the iterator, made at once, which queues them: input piped in (even before the app is
  // ready), or typed while a turn runs, is not lost (rl.question drops lines that arrive while nobody asks). An
  // approval question still takes the next line as its answer, ahead of the queue.
  const lines = rl[Symbol.asyncIterator]();
  const session = await startSession(app, rl, stdout);
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
      if (line === '/exit' || line === '/quit') break;
      if (line !== '') await answerLine(session, line);
    }
  } finally {
    rl.close();
    await app.close(2000);
  }
  return 0;
};

/** Ctrl-C, the spinner and approvals on the terminal. */
async function startSession(app: Daemon, rl: Interface, stdout: NodeJS.WritableStream): Promise<ChatSession> {
  // While the model thinks, a spinner on a terminal (nothing when the output is piped). Its own signal handlers stay
  // off: Ctrl-C stops the turn (readline's SIGINT below), not the process.
  const spinner = (stdout as NodeJS.WriteStream).isTTY === true
    ? (await import('yocto-spinner')).default({ text: 'thinking…', stream: stdout as NodeJS.WriteStream, handleSignals: false })
    : undefined;
  const session: Omit<ChatSession, 'approve'> = { app, stdout, spinner, running: undefined };
  rl.on('SIGINT', () => {
    if (session.running) session.running.abort(new DOMException('stopped by the person', 'AbortError'));
    else rl.close();
  });
  // High-risk tool calls ask y/N on this same readline (Ctrl-C during the question counts as no); the spinner gives
  // way to the question and comes back after the answer.
  const terminalPrompter = createTerminalPrompter(rl, stdout, () => session.running?.signal);
  const approve = app.approvals.handlerFor({
    ...terminalPrompter,
    ask: async (prompt) => {
      spinner?.stop();
      const answer = await terminalPrompter.ask(prompt);
      if (session.running) spinner?.start('thinking…');
      return answer;
    },
  });
  return Object.assign(session, { approve });
}

/** One line typed: the terminal's own commands, a chat command, or a question for the assistant. */
async function answerLine(session: ChatSession, line: string): Promise<void> {
  const { app, stdout } = session;
  if (line === '/help') {
    // The chat commands every channel answers (/task, /tasks, /save, …, MCP prompts as they come and go), then the
    // terminal's own.
    const commands = [...app.commands.entries()].filter(([name]) => name !== 'help' && name !== 'reset');
    stdout.write(`${commands.map(([name, entry]) => `/${name} — ${entry.description}`).join('\n')}\n${CHAT_HELP}`);
    return;
  }
  if (line === '/reset') {
    app.conversations.reset(ORIGIN.channel, ORIGIN.chatId);
    stdout.write('Started a new conversation (the old one is kept in the database).\n');
    return;
  }
  const command = /^\/([a-zA-Z0-9_]+)(?:\s+(.*))?$/s.exec(line);
  const handler = command?.[1] !== undefined ? app.commands.get(command[1].toLowerCase()) : undefined;
  if (!handler) return ask(session, { text: line });
  const conversationId = app.conversations.resolve(ORIGIN.channel, ORIGIN.chatId);
  const reply = await handler.run({ ...ORIGIN, args: (command?.[2] ?? '').trim(), conversationId }).catch((error: unknown) => `/${command?.[1] ?? ''} failed: ${errorMessage(error)}`);
  if (typeof reply === 'string') {
    stdout.write(`${reply}\n`);
    return;
  }
  // The command starts a turn (an MCP prompt): its text goes to the assistant as the question.
  return ask(session, reply.turn);
}

/** A turn, its tool calls and progress shown as they happen, then its answer and artifacts. */
async function ask(session: ChatSession, question: Question): Promise<void> {
  const { app, stdout, spinner } = session;
  const running = new AbortController();
  session.running = running;
  spinner?.start('thinking…');
  const result = await app.turns.start({
    text: question.text, origin: ORIGIN, source: 'cli', signal: running.signal, approve: session.approve,
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
  session.running = undefined;
  stdout.write(`familiar> ${result.text}\n`);
  for (const artifact of result.artifacts) stdout.write(`  [artifact: ${artifact.type} ${artifact.name}]\n`);
}
