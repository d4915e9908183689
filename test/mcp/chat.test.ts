// MCP prompts and progress in the chats: Telegram and Discord (real grammy and discord.js against the fakes) and
// `familiar chat`, with server-everything spawned over stdio.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { startOpenAiServer } from '../fakes/openai-server.js';
import { writeTestConfig, tempDir } from '../helpers/app.js';
import { captureIo, scriptedTerminal } from '../helpers/io.js';
import { OWNER_DC, OWNER_TG, startChannelRig, userTexts, type ChannelRig } from '../helpers/channels.js';
import { EVERYTHING, until } from '../helpers/mcp.js';

const LONG_CALL = 'mcp__everything__trigger-long-running-operation';

// Generous limits: these spawn a server and run multi-second calls, on machines that may be busy.
describe('MCP prompts and progress on Telegram and Discord', { timeout: 90_000 }, () => {
  let rig: ChannelRig;

  beforeAll(async () => {
    rig = await startChannelRig({
      // Each call may go 3 s without a report: the 5 s operations below live on their progress.
      overrides: { tools: { mcp: { servers: { everything: { ...EVERYTHING, trust: 'low', timeout_s: 3, max_timeout_s: 60 } } } } },
    });
    await until(() => rig.app.commands.has('everything_args_prompt'), 'the prompts to appear', 60_000);
  });

  afterAll(async () => {
    await rig.close();
  });

  it('starts a turn with a prompt sent as a command on Telegram, arguments as declared', async () => {
    rig.llm.script({ content: 'Sunny in Paris.' });
    rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, text: '/everything_args_prompt city=Paris' });
    const reply = await rig.telegram.waitFor(() => rig.telegram.messagesTo(OWNER_TG).find((message) => message.text === 'Sunny in Paris.'));
    expect(reply).toBeDefined();
    expect(userTexts(rig.llm).at(-1)).toBe("What's weather in Paris?");
  });

  it('answers a prompt command without its required argument with the usage line, and no turn', async () => {
    const before = rig.llm.requests.length;
    rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, text: '/everything_args_prompt' });
    const reply = await rig.telegram.waitFor(() => rig.telegram.messagesTo(OWNER_TG).find((message) => message.text?.startsWith('Missing city.')));
    expect(reply.text).toContain('Usage: /everything_args_prompt city=… [state=…]');
    expect(rig.llm.requests.length).toBe(before);
  });

  it('lists the prompts in /help and /prompts', async () => {
    rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, text: '/help' });
    const help = await rig.telegram.waitFor(() => rig.telegram.messagesTo(OWNER_TG).find((message) => message.text?.includes('Commands:')));
    expect(help.text).toMatch(/\/everything_simple_prompt — A prompt with no arguments \(MCP everything prompt\)/);
    expect(help.text).toMatch(/\/prompts — /);
    rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, text: '/prompts' });
    const prompts = await rig.telegram.waitFor(() => rig.telegram.messagesTo(OWNER_TG).find((message) => message.text?.startsWith('Prompts of the MCP servers')));
    expect(prompts.text).toContain('/everything_resource_prompt resourceType=… resourceId=…');
    // The bot's command menu was set before the server connected; a message since has brought it up to date.
    await rig.telegram.waitFor(() => rig.telegram.commands.find((command) => command.command === 'everything_args_prompt'));
    expect(rig.telegram.commands.map((command) => command.command)).toEqual(expect.arrayContaining(['help', 'prompts', 'everything_simple_prompt']));
  });

  it('shows a long call\'s progress as one Telegram message, edited, not one per report', async () => {
    // A new conversation: the prompts above left outside content in this one, and in a conversation that holds
    // outside content every MCP call asks the person first (issue 14's provenance policy), which is not this test.
    rig.app.conversations.reset('telegram', String(OWNER_TG));
    rig.llm.script({ toolCalls: [{ name: LONG_CALL, arguments: { duration: 5, steps: 10 } }] }, { content: 'The operation finished.' });
    const before = rig.telegram.messagesTo(OWNER_TG).length;
    rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, text: 'run the long operation' });
    await rig.telegram.waitFor(() => rig.telegram.messagesTo(OWNER_TG).find((message) => message.text === 'The operation finished.'), 20_000);
    const progress = rig.telegram.messagesTo(OWNER_TG).slice(before).filter((message) => message.text?.startsWith('⏳'));
    expect(progress).toHaveLength(1);
    const shown = [...progress[0]!.edits, progress[0]!.text ?? ''];
    expect(shown[0]).toMatch(/^⏳ mcp:everything:trigger-long-running-operation — 1\/10 \(10%\)$/);
    // Ten reports over 5 s, edited at most every 3 s: the first, then at most two edits.
    expect(shown.length).toBeLessThanOrEqual(3);
    expect(progress[0]!.parse_mode).toBeUndefined();
    // The call outlived its 3 s timeout on its progress reports.
    const toolMessage = rig.llm.requests.at(-1)?.body.messages.find((message) => message.role === 'tool');
    expect(String(toolMessage?.content)).toContain('Long running operation completed');
  });

  it('starts a prompt on Discord and shows progress there as one edited message', async () => {
    rig.llm.script({ content: 'Simple answered.' });
    const { channelId } = rig.discord.sendUserMessage({ userId: OWNER_DC, username: 'owner', content: '/everything_simple_prompt', dm: true });
    await rig.discord.waitFor(() => rig.discord.messagesIn(channelId).find((message) => message.content === 'Simple answered.'));
    expect(userTexts(rig.llm).at(-1)).toBe('This is a simple prompt without arguments.');

    // The prompt's turn left this conversation tainted, where an MCP call would be asked about: start a new one.
    rig.app.conversations.reset('discord', channelId);
    rig.llm.script({ toolCalls: [{ name: LONG_CALL, arguments: { duration: 4, steps: 8 } }] }, { content: 'Long one done.' });
    const before = rig.discord.messagesIn(channelId).length;
    rig.discord.sendUserMessage({ userId: OWNER_DC, username: 'owner', content: 'go long', dm: true });
    await rig.discord.waitFor(() => rig.discord.messagesIn(channelId).find((message) => message.content === 'Long one done.'), 20_000);
    const progress = rig.discord.messagesIn(channelId).slice(before).filter((message) => message.content.startsWith('⏳'));
    expect(progress).toHaveLength(1);
    expect(progress[0]!.edits.length).toBeLessThanOrEqual(2);
  });
});

describe('MCP prompts and progress in familiar chat', { timeout: 90_000 }, () => {
  it('lists prompts in /help, runs a prompt command as the question and prints each progress report', async () => {
    const fake = await startOpenAiServer();
    try {
      const configPath = writeTestConfig(tempDir(), fake, {
        llm: { api_key: fake.apiKey },
        tools: { mcp: { servers: { everything: { ...EVERYTHING, trust: 'low' } } } },
      });
      fake.script(
        { content: 'Weather noted.' },
        { toolCalls: [{ name: LONG_CALL, arguments: { duration: 1, steps: 2 } }] },
        { content: 'Done long.' },
      );
      const terminal = scriptedTerminal();
      // Lines are queued by the chat's reader: the turns run one after the other.
      // /reset: in the conversation the prompt tainted, the MCP call would be asked about first.
      terminal.io.stdin.end('/help\n/everything_args_prompt "Rio de Janeiro"\n/reset\nrun it\n');
      const code = await runCli(['chat', '--config', configPath, '--log-level', 'silent'], terminal.io);
      const out = terminal.out();
      expect(code).toBe(0);
      expect(out).toMatch(/\/everything_args_prompt — A prompt with two arguments/);
      expect(userTexts(fake)[0]).toBe("What's weather in Rio de Janeiro?");
      expect(out).toContain('familiar> Weather noted.');
      expect(out).toMatch(/⏳ mcp:everything:trigger-long-running-operation — 1\/2 \(50%\)/);
      expect(out).toContain('familiar> Done long.');
    } finally {
      await fake.close();
    }
  });

  it('prints progress of familiar ask on stderr, leaving stdout to the answer', async () => {
    const fake = await startOpenAiServer();
    try {
      const configPath = writeTestConfig(tempDir(), fake, {
        llm: { api_key: fake.apiKey },
        tools: { mcp: { servers: { everything: { ...EVERYTHING, trust: 'low' } } } },
      });
      fake.script({ toolCalls: [{ name: LONG_CALL, arguments: { duration: 1, steps: 2 } }] }, { content: 'Asked and done.' });
      const io = captureIo();
      expect(await runCli(['ask', '--config', configPath, '--log-level', 'silent', 'run the long one'], io)).toBe(0);
      expect(io.out()).toBe('Asked and done.\n');
      expect(io.err()).toMatch(/⏳ mcp:everything:trigger-long-running-operation — 1\/2 \(50%\)/);
    } finally {
      await fake.close();
    }
  });
});
