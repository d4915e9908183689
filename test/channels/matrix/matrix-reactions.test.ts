// Approvals and a reminder's buttons as reactions on Matrix; invites; encrypted rooms refused.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sleep } from '../../helpers/channels.js';
import { lastToolMessage, pendingReminders, sendCall, sendTool, type SentCall } from '../../helpers/chat-approvals.js';
import { OWNER_MX, bodies, startMatrixRig, type MatrixRig } from './matrix-rig.js';

describe('Matrix reactions, invites and encrypted rooms', () => {
  let rig: MatrixRig;
  let dm = '';
  let sent: SentCall[];

  beforeEach(async () => {
    rig = await startMatrixRig({
      setup: (matrix) => {
        dm = matrix.createRoom({ members: [OWNER_MX] });
      },
    });
    sent = [];
    rig.app.tools.register(sendTool(sent));
  });
  afterEach(async () => {
    await rig.close();
  });

  /** The bot's reactions on a message, by key. */
  const botReactions = (eventId: string): string[] => rig.matrix.sent
    .filter((event) => event.type === 'm.reaction' && (event.content['m.relates_to'] as { event_id?: string }).event_id === eventId)
    .map((event) => String((event.content['m.relates_to'] as { key?: string }).key));

  const question = () => rig.matrix.waitFor(() => rig.matrix.messagesIn(dm).find((event) => String(event.content['body']).startsWith('Approve this action?')));

  it('asks an approval as a plain message with ✅ and ❌ already added; the person\'s ✅ runs the tool and the question shows the outcome', async () => {
    rig.llm.script(sendCall(), { content: 'Sent it.' });
    rig.matrix.say(dm, OWNER_MX, 'tell Anna');
    const asked = await question();
    expect(asked.content['body']).toContain('\nto: "anna@example.org"');
    expect(asked.content['body']).toMatch(/React ✅ to approve or ❌ to deny\.$/);
    expect(asked.content['formatted_body']).toBeUndefined();
    await rig.matrix.waitFor(() => botReactions(asked.event_id).length === 2);
    expect(botReactions(asked.event_id)).toEqual(['✅', '❌']);
    rig.matrix.react(dm, OWNER_MX, asked.event_id, '✅️');
    await rig.matrix.waitFor(() => bodies(rig.matrix, dm).includes('Sent it.'));
    expect(sent).toEqual([{ to: 'anna@example.org', text: 'see you at 8' }]);
    const shown = await rig.matrix.waitFor(() => rig.matrix.messagesIn(dm).find((event) => event.event_id === asked.event_id && String(event.shown['body']).endsWith('✅ Approved by owner.')));
    expect(shown.shown['body']).not.toContain('React ✅');
    // The bot's own reactions are taken back once it is decided.
    await rig.matrix.waitFor(() => rig.matrix.sent.filter((event) => event.type === 'm.room.redaction').length === 2);
  });

  it('a ❌ denies: the tool does not run and the model is told', async () => {
    rig.llm.script(sendCall(), { content: 'OK, I did not send it.' });
    rig.matrix.say(dm, OWNER_MX, 'tell Anna');
    const asked = await question();
    rig.matrix.react(dm, OWNER_MX, asked.event_id, '❌');
    await rig.matrix.waitFor(() => bodies(rig.matrix, dm).includes('OK, I did not send it.'));
    expect(sent).toEqual([]);
    expect(lastToolMessage(rig.llm)).toMatch(/^ERROR: The call to send_message was not approved: the person said no\./);
  });

  it('a delivered reminder carries numbered reactions for Snooze and Done; the person\'s reaction presses the button', async () => {
    rig.llm.script({ toolCalls: [{ name: 'reminder_create', arguments: { title: 'Stretch', when: 'in 1 second' } }] }, { content: 'I will remind you.' });
    rig.matrix.say(dm, OWNER_MX, 'remind me');
    const reminder = await rig.matrix.waitFor(() => rig.matrix.messagesIn(dm).find((event) => String(event.content['body']).startsWith('⏰ Stretch')), 20_000);
    expect(reminder.content['body']).toBe('⏰ Stretch\n\n1️⃣ 💤 10 min   2️⃣ 💤 1 h   3️⃣ 💤 Tomorrow   4️⃣ ✅ Done');
    await rig.matrix.waitFor(() => botReactions(reminder.event_id).length === 4);
    rig.matrix.react(dm, OWNER_MX, reminder.event_id, '4️⃣');
    const edited = await rig.matrix.waitFor(() => rig.matrix.messagesIn(dm).find((event) => event.event_id === reminder.event_id && event.shown !== event.content));
    expect(edited.shown['body']).toMatch(/^⏰ Stretch\n\n1️⃣ 💤 10 min.*\n\n✅ Done\.?/s);
    expect(pendingReminders(rig.app)).toEqual([]);
  });

  it('joins a direct invite, and tells an encrypted room once that it cannot read it', async () => {
    const invited = rig.matrix.invite({ inviter: OWNER_MX, direct: true });
    await rig.matrix.waitFor(() => rig.matrix.requests.some((request) => request.path.endsWith(`/join/${invited}`)));
    const secret = rig.matrix.invite({ inviter: OWNER_MX, encrypted: true });
    const notice = await rig.matrix.waitFor(() => rig.matrix.messagesIn(secret)[0]);
    expect(notice.content['msgtype']).toBe('m.notice');
    expect(notice.content['body']).toMatch(/^This room is end-to-end encrypted, and I cannot read encrypted messages/);
    rig.matrix.post(secret, OWNER_MX, 'm.room.encrypted', { algorithm: 'm.megolm.v1.aes-sha2', ciphertext: 'AwgAEnAC…', sender_key: 'x', session_id: 'y', device_id: 'PHONE' });
    rig.matrix.say(secret, OWNER_MX, 'plain text in an encrypted room');
    await sleep(300);
    expect(rig.matrix.messagesIn(secret)).toHaveLength(1);
    expect(rig.llm.requests).toHaveLength(0);
  });

  it('says so once when a room it is in turns encryption on', async () => {
    rig.matrix.post(dm, OWNER_MX, 'm.room.encryption', { algorithm: 'm.megolm.v1.aes-sha2' }, '');
    const notice = await rig.matrix.waitFor(() => rig.matrix.messagesIn(dm)[0]);
    expect(notice.content['body']).toMatch(/end-to-end encrypted/);
    expect(rig.matrix.requests.some((request) => request.path.endsWith('/leave'))).toBe(false);
  });
});
