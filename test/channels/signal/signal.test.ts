import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sleep, userTexts } from '../../helpers/channels.js';
import { FRIEND, GROUP, OWNER, STRANGER, startSignalRig, type SignalRig } from '../../helpers/signal.js';

describe('Signal channel (against a fake signal-cli HTTP daemon)', () => {
  let rig: SignalRig;

  beforeEach(async () => {
    rig = await startSignalRig();
    rig.llm.handle((request) => {
      const user = request.body.messages.filter((message) => message.role === 'user').at(-1);
      return { content: `echo: ${typeof user?.content === 'string' ? user.content : '[parts]'}` };
    });
  });

  afterEach(async () => {
    await rig.close();
  });

  const toOwner = () => rig.signal.sentTo({ recipient: OWNER.number ?? '' });

  it('answers a direct message with Signal text styles, and shows typing while the turn runs', async () => {
    rig.llm.script({ content: 'Hello from **Signal**, see [the docs](https://example.org/docs) and `code`.', delayMs: 200 });
    rig.signal.sendUserMessage({ from: OWNER, text: 'hi' });
    const [answer] = await rig.signal.waitFor(() => toOwner().length > 0 && toOwner());
    expect(answer?.message).toBe('Hello from Signal, see the docs (https://example.org/docs) and code.');
    expect(answer?.textStyle).toEqual(['11:6:BOLD', '63:4:MONOSPACE']);
    expect(rig.signal.typing.some((event) => event.recipient?.includes(OWNER.number ?? ''))).toBe(true);
    expect(userTexts(rig.llm)).toEqual(['hi']);
  });

  it('knows a person listed by UUID who hides their number, and answers to the UUID', async () => {
    rig.signal.sendUserMessage({ from: FRIEND, text: 'hello' });
    const [answer] = await rig.signal.waitFor(() => rig.signal.sentTo({ recipient: FRIEND.uuid }).length > 0 && rig.signal.sentTo({ recipient: FRIEND.uuid }));
    expect(answer?.message).toBe('echo: hello');
  });

  it('splits a long answer into messages of at most 2000 bytes of UTF-8', async () => {
    const paragraph = 'Grüße aus Köln — ünïcödé text that takes more bytes than characters. '.repeat(12);
    rig.llm.script({ content: Array.from({ length: 5 }, () => paragraph).join('\n\n') });
    rig.signal.sendUserMessage({ from: OWNER, text: 'long please' });
    await rig.signal.waitFor(() => toOwner().length >= 3 && toOwner().map((message) => message.message).join('').length > 4000);
    await sleep(200);
    const parts = toOwner().map((message) => message.message);
    for (const part of parts) expect(Buffer.byteLength(part, 'utf8')).toBeLessThanOrEqual(2000);
    expect(parts.join(' ').replace(/\s+/g, ' ')).toBe(Array.from({ length: 5 }, () => paragraph).join(' ').replace(/\s+/g, ' ').trim());
  });

  it('gives a stranger the pairing answer and nothing reaches the model', async () => {
    rig.signal.sendUserMessage({ from: STRANGER, text: 'let me in' });
    const [answer] = await rig.signal.waitFor(() => rig.signal.sentTo({ recipient: STRANGER.uuid }).length > 0 && rig.signal.sentTo({ recipient: STRANGER.uuid }));
    expect(answer?.message).toMatch(/familiar pairing approve [A-Z0-9]+/);
    expect(rig.llm.requests).toHaveLength(0);
  });

  it('in a group answers only when mentioned or quoted, quoting the message it answers', async () => {
    rig.signal.sendUserMessage({ from: OWNER, groupId: GROUP, text: 'talking among ourselves' });
    const asked = rig.signal.sendUserMessage({ from: OWNER, groupId: GROUP, text: 'what is 2+2?', mentionsBot: true });
    const [answer] = await rig.signal.waitFor(() => rig.signal.sentTo({ groupId: GROUP }).length > 0 && rig.signal.sentTo({ groupId: GROUP }));
    expect(answer?.message).toBe('echo: what is 2+2?');
    expect(answer?.quote).toEqual({ timestamp: asked['timestamp'], author: OWNER.uuid });
    rig.signal.sendUserMessage({ from: OWNER, groupId: GROUP, text: 'and 3+3?', quote: { timestamp: answer?.timestamp ?? 0 } });
    await rig.signal.waitFor(() => rig.signal.sentTo({ groupId: GROUP })[1]);
    expect(userTexts(rig.llm)).toEqual(['what is 2+2?', 'and 3+3?']);
  });

  it('answers a message once when signal-cli delivers it twice, and again after a dropped stream', async () => {
    const envelope = rig.signal.sendUserMessage({ from: OWNER, text: 'once' });
    await rig.signal.waitFor(() => toOwner()[0]);
    rig.signal.emit(envelope);
    rig.signal.dropStreams();
    await rig.signal.waitFor(() => rig.signal.connections >= 2, 10_000);
    rig.signal.emit(envelope);
    rig.signal.sendUserMessage({ from: OWNER, text: 'twice' });
    await rig.signal.waitFor(() => toOwner()[1], 10_000);
    await sleep(200);
    expect(toOwner().map((message) => message.message)).toEqual(['echo: once', 'echo: twice']);
  });

  it('stores an attachment (fetched with getAttachment) and sends artifacts back as data: URIs', async () => {
    rig.app.tools.register({
      name: 'export', description: 'Export.', parameters: { type: 'object', properties: {} },
      async execute() {
        return { success: true, output: 'exported', artifacts: [{ type: 'json', name: 'result', content: '{"ok":true}' }] };
      },
    });
    rig.llm.script({ toolCalls: [{ name: 'export', arguments: {} }] }, { content: 'Exported.' });
    rig.signal.sendUserMessage({ from: OWNER, text: 'read this', attachments: [{ contentType: 'text/plain', filename: 'notes.txt', content: 'buy milk' }] });
    const withFile = await rig.signal.waitFor(() => toOwner().find((message) => message.attachments.length > 0));
    expect(withFile.attachments[0]).toMatchObject({ contentType: 'application/json', filename: 'result.json' });
    expect(withFile.attachments[0]?.bytes.toString()).toBe('{"ok":true}');
    expect(rig.signal.calls.find((call) => call.method === 'getAttachment')?.params).toMatchObject({ recipient: OWNER.uuid });
    const prompt = userTexts(rig.llm)[0] ?? '';
    const stored = /- notes\.txt \(text\/plain, 8 B\): (\S+)/.exec(prompt)?.[1] ?? '';
    expect(stored).toMatch(/^uploads\/[a-z0-9]+-notes\.txt$/);
    expect(readFileSync(path.join(rig.app.config.data_dir, 'workspaces', rig.app.conversations.resolve('signal', OWNER.number ?? ''), stored), 'utf8')).toBe('buy milk');
  });

  it('/stop ends a long turn without the model', async () => {
    rig.llm.script({ hang: true });
    rig.signal.sendUserMessage({ from: OWNER, text: 'long task' });
    await rig.llm.waitForRequests(1);
    rig.signal.sendUserMessage({ from: OWNER, text: '/stop' });
    await rig.signal.waitFor(() => toOwner()[0]);
    expect(toOwner()[0]?.message).toBe('Stopped.');
    expect(rig.llm.requests).toHaveLength(1);
  });

  it('ignores the account\'s own messages, receipts and typing', async () => {
    rig.signal.emit({ sourceNumber: rig.signal.account, sourceUuid: rig.signal.uuid, timestamp: 1, syncMessage: { sentMessage: { message: 'mine', timestamp: 1 } } });
    rig.signal.emit({ sourceNumber: OWNER.number, sourceUuid: OWNER.uuid, timestamp: 2, typingMessage: { action: 'STARTED', timestamp: 2 } });
    rig.signal.emit({ sourceNumber: OWNER.number, sourceUuid: OWNER.uuid, timestamp: 3, receiptMessage: { when: 3, isDelivery: true, isRead: false, isViewed: false, timestamps: [1] } });
    rig.signal.sendUserMessage({ from: OWNER, text: 'real' });
    await rig.signal.waitFor(() => toOwner()[0]);
    await sleep(100);
    expect(userTexts(rig.llm)).toEqual(['real']);
  });
});
