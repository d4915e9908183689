import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SentMessage as TelegramMessage } from '../fakes/telegram-server.js';
import { OWNER_DC, OWNER_TG, sleep, startChannelRig, type ChannelRig } from '../helpers/channels.js';
import { callbackAnswer, click, pendingReminders, discordButtons, press, telegramButtons, UNTIL } from '../helpers/chat-approvals.js';

/** A reminder made by the model in a chat (the tool call scripted), due at once. */
function scriptReminder(rig: ChannelRig, args: Record<string, unknown>): void {
  rig.llm.script({ toolCalls: [{ name: 'reminder_create', arguments: args }] }, { content: 'I will remind you.' });
}

const pending = (rig: ChannelRig) => pendingReminders(rig.app);

describe('delivered reminders on Telegram carry Snooze and Done buttons', () => {
  let rig: ChannelRig;
  afterEach(async () => {
    await rig.close();
  });

  const reminderTo = (text: string, index = 0): Promise<TelegramMessage> =>
    rig.telegram.waitFor(() => rig.telegram.messagesTo(OWNER_TG).filter((message) => message.text?.startsWith(`⏰ ${text}`))[index], 20_000);

  const remind = async (args: Record<string, unknown>): Promise<TelegramMessage> => {
    scriptReminder(rig, args);
    rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, text: 'remind me' });
    await rig.telegram.waitFor(() => rig.telegram.messagesTo(OWNER_TG).some((message) => message.text === 'I will remind you.'), 20_000);
    return reminderTo(String(args['title']));
  };

  it('sends a plain reminder as written, with the four buttons, and no model call when it fires', async () => {
    rig = await startChannelRig({ which: ['telegram'] });
    scriptReminder(rig, { title: 'Call the dentist', description: 'Ask about Tuesday', when: 'in 1 second' });
    rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, text: 'remind me to call the dentist in a second' });
    await rig.telegram.waitFor(() => rig.telegram.messagesTo(OWNER_TG).some((message) => message.text === 'I will remind you.'), 20_000);
    const calls = rig.llm.requests.length;
    const reminder = await reminderTo('Call the dentist');
    expect(reminder.text).toBe('⏰ Call the dentist\nAsk about Tuesday');
    expect(telegramButtons(reminder).map((button) => button.text)).toEqual(['💤 10 min', '💤 1 h', '💤 Tomorrow', '✅ Done']);
    expect(rig.llm.requests.length).toBe(calls);
  });

  it('Snooze re-arms the reminder once; a second press says it is already snoozed', async () => {
    rig = await startChannelRig({ which: ['telegram'] });
    const reminder = await remind({ title: 'Stretch', when: 'in 1 second' });
    const buttons = telegramButtons(reminder);
    const before = Date.now();
    const first = press(rig.telegram, reminder, '10 min', OWNER_TG);
    expect(await callbackAnswer(rig.telegram, first)).toMatch(new RegExp(String.raw`^💤 Snoozed until ${UNTIL}\.$`, 'u'));
    const edited = await rig.telegram.waitFor(() => rig.telegram.messagesTo(OWNER_TG).find((message) => message.message_id === reminder.message_id && message.edits.length > 0));
    expect(edited.text).toMatch(new RegExp(String.raw`^⏰ Stretch\n\n💤 Snoozed until ${UNTIL}\.$`, 'u'));
    expect(telegramButtons(edited)).toEqual([]);
    const again = press(rig.telegram, reminder, '1 h', OWNER_TG, buttons);
    expect(await callbackAnswer(rig.telegram, again)).toMatch(/^Already snoozed until /);
    const jobs = pending(rig);
    expect(jobs).toHaveLength(1);
    expect(jobs[0]).toMatchObject({ prompt: 'Stretch', origin: expect.objectContaining({ channel: 'telegram', chatId: String(OWNER_TG) }) });
    expect(jobs[0]?.runAt ?? 0).toBeGreaterThanOrEqual(before + 10 * 60_000);
    expect(jobs[0]?.runAt ?? 0).toBeLessThanOrEqual(Date.now() + 11 * 60_000);
  });

  it('Done ticks the task the reminder is linked to', async () => {
    rig = await startChannelRig({ which: ['telegram'] });
    const tasks = path.join(rig.app.config.memory_dir, 'tasks.md');
    writeFileSync(tasks, '# Tasks\n\n- [ ] Pay the rent 🆔 rent01\n- [ ] Buy milk 🆔 milk01\n');
    const reminder = await remind({ title: 'Rent is due', when: 'in 1 second', task: 'rent' });
    const done = press(rig.telegram, reminder, 'Done', OWNER_TG);
    expect(await callbackAnswer(rig.telegram, done)).toBe('Done');
    const edited = await rig.telegram.waitFor(() => rig.telegram.messagesTo(OWNER_TG).find((message) => message.message_id === reminder.message_id && message.edits.length > 0));
    expect(edited.text).toMatch(/✅ Done: "Pay the rent" is ticked\.$/);
    expect(readFileSync(tasks, 'utf8')).toMatch(/^- \[x\] Pay the rent 🆔 rent01 ✅ \d{4}-\d{2}-\d{2}$/m);
    expect(readFileSync(tasks, 'utf8')).toContain('- [ ] Buy milk 🆔 milk01');
  });

  it('is snoozed exactly once across a restart: the old buttons stay answered and the snoozed one comes once', async () => {
    rig = await startChannelRig({ which: ['telegram'] });
    const reminder = await remind({ title: 'Water the plants', when: 'in 1 second' });
    const buttons = telegramButtons(reminder);
    expect(await callbackAnswer(rig.telegram, press(rig.telegram, reminder, '1 h', OWNER_TG))).toMatch(/^💤 Snoozed until /);
    const [snoozed] = pending(rig);
    // The snoozed reminder falls due while the daemon is down; the new one must send it once, and not re-arm it again.
    rig.app.scheduler.update(snoozed?.id ?? '', { run_at: new Date(Date.now() + 1500).toISOString() });
    await rig.restart();
    expect(await callbackAnswer(rig.telegram, press(rig.telegram, reminder, '10 min', OWNER_TG, buttons))).toMatch(/^Already snoozed until /);
    await reminderTo('Water the plants', 1);
    await sleep(1500);
    expect(rig.telegram.messagesTo(OWNER_TG).filter((message) => message.text?.startsWith('⏰ Water the plants'))).toHaveLength(2);
    expect(pending(rig)).toEqual([]);
  });
});

describe('delivered reminders on Discord carry Snooze and Done buttons', () => {
  let rig: ChannelRig;
  afterEach(async () => {
    await rig.close();
  });

  it('Snooze 1 h re-arms it and replaces the buttons with the outcome; Done on the next one marks it done', async () => {
    rig = await startChannelRig({ which: ['discord'] });
    scriptReminder(rig, { title: 'Stand up', when: 'in 1 second' });
    const { channelId } = rig.discord.sendUserMessage({ userId: OWNER_DC, username: 'owner', content: 'remind me', dm: true });
    const reminder = await rig.discord.waitFor(() => rig.discord.messagesIn(channelId).find((message) => message.content.startsWith('⏰ Stand up')), 20_000);
    expect(discordButtons(reminder).map((button) => button.label)).toEqual(['💤 10 min', '💤 1 h', '💤 Tomorrow', '✅ Done']);
    const interactionId = click(rig.discord, reminder, '💤 1 h', OWNER_DC);
    const response = await rig.discord.waitFor(() => rig.discord.interactionResponses.find((candidate) => candidate.interactionId === interactionId));
    expect(response.type).toBe(7); // UPDATE_MESSAGE
    expect(reminder.content).toMatch(new RegExp(String.raw`^⏰ Stand up\n\n💤 Snoozed until ${UNTIL}\.$`, 'u'));
    expect(reminder.components).toEqual([]);
    const [snoozed] = pending(rig);
    expect(snoozed).toMatchObject({ prompt: 'Stand up', origin: expect.objectContaining({ channel: 'discord', chatId: channelId }) });

    await rig.app.scheduler.runNow(snoozed?.id ?? '');
    const next = await rig.discord.waitFor(() => rig.discord.messagesIn(channelId).filter((message) => message.content.startsWith('⏰ Stand up'))[1]);
    click(rig.discord, next, '✅ Done', OWNER_DC);
    await rig.discord.waitFor(() => next.content.endsWith('✅ Done.') || undefined);
    expect(next.components).toEqual([]);
  });
});
