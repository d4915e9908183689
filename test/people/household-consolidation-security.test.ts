// A member's memory tidy-up through the running daemon (docs/household.md, Memory): Ben's writes on Telegram start
// his pass, which reads only his folder; the proposal comes to his direct chat; the owner's press there is refused,
// his own applies it to his files only.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FRIEND_TG, OWNER_TG, startChannelRig, type ChannelRig } from '../helpers/channels.js';

const ANN_SECRET = '- Door code 4711.\n';
const TIDY = 'You tidy a person';

describe('a member\'s memory consolidation in the running daemon', () => {
  let rig: ChannelRig;
  let bens: string;

  beforeAll(async () => {
    rig = await startChannelRig({
      which: ['telegram'],
      overrides: {
        people: { ann: { role: 'owner', ids: { telegram: [OWNER_TG] } }, ben: { role: 'member', ids: { telegram: [FRIEND_TG] } } },
        memory: { consolidate: 'propose', consolidate_after: 1 },
      },
    });
    const root = rig.app.config.memory_dir;
    writeFileSync(path.join(root, 'people/ann/profile.md'), ANN_SECRET);
    bens = path.join(root, 'people/ben');
    rig.llm.handle((request) => {
      const messages = request.body.messages;
      if (String(messages[0]?.content).startsWith(TIDY)) {
        return { content: JSON.stringify({ summary: 'Moved tea to drinks.md.', files: [{ path: 'drinks.md', content: '# Drinks\n\n- Likes green tea.\n' }] }) };
      }
      if (messages.at(-1)?.role === 'tool') return { content: 'Noted.' };
      return { toolCalls: [{ name: 'memory_write', arguments: { path: 'tea.md', content: '- Likes green tea.', mode: 'append' } }] };
    });
  });

  afterAll(async () => {
    await rig.close();
  });

  it('proposes in his direct chat from his files alone, refuses the owner\'s press, and applies on his', async () => {
    rig.telegram.sendUserMessage({ chatId: FRIEND_TG, userId: FRIEND_TG, text: 'remember I like green tea' });
    const proposal = await rig.telegram.waitFor(() => rig.telegram.messagesTo(FRIEND_TG).find((message) => message.text?.includes('Memory tidy-up proposed')));
    const asked = rig.llm.requests.filter((request) => String(request.body.messages[0]?.content).startsWith(TIDY));
    expect(asked).toHaveLength(1);
    expect(JSON.stringify(asked[0]?.body.messages)).toContain('Likes green tea');
    expect(JSON.stringify(asked[0]?.body.messages)).not.toContain('Door code');
    expect(rig.telegram.messagesTo(OWNER_TG).filter((message) => message.text?.includes('Memory tidy-up'))).toEqual([]);

    const apply = (proposal.reply_markup as { inline_keyboard: Array<Array<{ text: string; callback_data: string }>> }).inline_keyboard.flat().find((button) => button.text === 'Apply')?.callback_data ?? '';
    const owners = rig.telegram.pressButton({ chatId: FRIEND_TG, userId: OWNER_TG, messageId: proposal.message_id, data: apply });
    const refused = await rig.telegram.waitFor(() => rig.telegram.callbackAnswers.find((answer) => answer.callback_query_id === owners.callbackQueryId));
    expect(refused.text).toContain('Not yours');
    expect(existsSync(path.join(bens, 'drinks.md'))).toBe(false);

    const his = rig.telegram.pressButton({ chatId: FRIEND_TG, userId: FRIEND_TG, messageId: proposal.message_id, data: apply });
    await rig.telegram.waitFor(() => rig.telegram.callbackAnswers.find((answer) => answer.callback_query_id === his.callbackQueryId));
    expect(readFileSync(path.join(bens, 'drinks.md'), 'utf8')).toContain('Likes green tea');
    expect(readFileSync(path.join(rig.app.config.memory_dir, 'people/ann/profile.md'), 'utf8')).toBe(ANN_SECRET);
  });
});
