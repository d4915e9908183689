import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Api, Bot, GrammyError, InputFile } from 'grammy';
import { parseHtml, startTelegramServer, type FakeTelegram } from './telegram-server.js';

let tg: FakeTelegram;
let bot: Bot | undefined;
let running: Promise<void> | undefined;

beforeEach(async () => {
  tg = await startTelegramServer({ botUsername: 'fam_bot' });
});
afterEach(async () => {
  if (bot?.isRunning()) await bot.stop();
  await running;
  bot = undefined;
  running = undefined;
  await tg.close();
});

const api = (): Api => new Api(tg.token, { apiRoot: tg.apiRoot });
/** Starts real long polling; resolves once the first getUpdates is held open. */
async function startBot(setup: (b: Bot) => void): Promise<Bot> {
  bot = new Bot(tg.token, { client: { apiRoot: tg.apiRoot } });
  setup(bot);
  running = bot.start();
  await tg.waitFor(() => tg.requests.some((r) => r.method === 'getUpdates'));
  return bot;
}
async function apiError(p: Promise<unknown>): Promise<GrammyError> {
  const e = await p.then(() => undefined, (err: unknown) => err);
  expect(e).toBeInstanceOf(GrammyError);
  return e as GrammyError;
}

describe('fake Telegram server through grammy', () => {
  it('long polling delivers a pushed message and the handler replies', async () => {
    const seen: { text: string | undefined; from: number | undefined }[] = [];
    await startBot((b) => b.on('message', async (ctx) => {
      seen.push({ text: ctx.message.text, from: ctx.from?.id });
      await ctx.reply(`echo: ${ctx.message.text ?? ''}`, { reply_parameters: { message_id: ctx.message.message_id } });
    }));
    expect(tg.requests.map((r) => r.method).slice(0, 3)).toEqual(['getMe', 'deleteWebhook', 'getUpdates']);
    const { messageId } = tg.sendUserMessage({ chatId: 42, userId: 42, text: 'hello' });
    const reply = await tg.waitFor(() => tg.messagesTo(42)[0]);
    expect(seen).toEqual([{ text: 'hello', from: 42 }]);
    expect(reply).toMatchObject({ method: 'sendMessage', text: 'echo: hello', reply_to_message_id: messageId, message_id: messageId + 1 });
  });

  it('confirms offsets: an update is delivered once unless redelivered', async () => {
    const got: number[] = [];
    await startBot((b) => b.on('message', (ctx) => { got.push(ctx.update.update_id); }));
    const a = tg.sendUserMessage({ chatId: 7, userId: 7, text: 'one' }).updateId;
    const c = tg.sendUserMessage({ chatId: 7, userId: 7, text: 'two' }).updateId;
    await tg.waitFor(() => got.length === 2);
    // Let a few more polls go by: nothing is delivered again.
    const polls = tg.requests.filter((r) => r.method === 'getUpdates').length;
    tg.pushUpdate({ edited_message: { message_id: 1, chat: { id: 7, type: 'private' }, date: 0, text: 'x' } });
    await tg.waitFor(() => tg.requests.filter((r) => r.method === 'getUpdates').length >= polls + 1);
    expect(got).toEqual([a, c]);
    tg.redeliver(a);
    await tg.waitFor(() => got.length === 3);
    expect(got).toEqual([a, c, a]);
  });

  it('a restarted bot gets an unconfirmed update again, with the same update_id', async () => {
    const first = tg.sendUserMessage({ chatId: 5, userId: 5, text: 'once' }).updateId;
    const raw = await api().getUpdates({ offset: 0, timeout: 0 });
    expect(raw.map((u) => u.update_id)).toEqual([first]);
    expect(await api().getUpdates({ offset: first + 1, timeout: 0 })).toEqual([]); // confirmed
    tg.redeliver(first);
    const again: number[] = [];
    await startBot((b) => b.on('message', (ctx) => { again.push(ctx.update.update_id); }));
    await tg.waitFor(() => again.length === 1);
    expect(again).toEqual([first]);
  });

  it('holds getUpdates open until the timeout when nothing arrives', async () => {
    const t0 = Date.now();
    expect(await api().getUpdates({ timeout: 1 })).toEqual([]);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(900);
  });

  it('rejects bad HTML with Telegram\'s 400 and accepts valid HTML', async () => {
    const e = await apiError(api().sendMessage(1, '<b>bold <i>x</b></i>', { parse_mode: 'HTML' }));
    expect(e.error_code).toBe(400);
    expect(e.description).toContain("can't parse entities");
    // A bare "&" is text to Telegram (TDLib keeps it), so it is not among these.
    for (const bad of ['a < b', '<br>', '<b>open', '<span>x</span>', '</b>']) {
      expect((await apiError(api().sendMessage(1, bad, { parse_mode: 'HTML' }))).description).toMatch(/^Bad Request: can't parse entities: /);
    }
    const ok = await api().sendMessage(1, '<b>A &amp; B</b> <a href="https://x.y/?a=1&amp;b=2">link</a> <pre><code class="language-ts">x &lt; 1</code></pre> <blockquote expandable>q</blockquote> &#128512;', { parse_mode: 'HTML' });
    expect(ok.text).toBe('A & B link x < 1 q 😀');
    expect(ok.entities).toEqual([
      { type: 'bold', offset: 0, length: 5 },
      { type: 'text_link', offset: 6, length: 4, url: 'https://x.y/?a=1&b=2' },
      { type: 'pre', offset: 11, length: 5, language: 'ts' },
      { type: 'expandable_blockquote', offset: 17, length: 1 },
    ]);
    expect(tg.sent.at(-1)).toMatchObject({ raw_text: expect.stringContaining('<b>A &amp; B</b>'), parse_mode: 'HTML', text: ok.text });
    expect(parseHtml('<span class="tg-spoiler">s</span><tg-spoiler>t</tg-spoiler>').entities.map((x) => x.type)).toEqual(['spoiler', 'spoiler']);
  });

  it('rejects empty and over-long text, counting visible UTF-16 units', async () => {
    const long = await apiError(api().sendMessage(1, 'x'.repeat(4097)));
    expect([long.error_code, long.description]).toEqual([400, 'Bad Request: message is too long']);
    expect((await apiError(api().sendMessage(1, '😀'.repeat(2049)))).description).toBe('Bad Request: message is too long');
    await api().sendMessage(1, `<b>${'x'.repeat(4096)}</b>`, { parse_mode: 'HTML' }); // tags do not count
    expect((await apiError(api().sendMessage(1, ''))).description).toBe('Bad Request: message text is empty');
  });

  it('failNext returns a 429 with retry_after in parameters, then recovers', async () => {
    tg.failNext('sendMessage', { error_code: 429, description: 'Too Many Requests: retry after 3', retry_after: 3 });
    const e = await apiError(api().sendMessage(1, 'hi'));
    expect(e.error_code).toBe(429);
    expect(e.parameters.retry_after).toBe(3);
    await expect(api().sendMessage(1, 'hi')).resolves.toMatchObject({ text: 'hi' });
  });

  it('uploads a document as multipart and serves it back through getFile', async () => {
    const bytes = Buffer.from([0, 1, 2, 255, 13, 10, 45, 45, 0x41]);
    const msg = await api().sendDocument(9, new InputFile(bytes, 'a.txt'), { caption: '<i>report</i>', parse_mode: 'HTML' });
    expect(msg.document?.file_name).toBe('a.txt');
    expect(msg.caption).toBe('report');
    const sent = tg.messagesTo(9)[0];
    expect(sent?.file).toMatchObject({ source: 'upload', fileName: 'a.txt' });
    expect(sent?.file?.bytes?.equals(bytes)).toBe(true);
    // Re-send by file_id and send a photo by URL.
    await api().sendDocument(9, msg.document?.file_id ?? '');
    await api().sendPhoto(9, 'https://example.com/p.jpg');
    expect(tg.messagesTo(9).map((s) => s.file?.source)).toEqual(['upload', 'file_id', 'url']);
    expect((await apiError(api().sendDocument(9, 'nope'))).description).toBe('Bad Request: wrong file identifier/HTTP URL specified');
  });

  it('getFile + download returns the bytes of a document the user sent', async () => {
    const content = Buffer.from('name,qty\nfoo,1\n');
    tg.sendUserMessage({ chatId: 3, userId: 3, document: { content, fileName: 'data.csv', mimeType: 'text/csv' }, caption: 'see attached' });
    const [update] = await api().getUpdates({ timeout: 0 });
    const doc = update?.message?.document;
    expect(doc).toMatchObject({ file_name: 'data.csv', mime_type: 'text/csv', file_size: content.length });
    const file = await api().getFile(doc?.file_id ?? '');
    const res = await fetch(`${tg.apiRoot}/file/bot${tg.token}/${file.file_path ?? ''}`);
    expect(Buffer.from(await res.arrayBuffer()).equals(content)).toBe(true);
    expect((await fetch(`${tg.apiRoot}/file/botWRONG/${file.file_path ?? ''}`)).status).toBe(404);
  });

  it('records chat actions, commands, edits, buttons and callback answers', async () => {
    await api().sendChatAction(11, 'typing');
    expect(tg.chatActions).toEqual([{ chat_id: 11, action: 'typing', at: expect.any(Number), message_thread_id: undefined }]);
    await api().setMyCommands([{ command: 'help', description: 'Show help' }]);
    expect(tg.commands).toEqual([{ command: 'help', description: 'Show help' }]);
    expect(await api().getMyCommands()).toEqual(tg.commands);
    expect((await apiError(api().setMyCommands([{ command: 'Bad-Cmd', description: 'x' }]))).description).toBe('Bad Request: BOT_COMMAND_INVALID');

    const m = await api().sendMessage(11, 'draft', { reply_markup: { inline_keyboard: [[{ text: 'OK', callback_data: 'ok' }]] } });
    await api().editMessageText(11, m.message_id, 'final');
    expect(tg.messagesTo(11)[0]).toMatchObject({ text: 'final', edits: ['draft'] });
    expect((await apiError(api().editMessageText(11, m.message_id, 'final'))).description).toMatch(/^Bad Request: message is not modified/);

    const clicks: string[] = [];
    await startBot((b) => b.on('callback_query:data', async (ctx) => { clicks.push(ctx.callbackQuery.data); await ctx.answerCallbackQuery({ text: 'done' }); }));
    const { callbackQueryId } = tg.pressButton({ chatId: 11, userId: 11, messageId: m.message_id, data: 'ok' });
    await tg.waitFor(() => tg.callbackAnswers[0]);
    expect(clicks).toEqual(['ok']);
    expect(tg.callbackAnswers[0]).toMatchObject({ callback_query_id: callbackQueryId, text: 'done' });
    await api().deleteMessage(11, m.message_id);
    expect(tg.messagesTo(11)).toEqual([]);
  });

  it('bot commands and group mentions carry entities grammy understands', async () => {
    const hits: string[] = [];
    await startBot((b) => {
      b.command('start', (ctx) => { hits.push(`start:${ctx.match}`); });
      b.on('message::mention', (ctx) => { hits.push(`mention:${ctx.chat.type}`); });
    });
    tg.sendUserMessage({ chatId: 1, userId: 1, text: '/start hello' });
    tg.sendUserMessage({ chatId: -100, userId: 1, chatType: 'supergroup', text: 'hey @fam_bot what now' });
    await tg.waitFor(() => hits.length === 2);
    expect(hits).toEqual(['start:hello', 'mention:supergroup']);
  });

  it('wrong token gets 401 Unauthorized in Telegram\'s shape', async () => {
    const e = await apiError(new Api('999:WRONG', { apiRoot: tg.apiRoot }).getMe());
    expect([e.error_code, e.description]).toEqual([401, 'Unauthorized']);
    const res = await fetch(`${tg.apiRoot}/bot999:WRONG/getMe`);
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ ok: false, error_code: 401, description: 'Unauthorized' });
    // GET with query string and urlencoded POST both work with the right token.
    expect(await (await fetch(`${tg.apiRoot}/bot${tg.token}/sendMessage?chat_id=2&text=q`)).json()).toMatchObject({ ok: true, result: { text: 'q', chat: { id: 2 } } });
    const form = await fetch(`${tg.apiRoot}/bot${tg.token}/sendMessage`, { method: 'POST', body: new URLSearchParams({ chat_id: '2', text: 'f', reply_markup: '{"inline_keyboard":[]}' }) });
    expect(await form.json()).toMatchObject({ ok: true, result: { text: 'f' } });
  });

  it('close() ends a held long poll promptly', async () => {
    const poll = api().getUpdates({ timeout: 30 }).then(() => 'resolved', () => 'rejected');
    await tg.waitFor(() => tg.requests.some((r) => r.method === 'getUpdates'));
    const t0 = Date.now();
    await tg.close();
    expect(await poll).toBe('resolved');
    expect(Date.now() - t0).toBeLessThan(1000);
    tg = await startTelegramServer(); // afterEach closes this one
  });
});
