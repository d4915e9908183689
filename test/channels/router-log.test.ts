import { afterEach, describe, expect, it } from 'vitest';
import { OWNER_TG, startChannelRig, type ChannelRig } from '../helpers/channels.js';

// "Why doesn't it answer?": `familiar logs -f` at the default level shows each message coming in and each reply
// going out, with who and how long, never what was said.
describe('the channel log at info level', () => {
  let rig: ChannelRig;
  afterEach(async () => rig.close());

  it('has one line per message in and per reply out, without their text', async () => {
    rig = await startChannelRig({ which: ['telegram'] });
    const question = 'my private question about money';
    const answer = 'The secret answer is forty-two.';
    rig.llm.script({ content: answer });
    rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, text: question });
    await rig.telegram.waitFor(() => rig.telegram.messagesTo(OWNER_TG)[0]);
    // The line is written once Telegram confirmed the reply, a moment after the fake received it.
    await expect.poll(() => rig.t.logs.some((line) => line.includes('"reply out"'))).toBe(true);
    const lines = rig.t.logs.map((line) => JSON.parse(line) as { level: number; msg: string; [key: string]: unknown });
    const inbound = lines.filter((line) => line.msg === 'message in');
    const outbound = lines.filter((line) => line.msg === 'reply out');
    expect(inbound).toEqual([expect.objectContaining({ level: 30, channel: 'telegram', chatId: String(OWNER_TG), userId: String(OWNER_TG), chars: question.length })]);
    expect(outbound).toEqual([expect.objectContaining({ level: 30, channel: 'telegram', status: 'ok', chars: answer.length })]);
    const text = JSON.stringify([...inbound, ...outbound]);
    expect(text).not.toContain('private question');
    expect(text).not.toContain('forty-two');
  });
});
