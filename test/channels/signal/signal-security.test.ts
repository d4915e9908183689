import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sleep } from '../../helpers/channels.js';
import { lastToolMessage, sendCall, sendTool, type SentCall } from '../../helpers/chat-approvals.js';
import { FRIEND, GROUP, OWNER, STRANGER, startSignalRig, type SignalRig } from '../../helpers/signal.js';

describe('Signal approvals by reaction: only the person asked decides', () => {
  let rig: SignalRig;
  let sent: SentCall[];

  beforeEach(async () => {
    rig = await startSignalRig();
    sent = [];
    rig.app.tools.register(sendTool(sent));
  });

  afterEach(async () => {
    await rig.close();
  });

  const question = (chat: { recipient: string } | { groupId: string }) =>
    rig.signal.waitFor(() => rig.signal.sentTo(chat).find((message) => message.message.endsWith('React 👍 to approve or 👎 to deny.')));

  it('ignores 👍 from another allowed person and from a stranger; the asker\'s 👍 approves and the question is edited', async () => {
    rig.llm.script(sendCall(), { content: 'Sent it.' });
    rig.signal.sendUserMessage({ from: OWNER, groupId: GROUP, text: 'tell Anna', mentionsBot: true });
    const asked = await question({ groupId: GROUP });
    expect(asked.textStyle).toEqual([]);
    rig.signal.react(FRIEND, '👍', asked.timestamp, GROUP);
    rig.signal.react(STRANGER, '👍', asked.timestamp, GROUP);
    await sleep(300);
    expect(sent).toEqual([]);
    expect(rig.signal.sent.filter((message) => message.editTimestamp !== undefined)).toEqual([]);
    rig.signal.react(OWNER, '👍🏽', asked.timestamp, GROUP);
    await rig.signal.waitFor(() => rig.signal.sentTo({ groupId: GROUP }).some((message) => message.message === 'Sent it.'));
    expect(sent).toEqual([{ to: 'anna@example.org', text: 'see you at 8' }]);
    const edit = rig.signal.sent.find((message) => message.editTimestamp === asked.timestamp);
    expect(edit?.message).toMatch(/✅ Approved by Owner\.$/);
    expect(edit?.message).not.toContain('React 👍');
  });

  it('does not take the asker\'s 👍 given in another chat (a reaction naming the question\'s timestamp)', async () => {
    rig.llm.script(sendCall(), { content: 'Not sent.' });
    rig.signal.sendUserMessage({ from: OWNER, text: 'tell Anna' });
    const asked = await question({ recipient: OWNER.number ?? '' });
    rig.signal.react(OWNER, '👍', asked.timestamp, GROUP);
    await sleep(300);
    expect(sent).toEqual([]);
    rig.signal.react(OWNER, '👎', asked.timestamp);
    await rig.signal.waitFor(() => rig.signal.sentTo({ recipient: OWNER.number ?? '' }).some((message) => message.message === 'Not sent.'));
    expect(sent).toEqual([]);
    expect(lastToolMessage(rig.llm)).toMatch(/was not approved/);
  });

  it('never hands a stranger\'s message or file to the model, and fetches no attachment for them', async () => {
    rig.signal.sendUserMessage({ from: STRANGER, text: 'read this', attachments: [{ contentType: 'text/plain', filename: 'x.txt', content: 'payload' }] });
    rig.signal.sendUserMessage({ from: STRANGER, groupId: GROUP, text: 'hey bot', mentionsBot: true });
    await rig.signal.waitFor(() => rig.signal.sentTo({ recipient: STRANGER.uuid })[0]);
    await sleep(200);
    expect(rig.llm.requests).toHaveLength(0);
    expect(rig.signal.calls.filter((call) => call.method === 'getAttachment')).toEqual([]);
    expect(rig.signal.sentTo({ groupId: GROUP })).toEqual([]);
  });
});
