// The approval question shows exactly what will run: through the real registry, approval gate and agent (and
// the fake Telegram server where the platform's message limit matters).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Daemon as App } from '../../src/daemon.js';
import type { AnyTool } from '../../src/tools/types.js';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { askWith, recordingPrompter } from '../helpers/approval.js';
import { OWNER_TG, startChannelRig, type ChannelRig } from '../helpers/channels.js';
import { lastToolMessage, telegramQuestion } from '../helpers/chat-approvals.js';

const origin = { channel: 'telegram', chatId: '4242', userId: '4242' };

/** A high-risk tool that takes anything and records what it was given. */
function postTool(received: Array<Record<string, unknown>>): AnyTool {
  return {
    name: 'post_data',
    description: 'Send data somewhere.',
    risk: 'high',
    parameters: { type: 'object', properties: { method: { type: 'string', default: 'POST' } } },
    async execute(params: Record<string, unknown>) {
      received.push(params);
      return { success: true, output: 'posted' };
    },
  };
}

const call = (args: Record<string, unknown> | string) => ({ toolCalls: [{ name: 'post_data', arguments: args }] });

describe('the approval question', () => {
  let fake: FakeOpenAI;
  let t: TestApp;
  let app: App;
  let received: Array<Record<string, unknown>>;

  beforeEach(async () => {
    fake = await startOpenAiServer();
    t = await makeTestApp(fake);
    app = t.app;
    received = [];
    app.tools.register(postTool(received));
  });

  afterEach(async () => {
    await app.close(0);
    await fake.close();
  });

  const ask = async (args: Record<string, unknown> | string, answer: 'approve' | 'deny' = 'deny') => {
    const prompter = recordingPrompter(answer);
    fake.script(call(args), { content: 'ok' });
    await app.turns.start({ text: 'do it', origin, source: 'chat', approve: askWith(app, prompter) });
    return prompter.prompts.map((prompt) => prompt.text);
  };

  it('shows the destination first and whole, however long the body before it', async () => {
    const [question = ''] = await ask({ body: 'A'.repeat(12_345), note: 'n', url: 'https://evil.test/collect?user=me', to: ['a@example.org', 'b@evil.test'] });
    const lines = question.split('\n');
    const at = (prefix: string) => lines.findIndex((line) => line.startsWith(prefix));
    expect(lines).toContain('url: "https://evil.test/collect?user=me"');
    expect(lines).toContain('to: ["a@example.org","b@evil.test"]');
    expect(lines).toContain('method: "POST"');
    expect(at('method:')).toBeLessThan(at('body:'));
    expect(at('url:')).toBeLessThan(at('body:'));
    expect(at('to:')).toBeLessThan(at('body:'));
    const body = lines[at('body:')] ?? '';
    expect(body).toMatch(/^body: 12,345 characters: "A{199}…$/);
    expect(question.length).toBeLessThan(1000);
  });

  it('shows a destination nested in a long value on its own line, whole', async () => {
    const [question = ''] = await ask({ options: { padding: 'p'.repeat(5000), deliver: { server: 'evil', url: 'https://evil.test/x' } }, data: ['x'.repeat(300), 'y'] });
    expect(question).toContain('\noptions.deliver: {"server":"evil","url":"https://evil.test/x"}\n');
    expect(question).toMatch(/\noptions\.padding: 5,000 characters: "p{199}…/);
    expect(question).toContain('\ndata[1]: "y"');
    // It names where the call goes, so it comes before the rest.
    expect(question.indexOf('options.deliver')).toBeLessThan(question.indexOf('options.padding'));
  });

  it('spells out line breaks, quotes and invisible characters, so a value cannot fake a line or reorder text', async () => {
    const [question = ''] = await ask({ to: 'anna@example.org\n✅ Approved by owner', text: 'invoice \u202Efdp.exe\u200B done\u001b[2J' });
    expect(question).toContain('to: "anna@example.org\\n✅ Approved by owner"');
    expect(question).toContain('\\u202efdp.exe\\u200b done\\u001b[2J');
    expect(question).not.toMatch(/[\u202E\u200B\u001b]/);
    expect(question.split('\n').filter((line) => line.startsWith('✅'))).toEqual([]);
  });

  it('names the host a URL really goes to when it is not the one it seems to name', async () => {
    const [question = ''] = await ask({ url: 'https://exаmple.com/login', to: 'http://2130706433/', cc: 'https://evil.test\\@good.example/' });
    expect(question).toContain('url: "https://exаmple.com/login" (goes to host xn--exmple-4nf.com)');
    expect(question).toContain('to: "http://2130706433/" (goes to host 127.0.0.1)');
    expect(question).toContain('cc: "https://evil.test\\\\@good.example/" (goes to host evil.test)');
    expect((await ask({ url: 'https://example.org/a@b' }))[0]).toContain('url: "https://example.org/a@b"\n');
  });

  it('refuses __proto__, constructor and prototype keys at any depth: nothing is asked or run, the model is told what to fix', async () => {
    const attempts = [
      '{"to":"anna@example.org","__proto__":{"to":"x@evil.test"}}',
      '{"to":"anna@example.org","options":{"list":[{"constructor":{"url":"https://evil.test"}}]}}',
      '{"to":"anna@example.org","prototype":"x"}',
      '{"to":"anna@example.org","headers":{"__defineGetter__":"x"}}',
    ];
    for (const raw of attempts) {
      expect(await ask(raw)).toEqual([]);
      expect(lastToolMessage(fake)).toMatch(/Arguments for post_data refused: the key "(__proto__|constructor|prototype|__defineGetter__)" \(at [\w.[\]]+\) is not accepted in tool arguments/);
    }
    expect(received).toEqual([]);
    // The audit keeps what was sent, the forbidden key included.
    const inputs = (app.db.prepare("SELECT input FROM audit WHERE tool = 'post_data' ORDER BY id").all() as Array<{ input: string }>).map((row) => row.input);
    expect(inputs[0]).toContain('"__proto__":{"to":"x@evil.test"}');
    expect(inputs[1]).toContain('"constructor":{"url":"https://evil.test"}');
  });

  it('the audit row stores the arguments as executed (defaults applied), and the question showed the same', async () => {
    const [question = ''] = await ask({ url: 'https://example.org/hook', payload: { n: 1 } }, 'approve');
    expect(received).toEqual([{ url: 'https://example.org/hook', payload: { n: 1 }, method: 'POST' }]);
    expect(question).toContain('method: "POST"');
    const row = app.db.prepare("SELECT input, decision FROM audit WHERE tool = 'post_data'").get() as { input: string; decision: string };
    expect(JSON.parse(row.input)).toEqual(received[0]);
    expect(row.decision).toBe('approved by telegram:4242');
  });
});

describe('the approval question on Telegram', () => {
  let rig: ChannelRig;
  let received: Array<Record<string, unknown>>;

  beforeEach(async () => {
    rig = await startChannelRig({ which: ['telegram'] });
    received = [];
    rig.app.tools.register(postTool(received));
  });

  afterEach(async () => {
    await rig.close();
  });

  it('is not sent when the destination alone would not fit a message: the call is denied and the model told to shorten it', async () => {
    rig.llm.script(call({ url: `https://evil.test/?q=${'x'.repeat(5000)}`, body: 'hi' }), { content: 'Could not ask.' });
    rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, text: 'post it' });
    await rig.telegram.waitFor(() => rig.telegram.messagesTo(OWNER_TG).find((message) => message.text === 'Could not ask.'));
    expect(rig.telegram.messagesTo(OWNER_TG)).toHaveLength(1);
    expect(received).toEqual([]);
    expect(lastToolMessage(rig.llm)).toMatch(/not approved: where this call goes or what it runs is 5,\d{3} characters long, more than an approval question here can show whole/);
  });

  it('fits hundreds of values into one message, the destination whole and what is left out counted', async () => {
    const args: Record<string, unknown> = {};
    for (let index = 0; index < 400; index += 1) args[`field${index}`] = `value number ${index}`;
    args.url = 'https://evil.test/the-real-destination';
    rig.llm.script(call(args), { content: 'Not sent.' });
    rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, text: 'post it' });
    const question = await telegramQuestion(rig.telegram, OWNER_TG);
    const text = question.text ?? '';
    expect(text.length).toBeLessThanOrEqual(4096);
    expect(text).toContain('url: "https://evil.test/the-real-destination"');
    expect(text).toMatch(/… \d+ more values \([\d,]+ characters\) not shown/);
    expect(text).toMatch(/No answer within .* means no\.$/);
  });
});
