// A chat's conversation stays the chat's: a job or a skill run from the chat gets a conversation of its own, filed
// under the chat, which never becomes the chat's current one — not in the running daemon, not after a restart. On
// Telegram, Discord, `familiar chat` and the console, each through its real path.
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import type { Daemon } from '../../src/daemon.js';
import type { CallOrigin } from '../../src/tools/types.js';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { makeTestApp, tempDir, writeTestConfig } from '../helpers/app.js';
import { OWNER_DC, OWNER_TG, startChannelRig, type ChannelRig } from '../helpers/channels.js';
import { captureIo } from '../helpers/io.js';
import { baseOf, login, openEvents, startConsoleApp, type ConsoleApp, type ConsoleClient } from '../helpers/console.js';
import { skillMd, writeSkill } from '../skills/helpers.js';

const JOB_PROMPT = 'Summarise the news for the digest.';
const SKILL_TEXT = 'Say hello as the greeter skill.';

/** Answers every request with the text of its last user message, so each turn is told apart. */
function echo(llm: FakeOpenAI): void {
  llm.handle((request) => {
    const user = request.body.messages.filter((message) => message.role === 'user').at(-1);
    return { content: `echo: ${typeof user?.content === 'string' ? user.content : '[parts]'}` };
  });
}

/** The chat's own conversation, made by its first message. */
function chatConversation(app: Daemon): { id: string; origin: CallOrigin } {
  const row = app.db.prepare("SELECT id, channel, chat_id FROM conversations WHERE kind = 'chat'").get() as { id: string; channel: string; chat_id: string };
  return { id: row.id, origin: { channel: row.channel, chatId: row.chat_id, userId: row.chat_id } };
}

/** What used to take a chat over: a job made from the chat runs, then a skill is run from the chat. */
async function runJobAndSkillFrom(app: Daemon, dir: string, origin: CallOrigin): Promise<void> {
  const created = app.scheduler.create({ id: 'digest', prompt: JOB_PROMPT, cron: '0 8 * * *', origin, source: 'chat' });
  expect(created.success).toBe(true);
  const ran = await app.scheduler.runNow('digest');
  expect(ran.success && ran.value.status).toBe('ok');
  writeSkill(dir, 'greeter', skillMd({ body: SKILL_TEXT, tools: '[]' }));
  const skill = await app.skills.run('greeter', { origin, unattended: false });
  expect(skill.success).toBe(true);
}

/** The user texts the model was given for the request that answers `text` (history included). */
function userTextsWith(llm: FakeOpenAI, text: string): string[] {
  const request = llm.requests.find((candidate) => {
    const last = candidate.body.messages.filter((message) => message.role === 'user').at(-1);
    return last?.content === text;
  });
  if (!request) throw new Error(`no request answered "${text}"`);
  return request.body.messages.filter((message) => message.role === 'user').map((message) => String(message.content));
}

/** The conversations the chat's own turns ran in. */
function chatTurnConversations(app: Daemon): string[] {
  return (app.db.prepare("SELECT DISTINCT conversation_id FROM turns WHERE source IN ('chat', 'cli') ORDER BY started_at").all() as Array<{ conversation_id: string }>).map((row) => row.conversation_id);
}

/** Checks the chat went on in its own conversation after the job, the skill and the restart. */
function expectChatKeptItsConversation(app: Daemon, llm: FakeOpenAI, conversationId: string): void {
  const seen = userTextsWith(llm, 'second words');
  expect(seen).toContain('first words');
  expect(seen.join('\n')).not.toContain(JOB_PROMPT);
  expect(seen.join('\n')).not.toContain(SKILL_TEXT);
  expect(chatTurnConversations(app)).toEqual([conversationId]);
}

describe('a chat keeps its conversation when jobs and skills run from it, across a restart', () => {
  let rig: ChannelRig | undefined;
  let consoleApp: ConsoleApp | undefined;
  let fake: FakeOpenAI | undefined;

  afterEach(async () => {
    await rig?.close();
    await consoleApp?.app.close(1000);
    await fake?.close();
    rig = undefined;
    consoleApp = undefined;
    fake = undefined;
  });

  it('on Telegram', async () => {
    rig = await startChannelRig({ which: ['telegram'] });
    const telegram = rig.telegram;
    echo(rig.llm);
    telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, text: 'first words' });
    await telegram.waitFor(() => telegram.messagesTo(OWNER_TG).find((message) => message.text === 'echo: first words'));
    const chat = chatConversation(rig.app);
    await runJobAndSkillFrom(rig.app, rig.t.dir, { ...chat.origin, userId: String(OWNER_TG) });
    const app = await rig.restart();
    telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, text: 'second words' });
    await telegram.waitFor(() => telegram.messagesTo(OWNER_TG).find((message) => message.text === 'echo: second words'));
    expectChatKeptItsConversation(app, rig.llm, chat.id);
  });

  it('on Discord', async () => {
    rig = await startChannelRig({ which: ['discord'] });
    const discord = rig.discord;
    echo(rig.llm);
    const { channelId } = discord.sendUserMessage({ userId: OWNER_DC, username: 'owner', content: 'first words', dm: true });
    await discord.waitFor(() => discord.messagesIn(channelId).find((message) => message.content === 'echo: first words'));
    const chat = chatConversation(rig.app);
    await runJobAndSkillFrom(rig.app, rig.t.dir, { ...chat.origin, userId: OWNER_DC });
    const app = await rig.restart();
    discord.sendUserMessage({ userId: OWNER_DC, username: 'owner', content: 'second words', dm: true });
    await discord.waitFor(() => discord.messagesIn(channelId).find((message) => message.content === 'echo: second words'));
    expectChatKeptItsConversation(app, rig.llm, chat.id);
  });

  it('in `familiar chat`', async () => {
    fake = await startOpenAiServer();
    echo(fake);
    const dir = tempDir();
    const configPath = writeTestConfig(dir, fake, { llm: { api_key: fake.apiKey } });
    await chatSession(configPath, 'first words');
    // Another process (as `familiar jobs run` would be) runs the job and the skill made from the terminal's chat.
    const other = await makeTestApp(fake, { llm: { api_key: fake.apiKey } }, dir, { mode: 'command' });
    const chat = chatConversation(other.app);
    await runJobAndSkillFrom(other.app, dir, chat.origin);
    await other.app.close(0);
    await chatSession(configPath, 'second words');
    const after = await makeTestApp(fake, { llm: { api_key: fake.apiKey } }, dir, { mode: 'command' });
    try {
      expectChatKeptItsConversation(after.app, fake, chat.id);
    } finally {
      await after.app.close(0);
    }
  });

  it('in the console', async () => {
    fake = await startOpenAiServer();
    echo(fake);
    consoleApp = await startConsoleApp(fake);
    await consoleSay(await consoleApp.login(), 'first words');
    const chat = chatConversation(consoleApp.app);
    await runJobAndSkillFrom(consoleApp.app, consoleApp.dir, chat.origin);
    await consoleApp.app.close(1000);
    const app = await consoleApp.restart();
    consoleApp.app = app;
    await app.start();
    await consoleSay(await login(app, baseOf(app)), 'second words');
    expectChatKeptItsConversation(app, fake, chat.id);
  });
});

/** One `familiar chat` session in this process: says `text`, waits for the answer, exits. */
async function chatSession(configPath: string, text: string): Promise<void> {
  const io = captureIo();
  const stdin = new PassThrough();
  stdin.end(`${text}\n`);
  expect(await runCli(['chat', '--config', configPath, '--log-level', 'silent'], { ...io, stdin })).toBe(0);
  expect(io.out()).toContain(`familiar> echo: ${text}`);
}

/** Sends a console chat message and waits for its answer. */
async function consoleSay(client: ConsoleClient, text: string): Promise<void> {
  const stream = await openEvents(client, 'chat');
  try {
    const sent = await client.post('/console/chat/send', { text, messageId: `message-${Date.now()}` }, { Accept: 'application/json' });
    expect(sent.status).toBe(202);
    await stream.until((event) => event.data.kind === 'reply');
  } finally {
    stream.close();
  }
}
