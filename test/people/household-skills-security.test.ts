// A skill belongs to the person who made it (docs/household.md, Skills): its own runs act as them and speak to them,
// and only they or the owner change it. Through the real channels: two Telegram users and a child, in direct chats.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { captureIo } from '../helpers/io.js';
import { baseOf, login } from '../helpers/console.js';
import { press } from '../helpers/chat-approvals.js';
import { FRIEND_TG, OWNER_TG, startChannelRig, type ChannelRig } from '../helpers/channels.js';
import { skillMd, writeSkill } from '../skills/helpers.js';

const CHILD_TG = 1003;

const PEOPLE = {
  ann: { role: 'owner', ids: { telegram: [OWNER_TG] } },
  ben: { role: 'member', ids: { telegram: [FRIEND_TG] } },
  // A child allowed to make skills, and nothing that schedules jobs.
  cid: { role: 'child', ids: { telegram: [CHILD_TG] }, tools: ['memory.*', 'skills.write'] },
};

/** What the drafting model answers for create_skill: a SKILL.md with the given frontmatter lines. */
function draft(id: string, lines: string[]): string {
  const skill = ['---', `name: ${id}`, 'description: A daily digest.', 'version: 0.1.0', 'status: draft', ...lines, '---', 'Write the digest.', ''].join('\n');
  return JSON.stringify({ id, skill_md: skill, files: [] });
}

describe('a household\'s skills: each is its maker\'s', () => {
  let rig: ChannelRig;
  let skills: string;

  beforeAll(async () => {
    rig = await startChannelRig({
      which: ['telegram'],
      overrides: {
        people: PEOPLE,
        // The owner's chat is where the daemon's own results go.
        scheduler: { default_chat: `telegram:${OWNER_TG}` },
        approval: { timeout_s: 5 },
        http: { listen: '127.0.0.1:0' },
      },
    });
    const memory = path.join(rig.t.dir, 'memory');
    skills = path.join(rig.t.dir, 'skills');
    writeFileSync(path.join(memory, 'people/ann/profile.md'), 'Ann is allergic to penicillin.\n');
    mkdirSync(path.join(memory, 'people/ben'), { recursive: true });
    writeFileSync(path.join(memory, 'people/ben/profile.md'), 'Ben plays chess.\n');
    // Ann's, from before the household: a folder with no maker recorded.
    writeSkill(rig.t.dir, 'ann-news', skillMd({ name: 'Ann news', trigger: '{type: cron, cron: "0 8 * * *"}', tools: '[memory_read]' }));
    // A start reads the folders whole (later edits reach the prompt through a watch, which may lag a first run).
    await rig.restart();
  });

  afterAll(async () => {
    await rig.close();
  });

  /** Sends a Telegram message in a direct chat and waits for the bot's next message there. */
  async function say(userId: number, text: string): Promise<string> {
    const before = rig.telegram.messagesTo(userId).length;
    rig.telegram.sendUserMessage({ chatId: userId, userId, text });
    const reply = await rig.telegram.waitFor(() => rig.telegram.messagesTo(userId)[before]);
    return reply.text ?? '';
  }

  /** A person makes a cron skill in their direct chat, and the owner activates it from the terminal. */
  async function makeSkill(userId: number, id: string, lines: string[], tools: string[]): Promise<void> {
    rig.llm.script(
      { toolCalls: [{ name: 'create_skill', arguments: { description: 'a daily digest', trigger: { type: 'cron', cron: '0 7 * * *' }, tools } }] },
      { content: draft(id, lines) },
      { content: 'Made it.' },
    );
    expect(await say(userId, 'make me a daily digest')).toBe('Made it.');
    expect(await rig.app.skills.manage(id, 'activate')).toMatchObject({ success: true });
  }

  const offered = (index: number): string[] => rig.llm.requests.at(index)?.body.tools?.map((tool) => tool.function.name) ?? [];
  const texts = (chat: number): string[] => rig.telegram.messagesTo(chat).map((message) => message.text ?? '');

  it('runs a member\'s scheduled skill as them, with their memory and not the owner\'s', async () => {
    await makeSkill(FRIEND_TG, 'ben-digest', [], ['memory_read']);
    rig.llm.script({ content: 'Your chess digest.' });
    expect(await rig.app.scheduler.runNow('skill-ben-digest')).toMatchObject({ success: true, value: { status: 'ok' } });
    expect(rig.llm.lastSystemPrompt()).toContain('Ben plays chess.');
    expect(rig.llm.lastSystemPrompt()).not.toContain('penicillin');
  });

  it('delivers a member\'s scheduled skill to their chat, even when its draft names the owner\'s', async () => {
    await makeSkill(FRIEND_TG, 'ben-news', [`deliver_to: telegram:${OWNER_TG}`], ['memory_read']);
    rig.llm.script({ content: 'Ben\'s news of the day.' });
    await rig.app.scheduler.runNow('skill-ben-news');
    await rig.telegram.waitFor(() => texts(FRIEND_TG).find((text) => text.includes('Ben\'s news of the day.')));
    expect(texts(OWNER_TG).some((text) => text.includes('Ben\'s news of the day.'))).toBe(false);
  });

  it('offers a child\'s scheduled skill only the child\'s tools, and refuses another if called anyway', async () => {
    await makeSkill(CHILD_TG, 'cid-digest', [], ['memory_read', 'schedule']);
    rig.llm.script({ toolCalls: [{ name: 'schedule', arguments: { action: 'list' } }] }, { content: 'Done.' });
    await rig.app.scheduler.runNow('skill-cid-digest');
    expect(offered(-2)).toContain('memory_read');
    expect(offered(-2)).not.toContain('schedule');
    const result = String(rig.llm.requests.at(-1)?.body.messages.at(-1)?.content);
    expect(result).toMatch(/not (?:available|offered|allowed)|Unknown tool|refused/i);
    expect(result).not.toMatch(/skill-ann-news|No jobs/);
  });

  it('does not let a member pause the owner\'s skill', async () => {
    rig.llm.script({ toolCalls: [{ name: 'manage_skill', arguments: { id: 'ann-news', action: 'pause' } }] }, { content: 'Tried.' });
    await say(FRIEND_TG, 'pause ann-news');
    expect(String(rig.llm.requests.at(-1)?.body.messages.at(-1)?.content)).toMatch(/Skill "ann-news" is ann's: only they or the owner can change it/);
    expect(readFileSync(path.join(skills, 'ann-news/SKILL.md'), 'utf8')).toContain('status: active');
    expect(rig.app.scheduler.get('skill-ann-news')?.enabled).toBe(true);
  });

  it('does not let a member delete the owner\'s skill, nor ask the owner to', async () => {
    const asked = texts(OWNER_TG).length;
    rig.llm.script({ toolCalls: [{ name: 'manage_skill', arguments: { id: 'ann-news', action: 'delete' } }] }, { content: 'Tried.' });
    await say(FRIEND_TG, 'delete ann-news');
    expect(String(rig.llm.requests.at(-1)?.body.messages.at(-1)?.content)).toMatch(/Skill "ann-news" is ann's/);
    expect(readFileSync(path.join(skills, 'ann-news/SKILL.md'), 'utf8')).toContain('name: Ann news');
    expect(texts(OWNER_TG).slice(asked)).toEqual([]);
  });

  it('asks the owner before a member activates their own skill', async () => {
    rig.llm.script(
      { toolCalls: [{ name: 'create_skill', arguments: { description: 'a weekly digest', trigger: { type: 'cron', cron: '0 7 * * 1' }, tools: ['memory_read'] } }] },
      { content: draft('ben-weekly', []) },
      { content: 'Made it.' },
    );
    await say(FRIEND_TG, 'make me a weekly digest');
    const before = rig.telegram.messagesTo(OWNER_TG).length;
    rig.llm.script({ toolCalls: [{ name: 'manage_skill', arguments: { id: 'ben-weekly', action: 'activate' } }] }, { content: 'Active.' });
    rig.telegram.sendUserMessage({ chatId: FRIEND_TG, userId: FRIEND_TG, text: 'turn my digest on' });
    const question = await rig.telegram.waitFor(() => rig.telegram.messagesTo(OWNER_TG).slice(before).find((message) => message.text?.includes('manage_skill')));
    expect(question.text).toContain('Asked by ben (member)');
    press(rig.telegram, question, 'Approve', OWNER_TG);
    await rig.telegram.waitFor(() => texts(FRIEND_TG).find((text) => text === 'Active.'));
    expect(readFileSync(path.join(skills, 'ben-weekly/SKILL.md'), 'utf8')).toContain('status: active');
  });

  it('lets a member pause their own skill', async () => {
    rig.llm.script({ toolCalls: [{ name: 'manage_skill', arguments: { id: 'ben-digest', action: 'pause' } }] }, { content: 'Paused.' });
    await say(FRIEND_TG, 'pause my digest');
    expect(readFileSync(path.join(skills, 'ben-digest/SKILL.md'), 'utf8')).toContain('status: paused');
  });

  it('runs a skill from before the household as the owner, and delivers it to the owner', async () => {
    rig.llm.script({ content: 'Ann\'s morning news.' });
    expect(await rig.app.scheduler.runNow('skill-ann-news')).toMatchObject({ success: true, value: { status: 'ok' } });
    expect(rig.llm.lastSystemPrompt()).toContain('penicillin');
    expect(rig.llm.lastSystemPrompt()).not.toContain('Ben plays chess.');
    await rig.telegram.waitFor(() => texts(OWNER_TG).find((text) => text.includes('Ann\'s morning news.')));
  });

  it('lists each skill with its maker on the command line', async () => {
    const io = captureIo();
    expect(await runCli(['skills', 'list', '--config', rig.t.configPath], io)).toBe(0);
    expect(io.out()).toMatch(/^ann-news — Ann news \[active\] by ann;/m);
    expect(io.out()).toMatch(/^ben-digest — ben-digest \[paused\] by ben;/m);
    expect(io.out()).toMatch(/^ben-weekly — ben-weekly \[active\] by ben;/m);
    expect(io.out()).toMatch(/^cid-digest — cid-digest \[active\] by cid;/m);
  });

  it('shows each skill\'s maker on the console\'s Skills page', async () => {
    const client = await login(rig.app, baseOf(rig.app));
    const page = await client.text('/console/skills');
    expect(page).toMatch(/ann-news<\/strong><\/a><br><small>Ann news<\/small><br><small class="muted">by ann<\/small>/);
    expect(page).toMatch(/ben-weekly<\/strong><\/a>.*?<small class="muted">by ben<\/small>/s);
  });
});
