import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SlackChannel } from '../../../src/channels/slack/slack.js';
import { createLogger } from '../../../src/log.js';
import type { ChannelRouter } from '../../../src/channels/router.js';
import { sleep, userTexts } from '../../helpers/channels.js';
import { CHANNEL_SL, OWNER_DM, OWNER_SL, STRANGER_SL, startSlackRig, type SlackRig } from '../../helpers/slack.js';

describe('Slack channel (@slack/socket-mode and @slack/web-api against the fake Slack)', () => {
  let rig: SlackRig;

  beforeAll(async () => {
    rig = await startSlackRig();
  });
  afterAll(async () => {
    await rig.close();
  });
  beforeEach(() => {
    rig.llm.handle((request) => {
      const user = request.body.messages.filter((message) => message.role === 'user').at(-1);
      return { content: `echo: ${typeof user?.content === 'string' ? user.content : '[parts]'}` };
    });
  });

  const texts = (channel: string, threadTs?: string): string[] => rig.slack.messagesIn(channel, threadTs).map((message) => message.text);

  it('answers a direct message in mrkdwn, with link previews off, and acknowledges the envelope', async () => {
    rig.llm.script({ content: 'Hello from **Slack**, see [the docs](https://example.org/docs) & more.' });
    const { envelope } = rig.slack.sendUserMessage({ user: OWNER_SL, channel: OWNER_DM, text: 'hi' });
    const sent = await rig.slack.waitFor(() => rig.slack.messagesIn(OWNER_DM)[0]);
    expect(sent.text).toBe('Hello from \u200b*Slack*\u200b, see <https://example.org/docs|the docs> &amp; more.');
    expect(sent.unfurlLinks).toBe('false');
    expect(rig.slack.acks).toContain(envelope['envelope_id']);
    expect(userTexts(rig.llm).at(-1)).toBe('hi');
  });

  it('splits a long answer into messages of at most 4000 characters with balanced code fences', async () => {
    const code = '```js\n' + Array.from({ length: 300 }, (_, index) => `console.log(${index}); // a comment`).join('\n') + '\n```';
    rig.llm.script({ content: `Intro paragraph.\n\n${code}\n\nOutro.` });
    const channel = 'D0SPLIT001';
    rig.slack.sendUserMessage({ user: OWNER_SL, channel, text: 'code please' });
    await rig.slack.waitFor(() => texts(channel).at(-1)?.endsWith('Outro.'));
    const parts = texts(channel);
    expect(parts.length).toBeGreaterThanOrEqual(3);
    for (const part of parts) {
      expect(part.length).toBeLessThanOrEqual(4000);
      expect(part.split('\n').filter((line) => line.startsWith('```')).length % 2).toBe(0);
    }
  });

  it('never pings: a @channel or a member mention written by the model is shown as text', async () => {
    rig.llm.script({ content: 'Look <!channel> and <@U0SOMEONE> and <!subteam^S123>' });
    const channel = 'D0PING0001';
    rig.slack.sendUserMessage({ user: OWNER_SL, channel, text: 'ping them' });
    const sent = await rig.slack.waitFor(() => rig.slack.messagesIn(channel)[0]);
    expect(sent.text).not.toMatch(/<[!@]/);
    expect(sent.text).toContain('&lt;!channel&gt;');
  });

  it('gives a stranger in a direct message the pairing answer and nothing from the model', async () => {
    const requests = rig.llm.requests.length;
    rig.slack.sendUserMessage({ user: STRANGER_SL, channel: 'D0STRANGE', text: 'hello?' });
    const sent = await rig.slack.waitFor(() => rig.slack.messagesIn('D0STRANGE')[0]);
    expect(sent.text).toMatch(/familiar pairing approve [A-Z0-9]+/);
    expect(rig.llm.requests.length).toBe(requests);
  });

  it('in a channel answers only a mention, in the thread of the mention, and follows up in that thread', async () => {
    rig.slack.sendUserMessage({ user: OWNER_SL, channel: CHANNEL_SL, text: 'talking among ourselves' });
    const { ts } = rig.slack.sendUserMessage({ user: OWNER_SL, channel: CHANNEL_SL, text: `<@${rig.slack.botUserId}> what is 2+2?`, eventType: 'app_mention' });
    await rig.slack.waitFor(() => texts(CHANNEL_SL, ts)[0]);
    expect(texts(CHANNEL_SL, ts)).toEqual(['echo: what is 2+2?']);
    rig.slack.sendUserMessage({ user: OWNER_SL, channel: CHANNEL_SL, text: 'and 3+3?', threadTs: ts });
    await rig.slack.waitFor(() => texts(CHANNEL_SL, ts)[1]);
    expect(texts(CHANNEL_SL, ts)[1]).toBe('echo: and 3+3?');
    expect(texts(CHANNEL_SL)).toEqual([]);
    expect(userTexts(rig.llm)).not.toContain('talking among ourselves');
  });

  it('a mention delivered both as message and app_mention, or redelivered with retry_attempt, is answered once', async () => {
    const channel = 'C0DEDUPE01';
    const text = `<@${rig.slack.botUserId}> once please`;
    const { ts, envelope } = rig.slack.sendUserMessage({ user: OWNER_SL, channel, text });
    await rig.slack.waitFor(() => texts(channel, ts)[0]);
    rig.slack.redeliver(envelope);
    const mention = structuredClone(envelope);
    const event = (mention['payload'] as { event: Record<string, unknown> }).event;
    event['type'] = 'app_mention';
    delete event['channel_type'];
    rig.slack.redeliver(mention);
    rig.slack.sendUserMessage({ user: OWNER_SL, channel, text: 'then this', threadTs: ts });
    await rig.slack.waitFor(() => texts(channel, ts)[1]);
    await sleep(200);
    expect(texts(channel, ts)).toEqual(['echo: once please', 'echo: then this']);
  });

  it('ignores bot messages, its own and edits', async () => {
    const channel = 'D0IGNORE01';
    rig.slack.sendUserMessage({ user: OWNER_SL, channel, text: 'from a bot', botId: 'B0OTHER' });
    rig.slack.sendUserMessage({ user: rig.slack.botUserId, channel, text: 'my own' });
    rig.slack.sendUserMessage({ user: OWNER_SL, channel, text: 'edited', subtype: 'message_changed' });
    rig.slack.sendUserMessage({ user: OWNER_SL, channel, text: 'real' });
    await rig.slack.waitFor(() => texts(channel)[0]);
    await sleep(100);
    expect(texts(channel)).toEqual(['echo: real']);
  });

  it('stores a shared file for the agent (downloaded with the bot token) and sends artifacts back as uploads', async () => {
    rig.app.tools.register({
      name: 'export', description: 'Export.', parameters: { type: 'object', properties: {} },
      async execute() {
        return { success: true, output: 'exported', artifacts: [{ type: 'json', name: 'result', content: '{"ok":true}' }] };
      },
    });
    rig.llm.script({ toolCalls: [{ name: 'export', arguments: {} }] }, { content: 'Exported.' });
    const channel = 'D0FILES001';
    rig.slack.sendUserMessage({ user: OWNER_SL, channel, text: 'read this', files: [{ name: 'notes.txt', content: 'buy milk', mimetype: 'text/plain' }] });
    const file = await rig.slack.waitFor(() => rig.slack.files.find((candidate) => candidate.channel === channel));
    expect(file.name).toBe('result.json');
    expect(file.bytes.toString()).toBe('{"ok":true}');
    const prompt = userTexts(rig.llm).find((text) => text.startsWith('read this')) ?? '';
    const stored = /- notes\.txt \(text\/plain, 8 B\): (\S+)/.exec(prompt)?.[1] ?? '';
    expect(stored).toMatch(/^uploads\/[a-z0-9]+-notes\.txt$/);
    expect(readFileSync(path.join(rig.app.config.data_dir, 'workspaces', rig.app.conversations.resolve('slack', channel), stored), 'utf8')).toBe('buy milk');
  });

  it('answers chat commands given as /familiar, and /familiar stop ends a long turn', async () => {
    const channel = 'D0STOP0001';
    rig.llm.script({ hang: true });
    const requests = rig.llm.requests.length;
    rig.slack.sendUserMessage({ user: OWNER_SL, channel, text: 'long task' });
    await rig.llm.waitForRequests(requests + 1);
    rig.slack.slashCommand({ user: OWNER_SL, channel, command: '/familiar', text: 'status' });
    await rig.slack.waitFor(() => texts(channel)[0]);
    expect(texts(channel)[0]).toMatch(/Queue: 1 running/);
    rig.slack.slashCommand({ user: OWNER_SL, channel, command: '/familiar', text: 'stop' });
    await rig.slack.waitFor(() => texts(channel)[1]);
    expect(texts(channel)[1]).toBe('Stopped.');
    expect(rig.llm.requests.length).toBe(requests + 1);
  });

  it('reconnects when Slack asks it to (a disconnect message) and answers the next message', async () => {
    const connections = rig.slack.socket.connections;
    rig.slack.askToReconnect();
    await rig.slack.waitFor(() => rig.slack.socket.connections > connections, 10_000);
    const channel = 'D0RECON001';
    rig.slack.sendUserMessage({ user: OWNER_SL, channel, text: 'still there?' });
    await rig.slack.waitFor(() => texts(channel)[0]);
    expect(texts(channel)).toEqual(['echo: still there?']);
  }, 15_000);

  it('doctor: each token checked with a cheap call, a refused one named with its key', async () => {
    const log = createLogger({ level: 'silent', format: 'json', secrets: [] });
    const router = {} as ChannelRouter;
    const good = new SlackChannel({ router, log, config: { app_token: rig.slack.appToken, bot_token: rig.slack.botToken, api_url: rig.slack.apiUrl, allowed_users: [] } });
    expect(await good.doctor()).toEqual([
      { status: 'ok', label: 'slack: bot_token', detail: 'familiar in Fake Team' },
      { status: 'ok', label: 'slack: app_token', detail: 'Socket Mode connection offered' },
    ]);
    const bad = new SlackChannel({ router, log, config: { app_token: 'xapp-wrong', bot_token: 'xoxb-wrong', api_url: rig.slack.apiUrl, allowed_users: [] } });
    const lines = await bad.doctor();
    expect(lines.map((line) => [line.status, line.label, line.detail])).toEqual([
      ['fail', 'slack: bot_token', 'refused (invalid_auth)'],
      ['fail', 'slack: app_token', 'refused (invalid_auth)'],
    ]);
    expect(lines[0]?.fix).toContain('channels.slack.bot_token');
    expect(lines[1]?.fix).toContain('channels.slack.app_token');
  });
});
