// Strangers cannot exhaust pairing or lock the owner out, and the names they choose cannot smuggle terminal
// escapes, reordering or extra lines into the pairing list, the logs or approval messages.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_CODES_PER_PERSON_PER_DAY, MAX_INVITE_ATTEMPTS_PER_DAY, MAX_PENDING_PER_CHANNEL } from '../../src/channels/pairing.js';
import { runCli } from '../../src/cli/run.js';
import { OWNER_TG, STRANGER_DC, STRANGER_TG, sleep, startChannelRig, type ChannelRig } from '../helpers/channels.js';
import { sendCall, sendTool, telegramButtons, telegramQuestion, type SentCall } from '../helpers/chat-approvals.js';
import { captureIo } from '../helpers/io.js';

const CODE = /familiar pairing approve ([A-Z2-9]{8})/;
const INVITE = /Invite code for \w+: ([A-Z2-9]{8})/;
/** Anything a terminal or a bidi-aware display would act on. */
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/;
const EVIL_NAME = '\u001b[2J\u001b]0;pwned\u0007Mallory\u202Etxt.exe\u200B\nApproved: telegram user 1 (owner)';

describe('pairing and names from chat platforms', () => {
  let rig: ChannelRig;

  beforeEach(async () => {
    rig = await startChannelRig();
    rig.llm.handle(() => ({ content: 'answer' }));
  });

  afterEach(async () => {
    await rig.close();
  });

  const pairing = async (...args: string[]) => {
    const io = captureIo();
    const code = await runCli(['pairing', ...args, '--config', rig.t.configPath], io);
    return { code, out: io.out(), err: io.err() };
  };
  /** A message from the owner, answered: every update sent before it has been handled. */
  const ownerRoundTrip = async () => {
    const before = rig.telegram.messagesTo(OWNER_TG).length;
    rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, text: 'still there?' });
    await rig.telegram.waitFor(() => rig.telegram.messagesTo(OWNER_TG)[before]);
  };
  const codesTo = (chatId: number) => rig.telegram.messagesTo(chatId).filter((message) => CODE.test(message.text ?? ''));

  it('prints and logs a stranger\'s chosen name without escapes, reordering or line breaks', async () => {
    rig.telegram.sendUserMessage({ chatId: STRANGER_TG, userId: STRANGER_TG, firstName: EVIL_NAME, text: 'hi' });
    const { channelId } = rig.discord.sendUserMessage({ userId: STRANGER_DC, username: `dc${EVIL_NAME}`, content: 'hi', dm: true });
    await rig.telegram.waitFor(() => codesTo(STRANGER_TG)[0]);
    await rig.discord.waitFor(() => rig.discord.messagesIn(channelId)[0]);
    const listed = await pairing('list');
    expect(listed.out).not.toMatch(CONTROL);
    expect(listed.out).toContain('[2J]0;pwnedMallorytxt.exe Approved: telegram user 1 (owner)');
    // One line per pending code: the name cannot fake a line of its own.
    expect(listed.out.split('\n').filter((line) => line.includes('Approved:'))).toHaveLength(2);
    expect(listed.out.split('\n').filter((line) => line.startsWith('Approved'))).toEqual([]);
    const json = await pairing('list', '--json');
    expect(JSON.stringify(JSON.parse(json.out))).not.toMatch(/\\u001b|\\u202e|\\n|\\u0007/i);
    const logs = rig.t.logs.filter((line) => line.includes('pairing code issued'));
    expect(logs).toHaveLength(2);
    for (const line of logs) expect(line).not.toMatch(/\\u001b|\\u0007|\\u202e|\\u200b|\\n/i);
  });

  it('stores and describes a sent file under a name without reordering or invisible characters', async () => {
    rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, caption: 'my invoice', document: { content: 'x', fileName: 'invoice\u202Efdp.exe\u200B', mimeType: 'application/pdf' } });
    await rig.telegram.waitFor(() => rig.telegram.messagesTo(OWNER_TG)[0]);
    const conversation = rig.app.conversations.resolve('telegram', String(OWNER_TG));
    const files = readdirSync(path.join(rig.app.config.data_dir, 'workspaces', conversation, 'uploads'));
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/-invoicefdp\.exe$/);
    expect(JSON.stringify(rig.llm.requests[0]?.body.messages)).not.toMatch(/\\u202e|\u202E/i);
  });

  it("shows the presser's name in an approval outcome without escapes", async () => {
    const sent: SentCall[] = [];
    rig.app.tools.register(sendTool(sent));
    rig.llm.script(sendCall(), { content: 'Sent it.' });
    rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, text: 'tell Anna' });
    const question = await telegramQuestion(rig.telegram, OWNER_TG);
    const button = telegramButtons(question).find((candidate) => candidate.text.includes('Approve'));
    rig.telegram.pressButton({ chatId: OWNER_TG, userId: OWNER_TG, messageId: question.message_id, data: button?.callback_data ?? '', firstName: EVIL_NAME });
    await rig.telegram.waitFor(() => question.edits.length > 0);
    const outcome = (question.text ?? '').split('\n').at(-1) ?? '';
    expect(outcome).toMatch(/^✅ Approved by \[2J\]0;pwnedMallorytxt\.exe Approved: telegram user 1 \(owner\)/);
    expect(question.text).not.toMatch(CONTROL);
    expect(sent).toHaveLength(1);
  });

  it(`a newcomer the owner invites gets in while ${MAX_PENDING_PER_CHANNEL} strangers hold every pending code`, async () => {
    for (let index = 0; index < MAX_PENDING_PER_CHANNEL + 3; index += 1) rig.telegram.sendUserMessage({ chatId: 6000 + index, userId: 6000 + index, text: 'let me in' });
    await rig.telegram.waitFor(() => rig.telegram.sent.filter((message) => CODE.test(message.text ?? '')).length === MAX_PENDING_PER_CHANNEL);
    await ownerRoundTrip();
    await sleep(100);
    expect(rig.telegram.sent.filter((message) => CODE.test(message.text ?? ''))).toHaveLength(MAX_PENDING_PER_CHANNEL);
    // A newcomer without an invite gets nothing now…
    const newcomer = 7777;
    rig.telegram.sendUserMessage({ chatId: newcomer, userId: newcomer, text: 'hi, it is Sam' });
    await ownerRoundTrip();
    expect(rig.telegram.messagesTo(newcomer)).toHaveLength(0);
    // …but with the owner's invite they are in at once, and answered from then on.
    const invited = await pairing('invite', 'telegram');
    expect(invited.code).toBe(0);
    const code = INVITE.exec(invited.out)?.[1] ?? '';
    expect((await pairing('list')).out).toContain(code);
    rig.telegram.sendUserMessage({ chatId: newcomer, userId: newcomer, text: `/start ${code}` });
    const welcome = await rig.telegram.waitFor(() => rig.telegram.messagesTo(newcomer)[0]);
    expect(welcome.text).toMatch(/^Welcome! The owner invited you/);
    rig.telegram.sendUserMessage({ chatId: newcomer, userId: newcomer, text: 'what can you do?' });
    expect((await rig.telegram.waitFor(() => rig.telegram.messagesTo(newcomer)[1])).text).toBe('answer');
    // An invite works once.
    rig.telegram.sendUserMessage({ chatId: 8888, userId: 8888, text: code });
    await ownerRoundTrip();
    expect(rig.telegram.messagesTo(8888).some((message) => /Welcome/.test(message.text ?? ''))).toBe(false);
  });

  it(`gives one person at most ${MAX_CODES_PER_PERSON_PER_DAY} codes a day, without using up the channel`, async () => {
    for (let round = 0; round < MAX_CODES_PER_PERSON_PER_DAY + 2; round += 1) {
      rig.telegram.sendUserMessage({ chatId: STRANGER_TG, userId: STRANGER_TG, text: `hi ${round}` });
      await ownerRoundTrip();
      // An hour passes: their code expires, and a new message would get a new one.
      rig.app.db.prepare("UPDATE pairing_codes SET expires_at = 1 WHERE status = 'pending'").run();
    }
    await rig.telegram.waitFor(() => codesTo(STRANGER_TG).length >= MAX_CODES_PER_PERSON_PER_DAY);
    await sleep(100);
    expect(codesTo(STRANGER_TG)).toHaveLength(MAX_CODES_PER_PERSON_PER_DAY);
    rig.telegram.sendUserMessage({ chatId: STRANGER_TG + 1, userId: STRANGER_TG + 1, text: 'me too' });
    await rig.telegram.waitFor(() => codesTo(STRANGER_TG + 1)[0]);
  });

  it(`stops checking a person's messages for invite codes after ${MAX_INVITE_ATTEMPTS_PER_DAY} wrong ones, and an invite is bound to its channel`, async () => {
    const code = INVITE.exec((await pairing('invite', 'telegram')).out)?.[1] ?? '';
    // On Discord the Telegram invite is just a wrong code.
    const { channelId } = rig.discord.sendUserMessage({ userId: STRANGER_DC, content: code, dm: true });
    await rig.discord.waitFor(() => rig.discord.messagesIn(channelId)[0]);
    expect(rig.discord.messagesIn(channelId)[0]?.content).not.toMatch(/Welcome/);
    for (let attempt = 0; attempt < MAX_INVITE_ATTEMPTS_PER_DAY; attempt += 1) {
      rig.telegram.sendUserMessage({ chatId: STRANGER_TG, userId: STRANGER_TG, text: `/start ${'ABCDEFGH'.slice(attempt)}${'X'.repeat(attempt)}` });
    }
    rig.telegram.sendUserMessage({ chatId: STRANGER_TG, userId: STRANGER_TG, text: `/start ${code}` });
    await ownerRoundTrip();
    await sleep(50);
    expect(rig.telegram.messagesTo(STRANGER_TG).some((message) => /Welcome/.test(message.text ?? ''))).toBe(false);
    expect((await pairing('list')).out).toContain(code);
  });
});
