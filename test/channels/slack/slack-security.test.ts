import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mayCarryToken } from '../../../src/channels/slack/slack-files.js';
import { sendCall, sendTool, type SentCall } from '../../helpers/chat-approvals.js';
import { sleep } from '../../helpers/channels.js';
import { CHANNEL_SL, FRIEND_SL, OWNER_SL, STRANGER_SL, pressSlack, slackButtons, startSlackRig, type SlackRig } from '../../helpers/slack.js';

describe('Slack: who may answer, and where the bot token goes', () => {
  let rig: SlackRig;
  const sent: SentCall[] = [];

  beforeAll(async () => {
    rig = await startSlackRig();
    rig.app.tools.register(sendTool(sent));
  });
  afterAll(async () => {
    await rig.close();
  });

  it('an approval pressed by someone else (even an allowed friend) is refused privately and changes nothing', async () => {
    const channel = 'C0SHARED01';
    rig.llm.script(sendCall(), { content: 'Sent it.' });
    const { ts } = rig.slack.sendUserMessage({ user: OWNER_SL, channel, text: `<@${rig.slack.botUserId}> tell Anna` });
    const question = await rig.slack.waitFor(() => rig.slack.messagesIn(channel, ts).find((message) => slackButtons(message).length > 0));
    const buttons = slackButtons(question);
    pressSlack(rig.slack, question, 'Approve', FRIEND_SL);
    pressSlack(rig.slack, question, 'Approve', STRANGER_SL);
    await rig.slack.waitFor(() => rig.slack.ephemerals.length >= 2);
    expect(rig.slack.ephemerals.map((message) => [message.user, message.text, message.threadTs])).toEqual([
      [FRIEND_SL, 'Not yours to answer: only the person who asked can approve this.', ts],
      [STRANGER_SL, 'Not yours to answer: only the person who asked can approve this.', ts],
    ]);
    expect(sent).toEqual([]);
    expect(question.edits).toEqual([]);
    // The asker's Deny counts; a later Approve finds the question closed (the first answer wins).
    pressSlack(rig.slack, question, 'Deny', OWNER_SL, buttons);
    await rig.slack.waitFor(() => question.edits.length > 0);
    pressSlack(rig.slack, question, 'Approve', OWNER_SL, buttons);
    await rig.slack.waitFor(() => rig.slack.ephemerals.find((message) => message.user === OWNER_SL));
    expect(rig.slack.ephemerals.at(-1)?.text).toBe('This request is no longer open.');
    expect(question.text).toMatch(/❌ Denied by name-U0OWNER01\.$/);
    expect(sent).toEqual([]);
  });

  it('a stranger\'s mention in a channel gets nothing, not even a pairing code', async () => {
    const requests = rig.llm.requests.length;
    const { ts } = rig.slack.sendUserMessage({ user: STRANGER_SL, channel: CHANNEL_SL, text: `<@${rig.slack.botUserId}> hello`, eventType: 'app_mention' });
    await sleep(300);
    expect(rig.slack.messagesIn(CHANNEL_SL, ts)).toEqual([]);
    expect(rig.llm.requests.length).toBe(requests);
  });

  it('the bot token goes only to Slack\'s hosts: a file address elsewhere is not fetched', () => {
    expect(mayCarryToken('https://files.slack.com/files-pri/T1-F1/download/a.txt', 'https://slack.com/api/')).toBe(true);
    expect(mayCarryToken('https://slack.com/files-pri/x', 'https://slack.com/api/')).toBe(true);
    expect(mayCarryToken('https://evil.example/files-pri/x', 'https://slack.com/api/')).toBe(false);
    expect(mayCarryToken('https://slack.com.evil.example/x', 'https://slack.com/api/')).toBe(false);
    expect(mayCarryToken('http://files.slack.com/x', 'https://slack.com/api/')).toBe(false);
    expect(mayCarryToken('not a url', 'https://slack.com/api/')).toBe(false);
  });
});
