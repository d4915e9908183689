import { afterEach, describe, expect, it } from 'vitest';
import { fitText, parseButtonData } from '../../src/channels/approval-pending.js';
import { FRIEND_TG, OWNER_DC, OWNER_TG, startChannelRig, type ChannelRig } from '../helpers/channels.js';
import {
  callbackAnswer, click, discordButtons, discordQuestion, lastToolMessage, press, sendCall, sendTool, telegramButtons,
  telegramQuestion, type SentCall,
} from '../helpers/chat-approvals.js';

function auditDecision(rig: ChannelRig): string | null {
  const row = rig.app.db.prepare("SELECT decision FROM audit WHERE tool = 'send_message' ORDER BY id DESC LIMIT 1").get() as { decision: string | null } | undefined;
  return row?.decision ?? null;
}

describe('approvals with Telegram inline buttons (grammy against the fake Bot API)', () => {
  let rig: ChannelRig;
  let sent: SentCall[];

  const start = async (overrides: Record<string, unknown> = {}) => {
    rig = await startChannelRig({ which: ['telegram'], overrides });
    sent = [];
    rig.app.tools.register(sendTool(sent));
  };

  afterEach(async () => {
    await rig.close();
  });

  const textsTo = (chatId: number): string[] => rig.telegram.messagesTo(chatId).map((message) => message.text ?? '');

  it('asks with Approve / Deny buttons, and an approval runs the tool and the answer arrives', async () => {
    await start();
    rig.llm.script(sendCall(), { content: 'Sent it.' });
    rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, text: 'tell Anna' });
    const question = await telegramQuestion(rig.telegram, OWNER_TG);
    expect(question.text).toMatch(/^Approve this action\? send_message is a high-risk tool\./);
    expect(question.text).toContain('\nto: "anna@example.org"');
    expect(question.parse_mode).toBeUndefined();
    expect(telegramButtons(question).map((button) => button.text)).toEqual(['✅ Approve', '❌ Deny']);
    expect(sent).toEqual([]);

    const callback = press(rig.telegram, question, 'Approve', OWNER_TG);
    await rig.telegram.waitFor(() => textsTo(OWNER_TG).includes('Sent it.'));
    expect(sent).toEqual([{ to: 'anna@example.org', text: 'see you at 8' }]);
    expect(await callbackAnswer(rig.telegram, callback)).toBe('Approved');
    const edited = await rig.telegram.waitFor(() => rig.telegram.messagesTo(OWNER_TG).find((message) => message.message_id === question.message_id && message.edits.length > 0));
    expect(edited.text).toMatch(/✅ Approved by Test\.$/);
    expect(telegramButtons(edited)).toEqual([]);
    expect(auditDecision(rig)).toBe(`approved by telegram:${OWNER_TG}`);
  });

  it('a denial does not run the tool, and the model is told', async () => {
    await start();
    rig.llm.script(sendCall(), { content: 'OK, I did not send it.' });
    rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, text: 'tell Anna' });
    const question = await telegramQuestion(rig.telegram, OWNER_TG);
    const callback = press(rig.telegram, question, 'Deny', OWNER_TG);
    await rig.telegram.waitFor(() => textsTo(OWNER_TG).includes('OK, I did not send it.'));
    expect(sent).toEqual([]);
    expect(lastToolMessage(rig.llm)).toMatch(/^ERROR: The call to send_message was not approved: the person said no\./);
    expect(await callbackAnswer(rig.telegram, callback)).toBe('Denied');
    const edited = await rig.telegram.waitFor(() => rig.telegram.messagesTo(OWNER_TG).find((message) => message.message_id === question.message_id && message.edits.length > 0));
    expect(edited.text).toMatch(/❌ Denied by Test\.$/);
    expect(telegramButtons(edited)).toEqual([]);
  });

  it('no answer within approval.timeout_s is a denial, and the question says it timed out', async () => {
    await start({ approval: { timeout_s: 0.3 } });
    rig.llm.script(sendCall(), { content: 'Nobody answered, so I did not send it.' });
    rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, text: 'tell Anna' });
    const question = await telegramQuestion(rig.telegram, OWNER_TG);
    const buttons = telegramButtons(question);
    await rig.telegram.waitFor(() => textsTo(OWNER_TG).includes('Nobody answered, so I did not send it.'));
    expect(sent).toEqual([]);
    expect(lastToolMessage(rig.llm)).toMatch(/not approved: no answer within 0\.3 s/);
    const edited = await rig.telegram.waitFor(() => rig.telegram.messagesTo(OWNER_TG).find((message) => message.message_id === question.message_id && message.edits.length > 0));
    expect(edited.text).toMatch(/⌛ Timed out: not approved\.$/);
    expect(telegramButtons(edited)).toEqual([]);
    // A late press finds nothing open.
    const late = press(rig.telegram, question, 'Approve', OWNER_TG, buttons);
    expect(await callbackAnswer(rig.telegram, late)).toBe('This request is no longer open.');
    expect(sent).toEqual([]);
  });

  it('/stop while the question is open ends the turn at once, unapproved, and the question says it was stopped', async () => {
    await start();
    rig.llm.script(sendCall(), { content: 'should not be asked' });
    rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, text: 'tell Anna' });
    const question = await telegramQuestion(rig.telegram, OWNER_TG);
    const buttons = telegramButtons(question);
    rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, text: '/stop' });
    const edited = await rig.telegram.waitFor(() => rig.telegram.messagesTo(OWNER_TG).find((message) => message.message_id === question.message_id && message.edits.length > 0));
    expect(edited.text).toMatch(/⏹ Stopped before an answer: not approved\.$/);
    expect(telegramButtons(edited)).toEqual([]);
    await rig.telegram.waitFor(() => textsTo(OWNER_TG).includes('Stopped.'));
    expect(sent).toEqual([]);
    // The model was not called again: the stopped turn ended where it was.
    expect(rig.llm.requests).toHaveLength(1);
    expect(auditDecision(rig)).toBe('denied: the turn was stopped before anyone answered');
    const late = press(rig.telegram, question, 'Approve', OWNER_TG, buttons);
    expect(await callbackAnswer(rig.telegram, late)).toBe('This request is no longer open.');
    expect(sent).toEqual([]);
  });

  it('an approval asked during a long turn does not deadlock: the press is handled while the turn and a follow-up wait in the chat queue', async () => {
    await start();
    rig.llm.handle((request) => {
      const messages = request.body.messages;
      const last = messages.at(-1);
      if (last?.role === 'tool') return { content: 'A done' };
      const user = messages.filter((message) => message.role === 'user').at(-1)?.content;
      if (user === 'A') return { ...sendCall(), delayMs: 300 };
      return { content: `${String(user)} done` };
    });
    rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, text: 'A' });
    const question = await telegramQuestion(rig.telegram, OWNER_TG);
    // A follow-up in the same chat queues behind the waiting turn; another chat is not held up.
    rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, text: 'B' });
    rig.telegram.sendUserMessage({ chatId: FRIEND_TG, userId: FRIEND_TG, text: 'other' });
    await rig.telegram.waitFor(() => textsTo(FRIEND_TG).includes('other done'));
    expect(textsTo(OWNER_TG)).toHaveLength(1);
    expect(sent).toEqual([]);

    press(rig.telegram, question, 'Approve', OWNER_TG);
    await rig.telegram.waitFor(() => textsTo(OWNER_TG).includes('B done'));
    expect(sent).toHaveLength(1);
    const replies = textsTo(OWNER_TG).slice(1);
    expect(replies).toEqual(['A done', 'B done']);
  });

  it('asks again for each high-risk call of a turn, each with its own buttons', async () => {
    await start();
    rig.llm.script(sendCall({ to: 'anna@example.org', text: 'one' }), sendCall({ to: 'bob@example.org', text: 'two' }), { content: 'Both handled.' });
    rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, text: 'tell both' });
    const first = await telegramQuestion(rig.telegram, OWNER_TG, 0);
    press(rig.telegram, first, 'Deny', OWNER_TG);
    const second = await telegramQuestion(rig.telegram, OWNER_TG, 1);
    expect(second.text).toContain('bob@example.org');
    expect(telegramButtons(second)[0]?.callback_data).not.toBe(telegramButtons(first)[0]?.callback_data);
    press(rig.telegram, second, 'Approve', OWNER_TG);
    await rig.telegram.waitFor(() => textsTo(OWNER_TG).includes('Both handled.'));
    expect(sent).toEqual([{ to: 'bob@example.org', text: 'two' }]);
  });

  it('ends an open question when the daemon shuts down, so the waiting turn finishes', async () => {
    await start();
    rig.llm.script(sendCall(), { content: 'Not sent.' });
    rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, text: 'tell Anna' });
    const question = await telegramQuestion(rig.telegram, OWNER_TG);
    await rig.app.close(5000);
    expect(sent).toEqual([]);
    const edited = await rig.telegram.waitFor(() => rig.telegram.messagesTo(OWNER_TG).find((message) => message.message_id === question.message_id && message.edits.length > 0));
    expect(edited.text).toMatch(/Familiar is shutting down, so this was not approved\.$/);
    expect(textsTo(OWNER_TG)).toContain('Not sent.');
    // rig.close() closes the app again: harmless, but give it a fresh one.
    rig.app = await rig.t.restart();
  });
});

describe('approvals with Discord buttons (discord.js against the fake gateway and REST)', () => {
  let rig: ChannelRig;
  let sent: SentCall[];

  const start = async (overrides: Record<string, unknown> = {}) => {
    rig = await startChannelRig({ which: ['discord'], overrides });
    sent = [];
    rig.app.tools.register(sendTool(sent));
  };

  afterEach(async () => {
    await rig.close();
  });

  const contents = (channelId: string): string[] => rig.discord.messagesIn(channelId).map((message) => message.content);

  it('asks with a green Approve and a red Deny button; approving runs the tool and removes the buttons', async () => {
    await start();
    rig.llm.script(sendCall(), { content: 'Sent it.' });
    const { channelId } = rig.discord.sendUserMessage({ userId: OWNER_DC, username: 'owner', content: 'tell Anna', dm: true });
    const question = await discordQuestion(rig.discord, channelId);
    expect(question.content).toMatch(/^Approve this action\? send_message is a high-risk tool\./);
    expect(discordButtons(question).map((button) => [button.label, button.style])).toEqual([['Approve', 3], ['Deny', 4]]);

    const interactionId = click(rig.discord, question, 'Approve', OWNER_DC);
    await rig.discord.waitFor(() => contents(channelId).includes('Sent it.'));
    expect(sent).toEqual([{ to: 'anna@example.org', text: 'see you at 8' }]);
    const response = rig.discord.interactionResponses.find((candidate) => candidate.interactionId === interactionId);
    expect(response?.type).toBe(7); // UPDATE_MESSAGE
    expect(question.content).toMatch(/✅ Approved by owner\.$/);
    expect(question.components).toEqual([]);
    expect(auditDecision(rig)).toBe(`approved by discord:${OWNER_DC}`);
  });

  it('a denial does not run the tool, and the model is told', async () => {
    await start();
    rig.llm.script(sendCall(), { content: 'OK, not sent.' });
    const { channelId } = rig.discord.sendUserMessage({ userId: OWNER_DC, username: 'owner', content: 'tell Anna', dm: true });
    const question = await discordQuestion(rig.discord, channelId);
    click(rig.discord, question, 'Deny', OWNER_DC);
    await rig.discord.waitFor(() => contents(channelId).includes('OK, not sent.'));
    expect(sent).toEqual([]);
    expect(lastToolMessage(rig.llm)).toMatch(/^ERROR: The call to send_message was not approved: the person said no\./);
    expect(question.content).toMatch(/❌ Denied by owner\.$/);
    expect(question.components).toEqual([]);
  });

  it('no answer within approval.timeout_s is a denial; the question is edited and loses its buttons', async () => {
    await start({ approval: { timeout_s: 0.3 } });
    rig.llm.script(sendCall(), { content: 'Nobody answered.' });
    const { channelId } = rig.discord.sendUserMessage({ userId: OWNER_DC, username: 'owner', content: 'tell Anna', dm: true });
    const question = await discordQuestion(rig.discord, channelId);
    await rig.discord.waitFor(() => contents(channelId).includes('Nobody answered.'));
    expect(sent).toEqual([]);
    expect(lastToolMessage(rig.llm)).toMatch(/not approved: no answer within 0\.3 s/);
    await rig.discord.waitFor(() => question.components.length === 0);
    expect(question.content).toMatch(/⌛ Timed out: not approved\.$/);
  });

  it('an approval asked during a long turn does not deadlock behind the chat queue', async () => {
    await start();
    rig.llm.handle((request) => {
      const messages = request.body.messages;
      if (messages.at(-1)?.role === 'tool') return { content: 'A done' };
      const user = messages.filter((message) => message.role === 'user').at(-1)?.content;
      if (user === 'A') return { ...sendCall(), delayMs: 300 };
      return { content: `${String(user)} done` };
    });
    const { channelId } = rig.discord.sendUserMessage({ userId: OWNER_DC, username: 'owner', content: 'A', dm: true });
    const question = await discordQuestion(rig.discord, channelId);
    rig.discord.sendUserMessage({ userId: OWNER_DC, username: 'owner', content: 'B', dm: true });
    click(rig.discord, question, 'Approve', OWNER_DC);
    await rig.discord.waitFor(() => contents(channelId).includes('B done'));
    expect(sent).toHaveLength(1);
    expect(contents(channelId).slice(1)).toEqual(['A done', 'B done']);
  });
});

describe('approval question text and button data', () => {
  it('fits a long question to the platform limit by cutting the arguments line, keeping the warning and the deadline', () => {
    const text = ['Approve this action? x is a high-risk tool.', `Arguments: ${'a'.repeat(3000)}`, '⚠ This turn has read outside content (https://evil.test).', 'No answer within 300 s means no.'].join('\n');
    const fitted = fitText(text, 2000);
    expect(fitted.length).toBeLessThanOrEqual(2000);
    expect(fitted).toContain('⚠ This turn has read outside content (https://evil.test).');
    expect(fitted.endsWith('No answer within 300 s means no.')).toBe(true);
    expect(fitted).toMatch(/Arguments: a+…\n/);
  });

  it('accepts only its own button data with a full-length id', () => {
    expect(parseButtonData('approval:abcdefghijklmnopqrstuv:approve')).toEqual({ id: 'abcdefghijklmnopqrstuv', choice: 'approve' });
    expect(parseButtonData('approval:abcdefghijklmnopqrstuv:deny')).toEqual({ id: 'abcdefghijklmnopqrstuv', choice: 'deny' });
    expect(parseButtonData('approval:short:approve')).toBeUndefined();
    expect(parseButtonData('approval:abcdefghijklmnopqrstuv:yes')).toBeUndefined();
    expect(parseButtonData('other:button')).toBeUndefined();
    expect(parseButtonData(undefined)).toBeUndefined();
  });
});
