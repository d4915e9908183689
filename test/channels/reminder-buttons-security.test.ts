import { afterEach, describe, expect, it } from 'vitest';
import { FRIEND_TG, OWNER_DC, OWNER_TG, STRANGER_DC, STRANGER_TG, startChannelRig, type ChannelRig } from '../helpers/channels.js';
import { callbackAnswer, click, pendingReminders, press, telegramButtons } from '../helpers/chat-approvals.js';

const pending = (rig: ChannelRig) => pendingReminders(rig.app);

describe('a reminder\'s buttons answer only the chat that got it', () => {
  let rig: ChannelRig;
  afterEach(async () => {
    await rig.close();
  });

  it('on Telegram, a press by another allowed person, a stranger, or with the data replayed in another chat changes nothing', async () => {
    rig = await startChannelRig({ which: ['telegram'] });
    rig.llm.script({ toolCalls: [{ name: 'reminder_create', arguments: { title: 'Take the pills', when: 'in 1 second' } }] }, { content: 'Will do.' });
    rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, text: 'remind me' });
    const reminder = await rig.telegram.waitFor(() => rig.telegram.messagesTo(OWNER_TG).find((message) => message.text?.startsWith('⏰ Take the pills')), 20_000);
    const byFriend = press(rig.telegram, reminder, '10 min', FRIEND_TG);
    const byStranger = press(rig.telegram, reminder, 'Done', STRANGER_TG);
    const data = telegramButtons(reminder).find((button) => button.text.includes('Done'))?.callback_data ?? '';
    // The friend's own chat, with the owner's button data: a forged press.
    rig.llm.script({ content: 'Hello!' });
    rig.telegram.sendUserMessage({ chatId: FRIEND_TG, userId: FRIEND_TG, text: 'hello' });
    const theirs = await rig.telegram.waitFor(() => rig.telegram.messagesTo(FRIEND_TG).find((message) => message.text === 'Hello!'));
    const forged = rig.telegram.pressButton({ chatId: FRIEND_TG, userId: FRIEND_TG, messageId: theirs.message_id, data }).callbackQueryId;
    for (const id of [byFriend, byStranger, forged]) expect(await callbackAnswer(rig.telegram, id)).toMatch(/^Not yours/);
    expect(pending(rig)).toEqual([]);
    expect(rig.telegram.messagesTo(OWNER_TG).find((message) => message.message_id === reminder.message_id)?.edits).toEqual([]);
    // The owner still can.
    expect(await callbackAnswer(rig.telegram, press(rig.telegram, reminder, 'Done', OWNER_TG))).toBe('Done');
  });

  it('on Discord, a stranger\'s click is answered only to them and changes nothing', async () => {
    rig = await startChannelRig({ which: ['discord'] });
    rig.llm.script({ toolCalls: [{ name: 'reminder_create', arguments: { title: 'Take the pills', when: 'in 1 second' } }] }, { content: 'Will do.' });
    const { channelId } = rig.discord.sendUserMessage({ userId: OWNER_DC, username: 'owner', content: 'remind me', dm: true });
    const reminder = await rig.discord.waitFor(() => rig.discord.messagesIn(channelId).find((message) => message.content.startsWith('⏰ Take the pills')), 20_000);
    const interactionId = click(rig.discord, reminder, '💤 10 min', STRANGER_DC, 'mallory');
    const response = await rig.discord.waitFor(() => rig.discord.interactionResponses.find((candidate) => candidate.interactionId === interactionId));
    expect(response.data?.['content']).toMatch(/^Not yours/);
    expect(Number(response.data?.['flags']) & 64).toBe(64); // ephemeral: only the presser sees it
    expect(pending(rig)).toEqual([]);
    expect(reminder.components).not.toEqual([]);
  });
});
