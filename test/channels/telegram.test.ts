import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AnyTool } from '../../src/tools/types.js';
import { parseHtml } from '../fakes/telegram-server.js';
import { FRIEND_TG, OWNER_TG, sleep, startChannelRig, userTexts, type ChannelRig } from '../helpers/channels.js';

const textsTo = (rig: ChannelRig, chatId: number): string[] => rig.telegram.messagesTo(chatId).map((message) => message.text ?? '');

describe('Telegram channel (grammy against the fake Bot API)', () => {
  let rig: ChannelRig;

  beforeEach(async () => {
    rig = await startChannelRig({ which: ['telegram'] });
    rig.llm.handle((request) => {
      const user = request.body.messages.filter((message) => message.role === 'user').at(-1);
      return { content: `echo: ${typeof user?.content === 'string' ? user.content : '[parts]'}` };
    });
  });

  afterEach(async () => {
    await rig.close();
  });

  it('answers an allowed user with the model reply rendered as HTML', async () => {
    rig.llm.script({ content: 'Hello **there**.' });
    rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, text: 'hi' });
    const sent = await rig.telegram.waitFor(() => rig.telegram.messagesTo(OWNER_TG)[0]);
    expect(sent.parse_mode).toBe('HTML');
    expect(sent.raw_text).toBe('Hello <b>there</b>.');
    expect(sent.entities).toEqual([{ type: 'bold', offset: 6, length: 5 }]);
    expect(userTexts(rig.llm)).toEqual(['hi']);
  });

  it('shows the typing indicator while the turn runs', async () => {
    rig.llm.script({ content: 'done', delayMs: 300 });
    rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, text: 'slow one' });
    await rig.telegram.waitFor(() => rig.telegram.messagesTo(OWNER_TG)[0]);
    const typing = rig.telegram.chatActions.filter((action) => action.chat_id === OWNER_TG);
    expect(typing.length).toBeGreaterThanOrEqual(1);
    expect(typing[0]?.action).toBe('typing');
  });

  it('registers the chat commands with setMyCommands', () => {
    const names = rig.telegram.commands.map((command) => command.command);
    expect(names).toEqual(expect.arrayContaining(['help', 'reset', 'status', 'memory', 'stop']));
  });

  it('splits a 10 000-character answer with a code block into parts of at most 4096 with balanced fences', async () => {
    const code = '```python\n' + Array.from({ length: 250 }, (_, index) => `print("line ${index}")  # <tag> & more`).join('\n') + '\n```';
    const prose = Array.from({ length: 20 }, (_, index) => `Paragraph ${index} with **bold** words and some filler text to make it long.`).join('\n\n');
    const answer = `${prose}\n\n${code}\n\n${prose}`;
    expect(answer.length).toBeGreaterThan(10_000);
    rig.llm.script({ content: answer });
    rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, text: 'long please' });
    await rig.telegram.waitFor(() => textsTo(rig, OWNER_TG).join('\n').split('Paragraph 19').length === 3);
    const parts = rig.telegram.messagesTo(OWNER_TG);
    expect(parts.length).toBeGreaterThanOrEqual(3);
    for (const part of parts) {
      expect(part.parse_mode).toBe('HTML');
      expect(part.text?.length).toBeLessThanOrEqual(4096);
      // The fake parses each part like Telegram: unbalanced <pre> would have been refused.
      expect(() => parseHtml(part.raw_text ?? '')).not.toThrow();
      expect((part.raw_text?.match(/<pre>/g) ?? []).length).toBe((part.raw_text?.match(/<\/pre>/g) ?? []).length);
    }
    const codeLines = parts.flatMap((part) => (part.text ?? '').split('\n')).filter((line) => line.startsWith('print('));
    expect(codeLines).toHaveLength(250);
  });

  it('resends a part as plain text when Telegram refuses it with any 400, and loses no part', async () => {
    const refusals = [
      "Bad Request: can't parse entities: Unsupported start tag \"foo\" at byte offset 0",
      'Bad Request: message is too long',
      'Bad Request: message text is empty',
      'Bad Request: something no test foresaw',
    ];
    for (const [index, description] of refusals.entries()) {
      rig.telegram.failNext('sendMessage', { error_code: 400, description });
      rig.llm.script({ content: `A **bold** claim ${index}, \`&amp;\` kept.` });
      rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, text: `go ${index}` });
      const sent = await rig.telegram.waitFor(() => rig.telegram.messagesTo(OWNER_TG)[index]);
      expect(sent.parse_mode).toBeUndefined();
      expect(sent.text).toBe(`A bold claim ${index}, &amp; kept.`);
    }
    expect(textsTo(rig, OWNER_TG).some((text) => /Sorry/.test(text))).toBe(false);
  });

  it('shows code, addresses and empty-label links as meant, as Telegram parses them', async () => {
    rig.llm.script({ content: 'Use `&amp;` in XML. Mail [me](mailto:joe@example.org) or joe@example.org. See [](https://example.org/docs).' });
    rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, text: 'go' });
    const sent = await rig.telegram.waitFor(() => rig.telegram.messagesTo(OWNER_TG)[0]);
    expect(sent.parse_mode).toBe('HTML');
    expect(sent.text).toBe('Use &amp; in XML. Mail me (joe@example.org) or joe@example.org. See https://example.org/docs.');
    expect(sent.entities?.map((entity) => entity.type)).toEqual(['code', 'text_link']);
    expect(sent.entities?.find((entity) => entity.type === 'text_link')?.url).toBe('https://example.org/docs');
  });

  it('sends a reply that counts over 4096 once rendered in parts Telegram accepts', async () => {
    rig.llm.script({ content: Array.from({ length: 1500 }, () => '1. x').join('\n') });
    rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, text: 'count' });
    await rig.telegram.waitFor(() => textsTo(rig, OWNER_TG).join('\n').includes('1500. x'));
    for (const part of rig.telegram.messagesTo(OWNER_TG)) {
      expect(part.parse_mode).toBe('HTML');
      expect(part.text?.length).toBeLessThanOrEqual(4096);
    }
  });

  it('retries a send refused with 429, after retry_after', async () => {
    rig.telegram.failNext('sendMessage', { error_code: 429, description: 'Too Many Requests: retry after 1', retry_after: 1 });
    rig.llm.script({ content: 'patience' });
    rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, text: 'hi' });
    const sent = await rig.telegram.waitFor(() => rig.telegram.messagesTo(OWNER_TG)[0], 8000);
    expect(sent.text).toBe('patience');
    const attempts = rig.telegram.requests.filter((request) => request.method === 'sendMessage');
    expect(attempts).toHaveLength(2);
    expect((attempts[1]?.at ?? 0) - (attempts[0]?.at ?? 0)).toBeGreaterThanOrEqual(900);
  });

  it('runs two chats concurrently while one turn is slow', async () => {
    rig.llm.handle((request) => {
      const text = String(request.body.messages.filter((message) => message.role === 'user').at(-1)?.content);
      return text === 'slow' ? { content: 'slow answer', delayMs: 1500 } : { content: 'fast answer' };
    });
    rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, text: 'slow' });
    await rig.llm.waitForRequests(1);
    rig.telegram.sendUserMessage({ chatId: FRIEND_TG, userId: FRIEND_TG, text: 'fast' });
    await rig.telegram.waitFor(() => rig.telegram.messagesTo(OWNER_TG)[0], 8000);
    const order = rig.telegram.sent.map((message) => message.text);
    expect(order).toEqual(['fast answer', 'slow answer']);
  });

  it('answers three quick messages in one chat in order, one turn at a time', async () => {
    const delays: Record<string, number> = { one: 600, two: 50, three: 0 };
    rig.llm.handle((request) => {
      const text = String(request.body.messages.filter((message) => message.role === 'user').at(-1)?.content);
      return { content: `re: ${text}`, delayMs: delays[text] ?? 0 };
    });
    for (const text of ['one', 'two', 'three']) rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, text });
    await rig.telegram.waitFor(() => rig.telegram.messagesTo(OWNER_TG).length === 3, 8000);
    expect(textsTo(rig, OWNER_TG)).toEqual(['re: one', 're: two', 're: three']);
    expect(userTexts(rig.llm)).toEqual(['one', 'two', 'three']);
    // Each turn saw the previous one in its history: they did not overlap.
    const third = rig.llm.requests[2]?.body.messages.map((message) => message.content);
    expect(third).toEqual(expect.arrayContaining(['re: one', 're: two']));
  });

  it('answers a redelivered update once', async () => {
    const { updateId } = rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, text: 'first' });
    await rig.telegram.waitFor(() => rig.telegram.messagesTo(OWNER_TG)[0]);
    rig.telegram.redeliver(updateId);
    rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, text: 'second' });
    await rig.telegram.waitFor(() => rig.telegram.messagesTo(OWNER_TG)[1]);
    await sleep(200);
    expect(textsTo(rig, OWNER_TG)).toEqual(['echo: first', 'echo: second']);
    expect(userTexts(rig.llm)).toEqual(['first', 'second']);
  });

  it('answers a redelivered update once across a daemon restart', async () => {
    const { updateId } = rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, text: 'before restart' });
    await rig.telegram.waitFor(() => rig.telegram.messagesTo(OWNER_TG)[0]);
    await rig.restart();
    rig.llm.handle(() => ({ content: 'after' }));
    rig.telegram.redeliver(updateId);
    rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, text: 'after restart' });
    await rig.telegram.waitFor(() => rig.telegram.messagesTo(OWNER_TG)[1]);
    await sleep(200);
    expect(textsTo(rig, OWNER_TG)).toEqual(['echo: before restart', 'after']);
    expect(userTexts(rig.llm)).toEqual(['before restart', 'after restart']);
  });

  it('/stop ends a long turn, bypassing the queue', async () => {
    rig.llm.script({ hang: true });
    rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, text: 'think forever' });
    await rig.llm.waitForRequests(1);
    rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, text: '/stop' });
    const stopped = await rig.telegram.waitFor(() => rig.telegram.messagesTo(OWNER_TG)[0]);
    expect(stopped.text).toBe('Stopped.');
    expect(rig.llm.requests).toHaveLength(1);
    // The chat is free again.
    rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, text: 'next' });
    await rig.telegram.waitFor(() => rig.telegram.messagesTo(OWNER_TG)[1]);
    expect(textsTo(rig, OWNER_TG)[1]).toBe('echo: next');
  });

  it('answers /help, /status, /memory and /reset without calling the LLM', async () => {
    for (const text of ['/help', '/status', '/memory', '/reset']) rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, text });
    await rig.telegram.waitFor(() => rig.telegram.messagesTo(OWNER_TG).length === 4);
    const [help, status, memory, reset] = textsTo(rig, OWNER_TG);
    expect(help).toContain('/stop');
    expect(status).toMatch(/Model: gpt-test[\s\S]*Uptime:[\s\S]*Queue: [\s\S]*Tokens today: /);
    expect(memory).toMatch(/memory/i);
    expect(reset).toContain('new conversation');
    expect(rig.llm.requests).toHaveLength(0);
  });

  it('/reset starts a new conversation and keeps the old history', async () => {
    rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, text: 'remember apples' });
    await rig.telegram.waitFor(() => rig.telegram.messagesTo(OWNER_TG)[0]);
    const before = rig.app.conversations.resolve('telegram', String(OWNER_TG));
    rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, text: '/reset' });
    await rig.telegram.waitFor(() => rig.telegram.messagesTo(OWNER_TG)[1]);
    rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, text: 'what fruit?' });
    await rig.telegram.waitFor(() => rig.telegram.messagesTo(OWNER_TG)[2]);
    const last = rig.llm.requests.at(-1)?.body.messages.map((message) => message.content) ?? [];
    expect(last).not.toContain('remember apples');
    expect(rig.app.conversations.resolve('telegram', String(OWNER_TG))).not.toBe(before);
    expect(rig.app.conversations.count(before)).toBe(2);
  });

  it('sends unknown /commands to the agent as text', async () => {
    rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, text: '/weather Paris' });
    await rig.telegram.waitFor(() => rig.telegram.messagesTo(OWNER_TG)[0]);
    expect(userTexts(rig.llm)).toEqual(['/weather Paris']);
  });

  it('stores an uploaded document for the agent and sends a tool artifact back as a document', async () => {
    const tool: AnyTool = {
      name: 'make_report',
      description: 'Make a report file.',
      parameters: { type: 'object', properties: {}, additionalProperties: false },
      async execute() {
        return { success: true, output: 'report made', artifacts: [{ type: 'file', name: 'report.csv', content: 'a,b\n1,2\n' }, { type: 'json', name: 'data', content: '{"x":1}' }] };
      },
    };
    rig.app.tools.register(tool);
    rig.llm.script({ toolCalls: [{ name: 'make_report', arguments: {} }] }, { content: 'Here is your report.' });
    rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, caption: 'summarise this', document: { content: 'col1,col2\n3,4\n', fileName: 'input.csv', mimeType: 'text/csv' } });
    await rig.telegram.waitFor(() => rig.telegram.sent.filter((message) => message.method === 'sendDocument').length === 2);
    const prompt = userTexts(rig.llm)[0] ?? '';
    expect(prompt).toContain('summarise this');
    const line = /- input\.csv \(text\/csv, 14 B\): (\S+)/.exec(prompt);
    expect(line).not.toBeNull();
    const stored = line?.[1] ?? '';
    expect(stored).toMatch(/^uploads\/[a-z0-9]+-input\.csv$/);
    expect(readFileSync(path.join(rig.app.config.data_dir, 'workspaces', rig.app.conversations.resolve('telegram', String(OWNER_TG)), stored), 'utf8')).toBe('col1,col2\n3,4\n');
    const documents = rig.telegram.sent.filter((message) => message.method === 'sendDocument');
    expect(documents.map((message) => message.file?.fileName)).toEqual(['report.csv', 'data.json']);
    expect(documents[0]?.file?.bytes?.toString()).toBe('a,b\n1,2\n');
    expect(textsTo(rig, OWNER_TG)[0]).toBe('Here is your report.');
  });

  it('sends an image artifact as a photo', async () => {
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
    rig.app.tools.register({
      name: 'draw', description: 'Draw.', parameters: { type: 'object', properties: {} },
      async execute() {
        return { success: true, output: 'drawn', artifacts: [{ type: 'image', name: 'chart.png', content: png }] };
      },
    });
    rig.llm.script({ toolCalls: [{ name: 'draw', arguments: {} }] }, { content: 'Drawn.' });
    rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, text: 'draw' });
    const photo = await rig.telegram.waitFor(() => rig.telegram.sent.find((message) => message.method === 'sendPhoto'));
    expect(photo.file?.bytes?.equals(png)).toBe(true);
  });

  it('in groups answers only when mentioned or replied to', async () => {
    const group = -100500;
    rig.telegram.sendUserMessage({ chatId: group, userId: OWNER_TG, chatType: 'supergroup', text: 'just chatting' });
    rig.telegram.sendUserMessage({ chatId: group, userId: OWNER_TG, chatType: 'supergroup', text: '@familiar_test_bot what time is it' });
    const first = await rig.telegram.waitFor(() => rig.telegram.messagesTo(group)[0]);
    expect(first.text).toBe('echo: what time is it');
    expect(first.reply_to_message_id).toBe(2);
    rig.telegram.sendUserMessage({ chatId: group, userId: OWNER_TG, chatType: 'supergroup', text: 'and tomorrow?', replyToMessageId: first.message_id });
    await rig.telegram.waitFor(() => rig.telegram.messagesTo(group)[1]);
    expect(userTexts(rig.llm)).toEqual(['what time is it', 'and tomorrow?']);
  });

  it('gives the user a short message when the LLM fails, and keeps serving', async () => {
    rig.llm.script({ status: 500, error: 'upstream exploded' }, { status: 500 }, { status: 500 });
    rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, text: 'hello?' });
    const failure = await rig.telegram.waitFor(() => rig.telegram.messagesTo(OWNER_TG)[0]);
    expect(failure.text).toMatch(/^Sorry, I could not answer/);
    expect((failure.text ?? '').length).toBeLessThan(700);
    rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, text: 'again' });
    await rig.telegram.waitFor(() => rig.telegram.messagesTo(OWNER_TG)[1]);
    expect(textsTo(rig, OWNER_TG)[1]).toBe('echo: again');
  });
});

describe('Telegram photos with llm.vision', () => {
  it('gives the model an incoming photo as image content and as a stored file', async () => {
    const rig = await startChannelRig({ which: ['telegram'], overrides: { llm: { vision: true } } });
    try {
      const jpeg = Buffer.from('ffd8ffe000104a464946', 'hex');
      rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, caption: 'what is this?', photo: { content: jpeg } });
      await rig.telegram.waitFor(() => rig.telegram.messagesTo(OWNER_TG)[0]);
      const user = rig.llm.requests[0]?.body.messages.filter((message) => message.role === 'user').at(-1);
      const parts = user?.content as Array<{ type: string; text?: string; image_url?: { url: string } }>;
      expect(parts[0]?.text).toMatch(/what is this\?[\s\S]*photo-\d+\.jpg \(image\/jpeg, 10 B\)/);
      expect(parts[1]?.image_url?.url).toBe(`data:image/jpeg;base64,${jpeg.toString('base64')}`);
    } finally {
      await rig.close();
    }
  });
});
