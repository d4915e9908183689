// A member's dangerous call is the owner's to allow (docs/household.md, Approvals) wherever the owner can be reached:
// in a direct chat on another platform (Discord here, through the real discord.js against the fake), or in the
// console alone. Only the owner's answer counts; the member is told where the owner was asked.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { click, discordQuestion, lastToolMessage, sendCall, sendTool, type SentCall } from '../helpers/chat-approvals.js';
import { FRIEND_TG, OWNER_DC, OWNER_TG, startChannelRig, type ChannelRig } from '../helpers/channels.js';
import { freePort } from '../helpers/rig.js';

const BEN_DC = '300000000000000002';

/**
 * Ann the owner (with `ann`'s ids) and Ben a member, on the rig's chats, with the send tool registered; started and
 * closed by the calling describe's hooks. `console`: the console on (http.listen), where the owner may be asked.
 */
function household(ann: Record<string, unknown>, ben: Record<string, unknown>, options: { which?: Array<'telegram' | 'discord'>; console?: boolean }): { rig: () => ChannelRig; sent: SentCall[] } {
  let rig: ChannelRig | undefined;
  const sent: SentCall[] = [];
  beforeAll(async () => {
    rig = await startChannelRig({
      ...(options.which ? { which: options.which } : {}),
      overrides: {
        people: { ann: { role: 'owner', ids: ann }, ben: { role: 'member', ids: ben } },
        ...(options.console ? { http: { listen: `127.0.0.1:${await freePort()}` } } : {}),
        approval: { timeout_s: 10 },
      },
    });
    rig.app.tools.register(sendTool(sent));
  });
  afterAll(async () => {
    await rig?.close();
  });
  return {
    rig: () => {
      if (!rig) throw new Error('the rig has not started');
      return rig;
    },
    sent,
  };
}

describe('the owner asked in their Discord direct chat for a member on Telegram', () => {
  const { rig: started, sent } = household({ discord: [OWNER_DC] }, { telegram: [FRIEND_TG], discord: [BEN_DC] }, {});

  it('asks the owner in her Discord DM, ignores the member\'s press there, and runs the call on her yes', async () => {
    const rig = started();
    rig.llm.script(sendCall(), { content: 'Sent it.' });
    rig.telegram.sendUserMessage({ chatId: FRIEND_TG, userId: FRIEND_TG, text: 'tell Anna I will be late' });
    const question = await discordQuestion(rig.discord, rig.discord.dmChannelId(OWNER_DC));
    expect(question.content).toContain('Asked by ben (member)');
    const told = await rig.telegram.waitFor(() => rig.telegram.messagesTo(FRIEND_TG).find((message) => message.text?.startsWith('⏳')));
    expect(told.text).toBe('⏳ send_message needs the owner\'s yes: I asked ann in a direct chat on discord.');

    const bens = click(rig.discord, question, 'Approve', BEN_DC, 'ben');
    const refusal = await rig.discord.waitFor(() => rig.discord.interactionResponses.find((response) => response.interactionId === bens));
    expect(JSON.stringify(refusal.data)).toMatch(/Not yours to answer/);
    expect(sent).toEqual([]);

    click(rig.discord, question, 'Approve', OWNER_DC, 'ann');
    await rig.telegram.waitFor(() => rig.telegram.messagesTo(FRIEND_TG).find((message) => message.text === 'Sent it.'));
    expect(sent).toEqual([{ to: 'anna@example.org', text: 'see you at 8' }]);
  });
});

describe('the owner reachable nowhere but the console', () => {
  const { rig: started, sent } = household({ console: true }, { telegram: [FRIEND_TG] }, { which: ['telegram'], console: true });

  it('lists the question in the console as the console\'s own, and the owner\'s answer there decides', async () => {
    const rig = started();
    rig.llm.script(sendCall(), { content: 'Sent it.' });
    rig.telegram.sendUserMessage({ chatId: FRIEND_TG, userId: FRIEND_TG, text: 'tell Anna I will be late' });
    const question = await rig.telegram.waitFor(() => rig.app.approvals.questions.list().find((open) => open.tool === 'send_message'));
    expect(question).toMatchObject({ channel: 'console' });
    expect(question.text).toContain('Asked by ben (member)');
    const told = await rig.telegram.waitFor(() => rig.telegram.messagesTo(FRIEND_TG).find((message) => message.text?.startsWith('⏳')));
    expect(told.text).toBe('⏳ send_message needs the owner\'s yes: I asked ann in the console.');
    // No chat carries the question: nothing with buttons reached the member.
    expect(rig.telegram.messagesTo(FRIEND_TG).some((message) => message.reply_markup !== undefined)).toBe(false);

    expect(rig.app.approvals.questions.answer(question.id, 'approve', { by: 'the owner', surface: 'console' })).toEqual({ success: true, value: undefined });
    await rig.telegram.waitFor(() => rig.telegram.messagesTo(FRIEND_TG).find((message) => message.text === 'Sent it.'));
    expect(sent).toHaveLength(1);
  });

  it('tells the model the owner said no in the console', async () => {
    const rig = started();
    rig.llm.script(sendCall(), { content: 'Not sent.' });
    rig.telegram.sendUserMessage({ chatId: FRIEND_TG, userId: FRIEND_TG, text: 'tell Anna again' });
    const question = await rig.telegram.waitFor(() => rig.app.approvals.questions.list().find((open) => open.tool === 'send_message'));
    rig.app.approvals.questions.answer(question.id, 'deny', { by: 'the owner', surface: 'console' });
    await rig.telegram.waitFor(() => rig.telegram.messagesTo(FRIEND_TG).find((message) => message.text === 'Not sent.'));
    expect(lastToolMessage(rig.llm)).toMatch(/the owner said no in the console/);
    expect(sent).toHaveLength(1);
  });
});

describe('the owner whose chat cannot show the question', () => {
  const { rig: started, sent } = household({ telegram: [OWNER_TG], console: true }, { telegram: [FRIEND_TG] }, { which: ['telegram'], console: true });

  it('asks in the console when Telegram refuses the owner\'s chat (she never started the bot)', async () => {
    const rig = started();
    rig.llm.script(sendCall(), { content: 'Sent it.' });
    // The line telling Ben and the question to Ann: Telegram refuses both (403), as for a chat the bot may not write in.
    rig.telegram.failNext('sendMessage', { error_code: 403, description: 'Forbidden: bot can\'t initiate conversation with a user' }, 2);
    rig.telegram.sendUserMessage({ chatId: FRIEND_TG, userId: FRIEND_TG, text: 'tell Anna I will be late' });
    const question = await rig.telegram.waitFor(() => rig.app.approvals.questions.list().find((open) => open.tool === 'send_message' && open.channel === 'console'));
    expect(question.text).toContain('Asked by ben (member)');
    expect(sent).toEqual([]);
    rig.app.approvals.questions.answer(question.id, 'approve', { by: 'the owner', surface: 'console' });
    await rig.telegram.waitFor(() => rig.telegram.messagesTo(FRIEND_TG).find((message) => message.text === 'Sent it.'));
    expect(sent).toHaveLength(1);
  });
});
