// A chat's messages keep their order from arrival to reply: a message still preparing (downloading its files) keeps
// its place, replies leave in message order, /stop reaches the turn that runs, and a chat with nothing in flight
// keeps no state.
import { describe, expect, it } from 'vitest';
import { ChatLines } from '../../src/turns/chat-line.js';

const chat = { channel: 'telegram', chatId: '1' };

describe('a chat\'s line', () => {
  it('lets a later message enter only after the earlier ones did, however long they take to prepare', async () => {
    const lines = new ChatLines(() => 'conv');
    const first = lines.enter(chat);
    const second = lines.enter(chat);
    const order: string[] = [];
    const later = second.inLine().then(() => order.push('second entered'));
    await first.inLine();
    await new Promise((resolve) => setTimeout(resolve, 20));
    order.push('first entered');
    first.entered();
    await later;
    expect(order).toEqual(['first entered', 'second entered']);
  });

  it('sends replies in message order even when a later one is ready first', async () => {
    const lines = new ChatLines(() => 'conv');
    const first = lines.enter(chat);
    const second = lines.enter(chat);
    const sent: string[] = [];
    const secondReply = second.reply(async () => {
      sent.push('second');
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(sent).toEqual([]);
    await first.reply(async () => {
      sent.push('first');
    });
    first.done();
    await secondReply;
    expect(sent).toEqual(['first', 'second']);
  });

  it('stops the running turn (the oldest message in flight), and says when nothing runs', () => {
    const lines = new ChatLines(() => 'conv');
    expect(lines.stop('telegram', '1')).toBe(false);
    const first = lines.enter(chat);
    const second = lines.enter(chat);
    expect(lines.waiting()).toBe(2);
    expect(lines.stop('telegram', '1')).toBe(true);
    expect(first.signal.aborted).toBe(true);
    expect(second.signal.aborted).toBe(false);
    first.done();
    second.done();
    expect(lines.waiting()).toBe(0);
    expect(lines.stop('telegram', '1')).toBe(false);
  });

  it('resolves the conversation once, or takes the one given', () => {
    let resolved = 0;
    const lines = new ChatLines(() => `conv-${++resolved}`);
    const ticket = lines.enter(chat);
    expect([ticket.conversation(), ticket.conversation()]).toEqual(['conv-1', 'conv-1']);
    expect(lines.enter(chat, 'given').conversation()).toBe('given');
  });
});
