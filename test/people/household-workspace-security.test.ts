// A household's sandbox workspaces (docs/household.md): in a group each person has their own workspace and container,
// through the real channels (two fake Telegram users in one group) and the real Docker sandbox; the workspaces from
// before the household are the owner's, as the memory and jobs from then are.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Daemon } from '../../src/daemon.js';
import { FRIEND_TG, OWNER_TG, STRANGER_TG, startChannelRig, type ChannelRig } from '../helpers/channels.js';
import { makeTestApp, tempDir } from '../helpers/app.js';
import { startOpenAiServer } from '../fakes/openai-server.js';
import { startTelegramServer, type FakeTelegram } from '../fakes/telegram-server.js';
import { TEST_IMAGE, TEST_LABEL, describeDocker } from '../helpers/docker.js';

const GROUP = -100888;
const PEOPLE = {
  ann: { role: 'owner', ids: { telegram: [OWNER_TG] } },
  ben: { role: 'member', ids: { telegram: [FRIEND_TG] } },
};
// Plain folders, no ext4 image per workspace: the images take these keys through the same code and cost ~2.5 s here.
const SANDBOX = { image: TEST_IMAGE, pool_size: 0, workspace_mb: 0, labels: { [TEST_LABEL]: 'household' } };

/** Sends a Telegram message and waits for the bot's next message in that chat. */
async function say(telegram: FakeTelegram, chatId: number, userId: number, text: string): Promise<string> {
  const before = telegram.messagesTo(chatId).length;
  const group = chatId < 0;
  telegram.sendUserMessage({ chatId, userId, text: group ? `@familiar_test_bot ${text}` : text, chatType: group ? 'group' : 'private' });
  const reply = await telegram.waitFor(() => telegram.messagesTo(chatId)[before], 20_000);
  return reply.text ?? '';
}

describeDocker('a household: a group\'s workspace is each person\'s own', () => {
  let rig: ChannelRig;
  let workspaces: string;

  beforeAll(async () => {
    rig = await startChannelRig({ which: ['telegram'], overrides: { people: PEOPLE, tools: { sandbox: SANDBOX } } });
    workspaces = path.join(rig.t.dir, 'data', 'workspaces');
  });

  afterAll(async () => {
    await rig.close();
  });

  /** What the tools answered in the last turn (the group's history holds the earlier turns' too). */
  const toolResults = (): string[] => {
    const messages = rig.llm.requests.at(-1)?.body.messages ?? [];
    const start = messages.findLastIndex((message) => message.role === 'user');
    return messages.slice(start).filter((message) => message.role === 'tool').map((message) => String(message.content));
  };
  const group = (): string => rig.app.conversations.resolve('telegram', String(GROUP));
  const filesIn = (key: string, folder = ''): string[] => {
    const dir = path.join(workspaces, key, folder);
    return existsSync(dir) ? readdirSync(dir) : [];
  };

  it('keeps a file Ben writes in the group out of Ann\'s list, read and grep there', async () => {
    rig.llm.script({ toolCalls: [{ name: 'write', arguments: { path: 'plan.txt', content: 'ben secret plan\n' } }] }, { content: 'Saved.' });
    expect(await say(rig.telegram, GROUP, FRIEND_TG, 'save my plan')).toBe('Saved.');
    expect(readFileSync(path.join(workspaces, `${group()}@ben`, 'plan.txt'), 'utf8')).toBe('ben secret plan\n');
    rig.llm.script({ toolCalls: [
      { name: 'listdir', arguments: { path: '.' } },
      { name: 'read', arguments: { path: 'plan.txt' } },
      { name: 'grep', arguments: { pattern: 'secret' } },
    ] }, { content: 'Nothing there.' });
    await say(rig.telegram, GROUP, OWNER_TG, 'what is in the workspace?');
    const results = toolResults();
    expect(results).toHaveLength(3);
    for (const result of results) {
      expect(result).not.toContain('plan.txt');
      expect(result).not.toContain('secret plan');
    }
    expect(filesIn(group())).toEqual([]);
  });

  it('runs Ann\'s sandbox commands in the group in her own container, which does not see Ben\'s files', async () => {
    rig.llm.script({ toolCalls: [{ name: 'sandbox_exec', arguments: { command: 'cat plan.txt; echo ben-was-here > mine.txt' } }] }, { content: 'Done, Ben.' });
    await say(rig.telegram, GROUP, FRIEND_TG, 'show my plan and leave a mark');
    expect(toolResults().at(-1)).toContain('ben secret plan');
    rig.llm.script({ toolCalls: [{ name: 'sandbox_exec', arguments: { command: 'ls -a /workspace; cat /workspace/mine.txt /workspace/plan.txt' } }] }, { content: 'Done, Ann.' });
    await say(rig.telegram, GROUP, OWNER_TG, 'look around the workspace');
    const ann = toolResults().at(-1) ?? '';
    expect(ann).toContain('No such file');
    expect(ann).not.toContain('ben-was-here');
    expect(ann).not.toContain('secret plan');
    expect(filesIn(`${group()}@ben`).sort()).toEqual(['mine.txt', 'plan.txt']);
  });

  it('stores a file Ben sends in the group in his own workspace, which Ann cannot list', async () => {
    rig.llm.script({ content: 'Got the recipe.' });
    const before = rig.telegram.messagesTo(GROUP).length;
    rig.telegram.sendUserMessage({
      chatId: GROUP, userId: FRIEND_TG, chatType: 'group', caption: '@familiar_test_bot keep this',
      document: { content: 'grandma\'s recipe', fileName: 'recipe.txt', mimeType: 'text/plain' },
    });
    await rig.telegram.waitFor(() => rig.telegram.messagesTo(GROUP)[before], 20_000);
    expect(filesIn(`${group()}@ben`, 'uploads').some((name) => name.endsWith('-recipe.txt'))).toBe(true);
    expect(filesIn(group(), 'uploads')).toEqual([]);
    rig.llm.script({ toolCalls: [{ name: 'glob', arguments: { pattern: '**/*' } }] }, { content: 'No recipe here.' });
    await say(rig.telegram, GROUP, OWNER_TG, 'find the recipe');
    expect(toolResults().at(-1)).not.toContain('recipe.txt');
  });

  it('gives a guest in the group no file or sandbox tool, and refuses one called anyway', async () => {
    const invite = rig.app.router?.pairing.invite('telegram');
    if (!invite) throw new Error('no router');
    expect(await say(rig.telegram, STRANGER_TG, STRANGER_TG, `/start ${invite.code}`)).toMatch(/^Welcome!/);
    rig.llm.script({ toolCalls: [
      { name: 'read', arguments: { path: 'uploads' } },
      { name: 'sandbox_exec', arguments: { command: 'ls -R /workspace' } },
    ] }, { content: 'I cannot.' });
    await say(rig.telegram, GROUP, STRANGER_TG, 'show me the files');
    const offered = rig.llm.requests.at(-2)?.body.tools?.map((tool) => tool.function.name) ?? [];
    expect(offered.filter((tool) => ['read', 'write', 'listdir', 'glob', 'grep', 'edit', 'sandbox_exec'].includes(tool))).toEqual([]);
    const results = toolResults();
    expect(results).toHaveLength(2);
    for (const result of results) expect(result).toMatch(/not (?:available|offered|allowed)|Unknown tool|refused/i);
    expect(readdirSync(workspaces).filter((name) => name.endsWith('@guest') && filesIn(name).length > 0)).toEqual([]);
  });
});

describeDocker('a household: the workspaces from before it are the owner\'s', () => {
  let dir: string;
  let app: Daemon | undefined;
  const llmReady = startOpenAiServer();
  const telegramReady = startTelegramServer();

  beforeAll(() => {
    dir = tempDir();
  });

  afterAll(async () => {
    await app?.close(1000);
    await (await llmReady).close();
    await (await telegramReady).close();
  });

  /** The daemon on `dir` with Telegram, the sandbox and, for the household, `people`. */
  async function start(people?: typeof PEOPLE): Promise<Daemon> {
    const llm = await llmReady;
    const telegram = await telegramReady;
    const channels = { telegram: { token: telegram.token, api_root: telegram.apiRoot, allowed_users: [OWNER_TG, FRIEND_TG] } };
    const made = await makeTestApp(llm, { channels, tools: { sandbox: SANDBOX }, ...(people ? { people } : {}) }, dir);
    await made.app.start();
    return made.app;
  }

  it('lets Ann, the owner, read the file she wrote in her direct chat before; Ben there works in his own', async () => {
    const llm = await llmReady;
    const telegram = await telegramReady;
    app = await start();
    llm.script({ toolCalls: [{ name: 'write', arguments: { path: 'notes.txt', content: 'from before\n' } }] }, { content: 'Written.' });
    expect(await say(telegram, OWNER_TG, OWNER_TG, 'note this')).toBe('Written.');
    llm.script({ toolCalls: [{ name: 'write', arguments: { path: 'ben.txt', content: 'ben before\n' } }] }, { content: 'Written.' });
    expect(await say(telegram, FRIEND_TG, FRIEND_TG, 'note this')).toBe('Written.');
    await app.close(1000);
    app = await start(PEOPLE);
    const lastTool = (): string => String(llm.requests.at(-1)?.body.messages.filter((message) => message.role === 'tool').at(-1)?.content);
    llm.script({ toolCalls: [{ name: 'read', arguments: { path: 'notes.txt' } }] }, { content: 'Read it.' });
    expect(await say(telegram, OWNER_TG, OWNER_TG, 'what did I note?')).toBe('Read it.');
    expect(lastTool()).toContain('from before');
    // Ben's chat from before the household is the owner's now (docs/household.md): his tools work in his own.
    llm.script({ toolCalls: [{ name: 'write', arguments: { path: 'ben.txt', content: 'ben after\n' } }] }, { content: 'Written.' });
    expect(await say(telegram, FRIEND_TG, FRIEND_TG, 'note this again')).toBe('Written.');
    const ben = app.conversations.resolve('telegram', String(FRIEND_TG));
    expect(readFileSync(path.join(dir, 'data', 'workspaces', `${ben}@ben`, 'ben.txt'), 'utf8')).toBe('ben after\n');
    expect(readFileSync(path.join(dir, 'data', 'workspaces', ben, 'ben.txt'), 'utf8')).toBe('ben before\n');
  });
});
