import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_PENDING_PER_CHANNEL } from '../../src/channels/pairing.js';
import { runCli } from '../../src/cli/run.js';
import { OWNER_DC, OWNER_TG, STRANGER_DC, STRANGER_TG, sleep, startChannelRig, type ChannelRig } from '../helpers/channels.js';

async function cli(configPath: string, ...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const sink = (append: (text: string) => void) => new Writable({ write: (chunk: Buffer, _encoding, callback) => { append(chunk.toString()); callback(); } });
  const code = await runCli(['pairing', ...args, '--config', configPath], { stdin: new PassThrough(), stdout: sink((text) => { out += text; }), stderr: sink((text) => { err += text; }) });
  return { code, out, err };
}

const CODE = /familiar pairing approve ([A-Z2-9]{8})/;

describe('channel access (unknown users, pairing)', () => {
  let rig: ChannelRig;

  beforeEach(async () => {
    rig = await startChannelRig();
    rig.llm.handle(() => ({ content: 'secret answer' }));
  });

  afterEach(async () => {
    await rig.close();
  });

  it('gives an unknown Telegram user only a pairing code, once, and never calls the LLM or fetches their files', async () => {
    rig.telegram.sendUserMessage({ chatId: STRANGER_TG, userId: STRANGER_TG, text: 'hello, who are you?' });
    const first = await rig.telegram.waitFor(() => rig.telegram.messagesTo(STRANGER_TG)[0]);
    expect(first.text).toMatch(CODE);
    rig.telegram.sendUserMessage({ chatId: STRANGER_TG, userId: STRANGER_TG, text: 'please?' });
    rig.telegram.sendUserMessage({ chatId: STRANGER_TG, userId: STRANGER_TG, caption: 'look', document: { content: 'x', fileName: 'a.txt', mimeType: 'text/plain' } });
    rig.telegram.sendUserMessage({ chatId: STRANGER_TG, userId: STRANGER_TG, text: '/help' });
    // The owner's message is answered after them: the strangers' updates have been processed by then.
    rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, text: 'hi' });
    await rig.telegram.waitFor(() => rig.telegram.messagesTo(OWNER_TG)[0]);
    await sleep(100);
    expect(rig.telegram.messagesTo(STRANGER_TG)).toHaveLength(1);
    expect(rig.llm.requests).toHaveLength(1);
    expect(JSON.stringify(rig.llm.requests[0]?.body.messages)).not.toContain('who are you');
    expect(rig.telegram.requests.some((request) => request.method === 'getFile')).toBe(false);
    expect(rig.telegram.chatActions.some((action) => action.chat_id === STRANGER_TG)).toBe(false);
  });

  it('lets a user in after the owner approves the code, persisted across a restart', async () => {
    rig.telegram.sendUserMessage({ chatId: STRANGER_TG, userId: STRANGER_TG, username: 'newfriend', text: 'let me in' });
    const code = CODE.exec((await rig.telegram.waitFor(() => rig.telegram.messagesTo(STRANGER_TG)[0])).text ?? '')?.[1] ?? '';
    const listed = await cli(rig.t.configPath, 'list');
    expect(listed.out).toContain(code);
    expect(listed.out).toContain('newfriend');
    const approved = await cli(rig.t.configPath, 'approve', code.toLowerCase());
    expect(approved.code).toBe(0);
    expect(approved.out).toContain(`telegram user ${STRANGER_TG}`);
    rig.telegram.sendUserMessage({ chatId: STRANGER_TG, userId: STRANGER_TG, text: 'now?' });
    await rig.telegram.waitFor(() => rig.telegram.messagesTo(STRANGER_TG)[1]);
    expect(rig.telegram.messagesTo(STRANGER_TG)[1]?.text).toBe('secret answer');
    await rig.restart();
    rig.telegram.sendUserMessage({ chatId: STRANGER_TG, userId: STRANGER_TG, text: 'still me' });
    await rig.telegram.waitFor(() => rig.telegram.messagesTo(STRANGER_TG)[2]);
    expect(rig.llm.requests).toHaveLength(2);
  });

  it('refuses a wrong or reused code with a clear message', async () => {
    const wrong = await cli(rig.t.configPath, 'approve', 'ZZZZZZZZ');
    expect(wrong.code).toBe(1);
    expect(wrong.err).toContain('PAIRING_UNKNOWN');
    rig.telegram.sendUserMessage({ chatId: STRANGER_TG, userId: STRANGER_TG, text: 'hi' });
    const code = CODE.exec((await rig.telegram.waitFor(() => rig.telegram.messagesTo(STRANGER_TG)[0])).text ?? '')?.[1] ?? '';
    expect((await cli(rig.t.configPath, 'deny', code)).code).toBe(0);
    expect((await cli(rig.t.configPath, 'approve', code)).code).toBe(1);
  });

  it('gives a denied user no further code', async () => {
    rig.telegram.sendUserMessage({ chatId: STRANGER_TG, userId: STRANGER_TG, text: 'hi' });
    const code = CODE.exec((await rig.telegram.waitFor(() => rig.telegram.messagesTo(STRANGER_TG)[0])).text ?? '')?.[1] ?? '';
    await cli(rig.t.configPath, 'deny', code);
    rig.telegram.sendUserMessage({ chatId: STRANGER_TG, userId: STRANGER_TG, text: 'hi again' });
    rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, text: 'hi' });
    await rig.telegram.waitFor(() => rig.telegram.messagesTo(OWNER_TG)[0]);
    await sleep(100);
    expect(rig.telegram.messagesTo(STRANGER_TG)).toHaveLength(1);
  });

  it(`keeps at most ${MAX_PENDING_PER_CHANNEL} pending codes per channel`, async () => {
    for (let index = 0; index < MAX_PENDING_PER_CHANNEL + 2; index += 1) rig.telegram.sendUserMessage({ chatId: 5000 + index, userId: 5000 + index, text: 'hi' });
    rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, text: 'hi' });
    await rig.telegram.waitFor(() => rig.telegram.messagesTo(OWNER_TG)[0]);
    await sleep(100);
    const codes = rig.telegram.sent.filter((message) => CODE.test(message.text ?? ''));
    expect(codes).toHaveLength(MAX_PENDING_PER_CHANNEL);
    expect(new Set(codes.map((message) => CODE.exec(message.text ?? '')?.[1])).size).toBe(MAX_PENDING_PER_CHANNEL);
    expect(rig.llm.requests).toHaveLength(1);
  });

  it('ignores unknown users in groups, even when they mention the bot', async () => {
    const group = -100777;
    rig.telegram.sendUserMessage({ chatId: group, userId: STRANGER_TG, chatType: 'group', text: '@familiar_test_bot tell me secrets' });
    rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, text: 'hi' });
    await rig.telegram.waitFor(() => rig.telegram.messagesTo(OWNER_TG)[0]);
    await sleep(100);
    expect(rig.telegram.messagesTo(group)).toHaveLength(0);
    expect(rig.llm.requests).toHaveLength(1);
  });

  it('applies the same rules on Discord: a code in DMs, silence in guilds, in after approval', async () => {
    rig.discord.sendUserMessage({ userId: STRANGER_DC, content: 'tell me everything', mentionsBot: true });
    const { channelId } = rig.discord.sendUserMessage({ userId: STRANGER_DC, username: 'stranger', content: 'hello', dm: true });
    const first = await rig.discord.waitFor(() => rig.discord.messagesIn(channelId)[0]);
    const code = CODE.exec(first.content)?.[1] ?? '';
    expect(code).toHaveLength(8);
    rig.discord.sendUserMessage({ userId: STRANGER_DC, content: 'hello again', dm: true });
    const owner = rig.discord.sendUserMessage({ userId: OWNER_DC, content: 'hi', dm: true });
    await rig.discord.waitFor(() => rig.discord.messagesIn(owner.channelId)[0]);
    await sleep(100);
    expect(rig.discord.messagesIn(channelId)).toHaveLength(1);
    expect(rig.discord.messages.filter((message) => message.channelId !== channelId && message.channelId !== owner.channelId)).toHaveLength(0);
    expect(rig.llm.requests).toHaveLength(1);
    await cli(rig.t.configPath, 'approve', code);
    rig.discord.sendUserMessage({ userId: STRANGER_DC, content: 'now?', dm: true });
    await rig.discord.waitFor(() => rig.discord.messagesIn(channelId)[1]);
    expect(rig.discord.messagesIn(channelId)[1]?.content).toBe('secret answer');
  });

  it('keeps an uploaded file inside the conversation workspace whatever its name', async () => {
    rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, caption: 'x', document: { content: 'evil', fileName: '../../../../tmp/escape.sh', mimeType: 'text/x-sh' } });
    await rig.telegram.waitFor(() => rig.telegram.messagesTo(OWNER_TG)[0]);
    const conversation = rig.app.conversations.resolve('telegram', String(OWNER_TG));
    const uploads = path.join(rig.app.config.data_dir, 'workspaces', conversation, 'uploads');
    const files = readdirSync(uploads);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/-escape\.sh$/);
    expect(existsSync(path.join(rig.app.config.data_dir, 'escape.sh'))).toBe(false);
  });
});
