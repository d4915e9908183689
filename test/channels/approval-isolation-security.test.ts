// An approval belongs to the person it asks, in the chat it was asked in: nobody else, and not from elsewhere.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FRIEND_TG, OWNER_TG, startChannelRig, type ChannelRig } from '../helpers/channels.js';
import { callbackAnswer, press, sendCall, sendTool, telegramButtons, telegramQuestion, type SentCall } from '../helpers/chat-approvals.js';

describe('approval buttons are honoured only from the person asked, in that chat', () => {
  let rig: ChannelRig;
  let sent: SentCall[];

  beforeEach(async () => {
    rig = await startChannelRig({ which: ['telegram'], overrides: { approval: { timeout_s: 2 } } });
    sent = [];
    rig.app.tools.register(sendTool(sent));
  });

  afterEach(async () => {
    await rig.close();
  });

  const textsTo = (chatId: number): string[] => rig.telegram.messagesTo(chatId).map((message) => message.text ?? '');

  it('a question that names no person is answered by nobody, not by whoever may talk to the bot', async () => {
    rig.llm.script(sendCall(), { content: 'Not sent.' });
    const turn = rig.app.turns.start({ text: 'tell Anna', origin: { channel: 'telegram', chatId: String(OWNER_TG) }, source: 'chat' });
    const question = await telegramQuestion(rig.telegram, OWNER_TG);
    expect(await callbackAnswer(rig.telegram, press(rig.telegram, question, 'Approve', OWNER_TG))).toMatch(/^Not yours to answer/);
    expect(await callbackAnswer(rig.telegram, press(rig.telegram, question, 'Approve', FRIEND_TG))).toMatch(/^Not yours to answer/);
    expect((await turn).text).toBe('Not sent.');
    expect(sent).toEqual([]);
    await rig.telegram.waitFor(() => question.edits.length > 0);
    expect(question.text).toMatch(/Timed out: not approved\.$/);
  });

  it("the asking person's press on a message in another chat changes nothing", async () => {
    rig.telegram.sendUserMessage({ chatId: FRIEND_TG, userId: FRIEND_TG, text: 'hello' });
    rig.llm.script({ content: 'hi friend' }, sendCall(), { content: 'Sent it.' });
    const elsewhere = await rig.telegram.waitFor(() => rig.telegram.messagesTo(FRIEND_TG)[0]);
    rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, text: 'tell Anna' });
    const question = await telegramQuestion(rig.telegram, OWNER_TG);
    const data = telegramButtons(question).find((button) => button.text.includes('Approve'))?.callback_data ?? '';
    const forged = rig.telegram.pressButton({ chatId: FRIEND_TG, userId: OWNER_TG, messageId: elsewhere.message_id, data });
    expect(await callbackAnswer(rig.telegram, forged.callbackQueryId)).toMatch(/^Not yours to answer/);
    expect(sent).toEqual([]);
    press(rig.telegram, question, 'Approve', OWNER_TG);
    await rig.telegram.waitFor(() => textsTo(OWNER_TG).includes('Sent it.'));
    expect(sent).toHaveLength(1);
  });
});
