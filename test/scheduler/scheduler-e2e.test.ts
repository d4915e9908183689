import { afterEach, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../fakes/openai-server.js';
import { OWNER_DC, OWNER_TG, FRIEND_TG, sleep, startChannelRig, userTexts, type ChannelRig } from '../helpers/channels.js';

// End to end with real time: the fake LLM drives the real `schedule` tool, jobs fire on the real clock,
// and results travel through grammy / discord.js to the fake Telegram and Discord servers.

const lastUser = (request: RecordedRequest): string => {
  const content = request.body.messages.filter((message) => message.role === 'user').at(-1)?.content;
  return typeof content === 'string' ? content : '';
};

/** A 6-field cron that fires once a minute, `seconds` from now (so it fires exactly once during a test). */
const cronInSeconds = (seconds: number): string => `${new Date(Date.now() + seconds * 1000).getUTCSeconds()} * * * * *`;

/** The LLM: "schedule it" -> schedule tool call (cron made at that moment); the job's prompt -> its answer. */
function scriptScheduling(rig: ChannelRig, cron: () => string): void {
  rig.llm.handle((request) => {
    const last = request.body.messages.at(-1);
    if (last?.role === 'tool') return { content: 'Scheduled.' };
    const user = lastUser(request);
    if (user === 'schedule it') return { toolCalls: [{ name: 'schedule', arguments: { action: 'create', cron: cron(), prompt: 'Say the job ran' } }] };
    if (user === 'Say the job ran') return { content: 'The job ran: all good.' };
    return { content: `echo: ${user}` };
  });
}

describe('scheduler end to end (fake LLM, fake Telegram and Discord, real time)', () => {
  let rig: ChannelRig | undefined;

  afterEach(async () => {
    await rig?.close();
    rig = undefined;
  });

  it('fires a seconds-field cron job created through the schedule tool and delivers to the Telegram chat that made it', async () => {
    rig = await startChannelRig({ which: ['telegram'] });
    const telegram = rig.telegram;
    scriptScheduling(rig, () => cronInSeconds(3));
    telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, text: 'schedule it' });
    await telegram.waitFor(() => telegram.messagesTo(OWNER_TG).find((message) => message.text === 'Scheduled.'));
    const toolResult = rig.llm.requests[1]?.body.messages.find((message) => message.role === 'tool');
    expect(String(toolResult?.content)).toMatch(/^Created job j-[0-9a-f]{6}: .*\(Europe\/Paris; cron .*\)\.\nNext run: \w+day,? \d+ \w+ \d{4} at \d\d:\d\d \(Europe\/Paris, UTC\+0[12]:00\)\.\nResults go to telegram:1001\./);

    const result = await telegram.waitFor(() => telegram.messagesTo(OWNER_TG).find((message) => message.text === 'The job ran: all good.'), 8000);
    expect(result).toBeDefined();
    expect(telegram.messagesTo(FRIEND_TG)).toEqual([]);
    // The job ran in its own conversation, unattended, with the prompt as the user message.
    const jobRequest = rig.llm.requests.find((request) => lastUser(request) === 'Say the job ran');
    expect(jobRequest?.body.messages.filter((message) => message.role === 'user')).toHaveLength(1);
    const scheduler = rig.app.scheduler;
    const [job] = scheduler?.list() ?? [];
    const runs = await telegram.waitFor(() => scheduler?.runs(job?.id ?? '').filter((run) => run.status !== 'running').length === 1 && scheduler.runs(job?.id ?? ''));
    expect(runs).toEqual([expect.objectContaining({ status: 'ok', trigger: 'schedule', deliveredTo: 'telegram:1001', output: 'The job ran: all good.' })]);
  });

  it('delivers a job created from a Discord DM to that DM', async () => {
    rig = await startChannelRig({ which: ['discord'] });
    const discord = rig.discord;
    scriptScheduling(rig, () => cronInSeconds(3));
    const { channelId } = discord.sendUserMessage({ userId: OWNER_DC, username: 'owner', content: 'schedule it', dm: true });
    await discord.waitFor(() => discord.messagesIn(channelId).find((message) => message.content === 'Scheduled.'));
    const result = await discord.waitFor(() => discord.messagesIn(channelId).find((message) => message.content === 'The job ran: all good.'), 8000);
    expect(result).toBeDefined();
  });

  it('delivers /remind in 2 seconds without any LLM call', async () => {
    rig = await startChannelRig({ which: ['telegram'] });
    const telegram = rig.telegram;
    telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, text: '/remind in 2 seconds check the oven' });
    const ack = await telegram.waitFor(() => telegram.messagesTo(OWNER_TG)[0]);
    expect(ack.text).toMatch(/^⏰ Reminder r-[0-9a-f]{6} set for \w+day,? .* — "check the oven"$/);
    const reminder = await telegram.waitFor(() => telegram.messagesTo(OWNER_TG).find((message) => message.text === '⏰ check the oven'), 6000);
    expect(reminder).toBeDefined();
    expect(rig.llm.requests).toHaveLength(0);
  });

  it('answers /remind without a time with the forms that work', async () => {
    rig = await startChannelRig({ which: ['telegram'] });
    const telegram = rig.telegram;
    telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, text: '/remind check the oven' });
    const answer = await telegram.waitFor(() => telegram.messagesTo(OWNER_TG)[0]);
    expect(answer.text).toMatch(/I could not find a time in "check the oven"\. Usage: \/remind <when> <text>/);
    expect(rig.llm.requests).toHaveLength(0);
  });

  it('keeps a job across a restart between create and fire, and fires it once', async () => {
    rig = await startChannelRig({ which: ['telegram'] });
    scriptScheduling(rig, () => cronInSeconds(5));
    rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, text: 'schedule it' });
    await rig.telegram.waitFor(() => rig?.telegram.messagesTo(OWNER_TG).find((message) => message.text === 'Scheduled.'));
    await rig.restart();
    const telegram = rig.telegram;
    await telegram.waitFor(() => telegram.messagesTo(OWNER_TG).find((message) => message.text === 'The job ran: all good.'), 10_000);
    await sleep(1500);
    expect(telegram.messagesTo(OWNER_TG).filter((message) => message.text === 'The job ran: all good.')).toHaveLength(1);
    expect(userTexts(rig.llm).filter((text) => text === 'Say the job ran')).toHaveLength(1);
  });
});
