// Who is heard on Matrix: an approval or a reminder's button counts only from the person it is for, in its room;
// strangers' invites to group rooms are declined and their words in groups never reach the model; the access token
// travels in a header only.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readMessage } from '../../../src/channels/matrix/matrix-inbound.js';
import { sleep } from '../../helpers/channels.js';
import { pendingReminders, sendCall, sendTool, type SentCall } from '../../helpers/chat-approvals.js';
import { FRIEND_MX, OWNER_MX, STRANGER_MX, bodies, startMatrixRig, type MatrixRig } from './matrix-rig.js';

describe('Matrix: who is heard', () => {
  let rig: MatrixRig;
  let dm = '';
  let group = '';
  let sent: SentCall[];

  beforeEach(async () => {
    rig = await startMatrixRig({
      setup: (matrix) => {
        dm = matrix.createRoom({ members: [OWNER_MX] });
        group = matrix.createRoom({ members: [OWNER_MX, FRIEND_MX, STRANGER_MX], name: 'Family' });
      },
    });
    sent = [];
    rig.app.tools.register(sendTool(sent));
  });
  afterEach(async () => {
    await rig.close();
  });

  it('an approval reaction by another member, a stranger, or from another room is ignored; the asker\'s counts', async () => {
    rig.llm.script(sendCall(), { content: 'Sent it.' });
    rig.matrix.say(group, OWNER_MX, 'familiar: tell Anna');
    const question = await rig.matrix.waitFor(() => rig.matrix.messagesIn(group).find((event) => String(event.content['body']).startsWith('Approve this action?')));
    rig.matrix.react(group, FRIEND_MX, question.event_id, '✅');
    rig.matrix.react(group, STRANGER_MX, question.event_id, '✅');
    // The asker's reaction, but sent into another room while naming the question's event: not the question's room.
    rig.matrix.react(dm, OWNER_MX, question.event_id, '✅');
    await sleep(400);
    expect(sent).toEqual([]);
    expect(rig.t.logs.filter((line) => line.includes('approval reaction by someone else ignored'))).toHaveLength(3);
    rig.matrix.react(group, OWNER_MX, question.event_id, '✅');
    await rig.matrix.waitFor(() => bodies(rig.matrix, group).includes('Sent it.'));
    expect(sent).toHaveLength(1);
  });

  it('a reminder\'s button reaction by a stranger changes nothing and gets no answer', async () => {
    rig.llm.script({ toolCalls: [{ name: 'reminder_create', arguments: { title: 'Take the pills', when: 'in 1 second' } }] }, { content: 'Will do.' });
    rig.matrix.say(dm, OWNER_MX, 'remind me');
    const reminder = await rig.matrix.waitFor(() => rig.matrix.messagesIn(dm).find((event) => String(event.content['body']).startsWith('⏰ Take the pills')), 20_000);
    const before = rig.matrix.sent.length;
    rig.matrix.react(dm, STRANGER_MX, reminder.event_id, '1️⃣');
    await sleep(400);
    expect(pendingReminders(rig.app)).toEqual([]);
    expect(rig.matrix.sent.slice(before).filter((event) => event.type === 'm.room.message')).toEqual([]);
  });

  it('declines a stranger\'s invite to a group room, and a stranger mentioning it in a group reaches nothing', async () => {
    const invited = rig.matrix.invite({ inviter: STRANGER_MX });
    await rig.matrix.waitFor(() => rig.matrix.requests.some((request) => request.path.endsWith(`/rooms/${invited}/leave`)));
    expect(rig.matrix.requests.some((request) => request.path.endsWith(`/join/${invited}`))).toBe(false);
    rig.matrix.say(group, STRANGER_MX, 'familiar: read me your notes', { mentions: [rig.matrix.botUserId] });
    await sleep(400);
    expect(rig.llm.requests).toHaveLength(0);
    expect(rig.matrix.messagesIn(group)).toEqual([]);
  });

  it('never puts the access token in a URL', async () => {
    const mxc = rig.matrix.putMedia(Buffer.from('x'), 'text/plain');
    rig.matrix.post(dm, OWNER_MX, 'm.room.message', { msgtype: 'm.file', body: 'a.txt', url: mxc, info: { mimetype: 'text/plain', size: 1 } });
    await rig.matrix.waitFor(() => bodies(rig.matrix, dm)[0]);
    expect(rig.matrix.requests.length).toBeGreaterThan(5);
    for (const request of rig.matrix.requests) expect(`${request.path}?${request.query.toString()}`).not.toContain(rig.matrix.accessToken);
  });

  it('takes a file only from an mxc:// address, so the token never goes to a server a sender names', () => {
    expect(readMessage({ msgtype: 'm.image', body: 'x.png', url: 'https://evil.example/x.png' })).toBeUndefined();
  });
});
