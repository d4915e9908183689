import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSpeechServer, type FakeSpeechServer } from '../../fakes/speech-server.js';
import { pendingReminders, sendCall, sendTool, UNTIL, type SentCall } from '../../helpers/chat-approvals.js';
import { userTexts } from '../../helpers/channels.js';
import { OWNER_SL, pressSlack, slackButtons, startSlackRig, type SlackRig } from '../../helpers/slack.js';

// Approvals, a reminder's buttons and voice clips on Slack: the daemon against the fake Slack, speech to text and
// text to speech against the fake OpenAI audio API.
/** A second of tone as Slack's clips are recorded: Opus in WebM (ffmpeg, which the voice part needs anyway). */
function clip(): Buffer {
  return execFileSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=1', '-c:a', 'libopus', '-f', 'webm', '-'], { maxBuffer: 1 << 20 });
}

describe('Slack buttons and voice clips', () => {
  let rig: SlackRig;
  let speech: FakeSpeechServer;
  const sent: SentCall[] = [];

  beforeAll(async () => {
    speech = await startSpeechServer();
    rig = await startSlackRig({
      voice: {
        stt: { base_url: speech.baseUrl, api_key: speech.apiKey, max_retries: 0 },
        tts: { base_url: speech.baseUrl, api_key: speech.apiKey, max_retries: 0 },
      },
    });
    rig.app.tools.register(sendTool(sent));
  });
  afterAll(async () => {
    await rig.close();
    await speech.close();
  });

  const texts = (channel: string): string[] => rig.slack.messagesIn(channel).map((message) => message.text);

  it('asks with Approve and Deny buttons; the asker\'s Approve runs the tool and the buttons give way to the outcome', async () => {
    const channel = 'D0APPROVE1';
    rig.llm.script(sendCall(), { content: 'Sent it.' });
    rig.slack.sendUserMessage({ user: OWNER_SL, channel, text: 'tell Anna' });
    const question = await rig.slack.waitFor(() => rig.slack.messagesIn(channel).find((message) => slackButtons(message).length > 0));
    expect(question.text).toMatch(/^Approve this action\? send_message is a high-risk tool\./);
    expect(slackButtons(question).map((button) => [button.label, button.style])).toEqual([['Approve', 'primary'], ['Deny', 'danger']]);
    expect(sent).toEqual([]);
    pressSlack(rig.slack, question, 'Approve', OWNER_SL);
    await rig.slack.waitFor(() => texts(channel).includes('Sent it.'));
    expect(sent).toEqual([{ to: 'anna@example.org', text: 'see you at 8' }]);
    await rig.slack.waitFor(() => question.edits.length > 0);
    expect(question.text).toMatch(/✅ Approved by name-U0OWNER01\.$/);
    expect(slackButtons(question)).toEqual([]);
  });

  it('a delivered reminder carries Snooze and Done buttons; Snooze re-arms it and the message shows the outcome', async () => {
    const channel = 'D0REMIND01';
    rig.llm.script({ toolCalls: [{ name: 'reminder_create', arguments: { title: 'Stand up', when: 'in 1 second' } }] }, { content: 'I will remind you.' });
    rig.slack.sendUserMessage({ user: OWNER_SL, channel, text: 'remind me' });
    const reminder = await rig.slack.waitFor(() => rig.slack.messagesIn(channel).find((message) => message.text.startsWith('⏰ Stand up')), 20_000);
    expect(slackButtons(reminder).map((button) => button.label)).toEqual(['💤 10 min', '💤 1 h', '💤 Tomorrow', '✅ Done']);
    pressSlack(rig.slack, reminder, '1 h', OWNER_SL);
    await rig.slack.waitFor(() => reminder.edits.length > 0);
    expect(reminder.text).toMatch(new RegExp(String.raw`^⏰ Stand up\n\n💤 Snoozed until ${UNTIL}\.$`, 'u'));
    expect(slackButtons(reminder)).toEqual([]);
    const snoozed = pendingReminders(rig.app).find((job) => job.prompt === 'Stand up');
    expect(snoozed?.origin).toMatchObject({ channel: 'slack', chatId: channel });
  }, 25_000);

  it('a voice clip is transcribed and its words are the person\'s; /familiar voice on answers with an MP3 file too', async () => {
    const channel = 'D0VOICE001';
    speech.script('what is on my calendar');
    rig.llm.script({ content: 'Nothing today.' });
    rig.slack.sendUserMessage({ user: OWNER_SL, channel, files: [{ name: 'audio_message.webm', content: clip(), mimetype: 'audio/webm', subtype: 'slack_audio' }] });
    await rig.slack.waitFor(() => texts(channel)[0]);
    expect(userTexts(rig.llm).at(-1)).toMatch(/^🎤 \(transcribed voice clip\) what is on my calendar\n/);
    expect(speech.transcriptions).toHaveLength(1);

    rig.slack.slashCommand({ user: OWNER_SL, channel, command: '/familiar', text: 'voice on' });
    await rig.slack.waitFor(() => texts(channel)[1]);
    rig.llm.script({ content: 'Good morning.' });
    rig.slack.sendUserMessage({ user: OWNER_SL, channel, text: 'hi' });
    const audio = await rig.slack.waitFor(() => rig.slack.files.find((file) => file.channel === channel), 20_000);
    expect(audio.name).toMatch(/\.mp3$/);
    expect(speech.speeches.at(-1)?.input).toBe('Good morning.');
  }, 30_000);
});
