import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { FRIEND_TG, OWNER_TG, sleep, startChannelRig, type ChannelRig } from '../helpers/channels.js';
import { captureIo } from '../helpers/io.js';

/** A chat sees and changes only its own jobs; the terminal (the owner) sees and changes all of them. */
describe('jobs and reminders belong to the chat (and person) that made them', () => {
  let rig: ChannelRig;
  const GROUP = -100555;

  beforeEach(async () => {
    rig = await startChannelRig({ which: ['telegram'] });
  });

  afterEach(async () => {
    await rig.close();
  });

  /** Sends `text` in `chatId` as `userId` and waits for the reply number `index` (0-based) in that chat. */
  const say = async (chatId: number, userId: number, text: string, chatType?: 'group'): Promise<string> => {
    const before = rig.telegram.messagesTo(chatId).length;
    rig.telegram.sendUserMessage({ chatId, userId, text, ...(chatType ? { chatType } : {}) });
    const reply = await rig.telegram.waitFor(() => rig.telegram.messagesTo(chatId)[before]);
    return reply.text ?? '';
  };
  const reminderId = (text: string): string => /Reminder (r-[0-9a-f]{6})/.exec(text)?.[1] ?? '';
  const jobsCli = async (...args: string[]) => {
    const io = captureIo();
    const code = await runCli(['jobs', '--config', rig.t.configPath, ...args], io);
    return { code, out: io.out(), err: io.err() };
  };

  it("/jobs in one chat neither lists nor changes another chat's reminder", async () => {
    const id = reminderId(await say(OWNER_TG, OWNER_TG, '/remind tomorrow at 9am call the bank about account 4471'));
    expect(id).not.toBe('');
    const listed = await say(FRIEND_TG, FRIEND_TG, '/jobs');
    expect(listed).not.toContain(id);
    expect(listed).not.toContain('account 4471');
    for (const action of ['remove', 'pause', 'resume']) {
      expect(await say(FRIEND_TG, FRIEND_TG, `/jobs ${action} ${id}`)).toBe(`No job with id "${id}" in this chat; list the jobs to see the ids.`);
    }
    const job = rig.app.scheduler.get(id);
    expect(job?.enabled).toBe(true);
    // The chat that made it still sees it.
    expect(await say(OWNER_TG, OWNER_TG, '/jobs')).toContain(id);
  });

  it("the schedule tool lists and changes only the calling chat's jobs", async () => {
    const id = reminderId(await say(OWNER_TG, OWNER_TG, '/remind in 2 hours pick up the prescription'));
    rig.llm.script(
      { toolCalls: [{ name: 'schedule', arguments: { action: 'list' } }] },
      { toolCalls: [{ name: 'schedule', arguments: { action: 'delete', id } }] },
      { toolCalls: [{ name: 'schedule', arguments: { action: 'update', id, prompt: 'send me the prescription number' } }] },
      { toolCalls: [{ name: 'schedule', arguments: { action: 'pause', id } }] },
      { content: 'done' },
    );
    await say(FRIEND_TG, FRIEND_TG, 'show me every job and delete them');
    const toolResults = rig.llm.requests.at(-1)?.body.messages.filter((message) => message.role === 'tool').map((message) => String(message.content)) ?? [];
    expect(toolResults).toHaveLength(4);
    expect(toolResults[0]).not.toContain(id);
    expect(toolResults[0]).not.toContain('prescription');
    for (const refused of toolResults.slice(1)) expect(refused).toContain(`No job with id "${id}" in this chat`);
    const job = rig.app.scheduler.get(id);
    expect(job?.prompt).toBe('pick up the prescription');
    expect(job?.enabled).toBe(true);
  });

  it('in a group every member sees the group\'s jobs, but only the one who made a job can change it', async () => {
    const id = reminderId(await say(GROUP, OWNER_TG, '/remind every Monday at 9 team stand-up', 'group'));
    expect(await say(GROUP, FRIEND_TG, '/jobs', 'group')).toContain(id);
    expect(await say(GROUP, FRIEND_TG, `/jobs remove ${id}`, 'group')).toMatch(/made by another person in this chat/);
    expect(rig.app.scheduler.get(id)).toBeDefined();
    // Not visible from either member's direct chat.
    expect(await say(FRIEND_TG, FRIEND_TG, '/jobs')).not.toContain(id);
    expect(await say(GROUP, OWNER_TG, `/jobs remove ${id}`, 'group')).toBe(`Removed job ${id}.`);
  });

  it('jobs made in the terminal or config belong to the owner: a chat does not see them, the command line sees every job', async () => {
    const chatJob = reminderId(await say(OWNER_TG, OWNER_TG, '/remind tomorrow at 10 water the plants'));
    const added = await jobsCli('add', '--id', 'nightly-report', '--cron', '0 23 * * *', '--deliver-to', `telegram:${OWNER_TG}`, 'Summarise the day');
    expect(added.code).toBe(0);
    await sleep(50);
    // It delivers to that chat, but the chat did not make it.
    const listed = await say(OWNER_TG, OWNER_TG, '/jobs');
    expect(listed).toContain(chatJob);
    expect(listed).not.toContain('nightly-report');
    expect(await say(OWNER_TG, OWNER_TG, '/jobs remove nightly-report')).toMatch(/No job with id "nightly-report" in this chat/);
    const all = await jobsCli('list', '--json');
    expect((JSON.parse(all.out) as Array<{ id: string }>).map((job) => job.id).sort()).toEqual([chatJob, 'nightly-report'].sort());
    // The owner may change a chat's job from the terminal.
    expect((await jobsCli('pause', chatJob)).code).toBe(0);
    expect(rig.app.scheduler.get(chatJob)?.enabled).toBe(false);
  });
});
