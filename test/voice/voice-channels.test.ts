// Voice end to end: the daemon with its channels pointed at the fake Telegram and Discord servers (real grammy and
// discord.js), espeak-ng making the voice notes, pocketsphinx transcribing them (voice.stt.command), espeak-ng
// speaking the answers (voice.tts.command), ffmpeg in between, ffprobe checking what arrives.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { OWNER_DC, OWNER_TG, startChannelRig, userTexts, type ChannelRig } from '../helpers/channels.js';
import { ESPEAK_COMMAND, PHRASES, decodedSeconds, describeVoice, mp3, oggOpus, pocketsphinxCommand, probe, recognise, speak, videoNote } from '../helpers/audio.js';
import { tempDir } from '../helpers/app.js';
import { writeScript } from './scripts.js';

const work = tempDir('familiar-voice-e2e-');
const voiceConfig = (extra: Record<string, unknown> = {}) => ({ voice: { stt: { command: pocketsphinxCommand(work) }, tts: { command: ESPEAK_COMMAND }, ...extra } });

/** Every file stored under the daemon's workspaces/<conversation>/uploads. */
function uploads(rig: ChannelRig): string[] {
  const root = path.join(rig.t.dir, 'data', 'workspaces');
  if (!existsSync(root)) return [];
  return readdirSync(root).flatMap((conversation) => {
    const dir = path.join(root, conversation, 'uploads');
    return existsSync(dir) ? readdirSync(dir).map((name) => path.join(dir, name)) : [];
  });
}

describeVoice('voice on Telegram (grammy against the fake Bot API)', () => {
  let rig: ChannelRig;

  beforeEach(async () => {
    rig = await startChannelRig({ which: ['telegram'], overrides: voiceConfig() });
  });
  afterEach(async () => {
    await rig.close();
  });

  it('a voice note made by espeak-ng comes back as a turn whose text holds the spoken words, marked as transcribed', async () => {
    rig.llm.script({ content: 'I will remind you.' });
    const note = oggOpus(speak(PHRASES[0]));
    rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, voice: { content: note, duration: 3 } });
    await rig.telegram.waitFor(() => rig.telegram.messagesTo(OWNER_TG)[0], 60_000);
    const [text] = userTexts(rig.llm);
    expect(text).toMatch(new RegExp(`^🎤 \\(transcribed voice note\\) ${PHRASES[0]}\\n\\n\\[The person sent these files; they are saved in this conversation's workspace:\\]\\n- voice-\\d+\\.ogg \\(audio/ogg, [\\d.]+ KB, the voice note transcribed above\\): uploads/[a-z0-9]+-voice-\\d+\\.ogg$`));
    // The audio is kept, byte for byte, in the conversation's workspace.
    const kept = uploads(rig);
    expect(kept).toHaveLength(1);
    expect(readFileSync(kept[0] ?? '')).toEqual(note);
    expect(rig.telegram.messagesTo(OWNER_TG).map((message) => message.text)).toEqual(['I will remind you.']);
  }, 90_000);

  it('a video note and an audio file are heard too', async () => {
    rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, videoNote: { content: videoNote(speak(PHRASES[3]), path.join(work, 'vn')), duration: 2 } });
    await rig.telegram.waitFor(() => rig.telegram.messagesTo(OWNER_TG)[0], 60_000);
    rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, audio: { content: mp3(speak(PHRASES[7])), duration: 2, fileName: 'memo.mp3' }, caption: 'from my walk' });
    await rig.telegram.waitFor(() => rig.telegram.messagesTo(OWNER_TG)[1], 60_000);
    const texts = userTexts(rig.llm);
    expect(texts[0]).toMatch(new RegExp(`^🎤 \\(transcribed video note\\) ${PHRASES[3]}\\n`));
    expect(texts[1]).toMatch(new RegExp(`^from my walk\\n\\n🎤 \\(transcribed audio file\\) ${PHRASES[7]}\\n`));
  }, 120_000);

  it('/voice on: the answer arrives as text and as a playable OGG/Opus voice message saying it', async () => {
    rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, text: '/voice on' });
    await rig.telegram.waitFor(() => rig.telegram.messagesTo(OWNER_TG)[0]);
    expect(rig.telegram.messagesTo(OWNER_TG)[0]?.text).toBe('Voice on — I speak every answer here (the text still comes too).');
    rig.llm.script({ content: 'Good morning, **how are you**?' });
    rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, text: 'hi' });
    const voice = await rig.telegram.waitFor(() => rig.telegram.messagesTo(OWNER_TG).find((message) => message.method === 'sendVoice'), 60_000);
    const sent = rig.telegram.messagesTo(OWNER_TG);
    expect(sent.map((message) => message.method)).toEqual(['sendMessage', 'sendMessage', 'sendVoice']);
    expect(sent[1]?.text).toBe('Good morning, how are you?');
    const audio = voice.file?.bytes ?? Buffer.alloc(0);
    expect(probe(audio)).toMatchObject({ formatName: 'ogg', codec: 'opus', channels: 1, sampleRate: 48000 });
    expect(decodedSeconds(audio)).toBeGreaterThan(1);
    expect(voice.duration).toBe(Math.max(1, Math.round(decodedSeconds(audio))));
    expect(recognise(audio, work)).toBe('good morning how are you');
    expect(rig.telegram.chatActions.some((action) => action.action === 'record_voice')).toBe(true);
  }, 90_000);

  it('"say it": the voice_reply tool speaks this answer only; the next one is text', async () => {
    rig.llm.script(
      { toolCalls: [{ name: 'voice_reply', arguments: {} }] },
      { content: 'What time is it?' },
      { content: 'Just text now.' },
    );
    rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, text: 'ask me the time, and say it' });
    const voice = await rig.telegram.waitFor(() => rig.telegram.messagesTo(OWNER_TG).find((message) => message.method === 'sendVoice'), 60_000);
    expect(recognise(voice.file?.bytes ?? Buffer.alloc(0), work)).toBe('what time is it');
    rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, text: 'thanks' });
    await rig.telegram.waitFor(() => rig.telegram.messagesTo(OWNER_TG).find((message) => message.text === 'Just text now.'), 30_000);
    expect(rig.telegram.messagesTo(OWNER_TG).map((message) => message.method)).toEqual(['sendMessage', 'sendVoice', 'sendMessage']);
  }, 90_000);

  it('/voice auto: a voice note is answered with voice, a typed message with text', async () => {
    rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, text: '/voice auto' });
    await rig.telegram.waitFor(() => rig.telegram.messagesTo(OWNER_TG)[0]);
    rig.llm.script({ content: 'Turn off the lights.' }, { content: 'Typed answer.' });
    rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, voice: { content: oggOpus(speak(PHRASES[5])), duration: 2 } });
    await rig.telegram.waitFor(() => rig.telegram.messagesTo(OWNER_TG).find((message) => message.method === 'sendVoice'), 60_000);
    rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, text: 'and now typed' });
    await rig.telegram.waitFor(() => rig.telegram.messagesTo(OWNER_TG).find((message) => message.text === 'Typed answer.'), 30_000);
    expect(rig.telegram.messagesTo(OWNER_TG).map((message) => message.method)).toEqual(['sendMessage', 'sendMessage', 'sendVoice', 'sendMessage']);
  }, 90_000);

  it('/voice shows the mode, the engines and the minutes used today', async () => {
    rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, voice: { content: oggOpus(speak(PHRASES[6])), duration: 2 } });
    await rig.telegram.waitFor(() => rig.telegram.messagesTo(OWNER_TG)[0], 60_000);
    rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, text: '/voice' });
    const status = await rig.telegram.waitFor(() => rig.telegram.messagesTo(OWNER_TG)[1]);
    expect(status.text).toMatch(/^Voice here: off — I answer in text \(say "say it" when you want to hear an answer\)\.\nVoice notes: I transcribe them\.\nToday: \d s heard, 0 s spoken of 60 min \(voice\.daily_minutes\)\.$/);
  }, 90_000);
});

describeVoice('voice failures on Telegram', () => {
  let rig: ChannelRig | undefined;
  afterEach(async () => {
    await rig?.close();
    rig = undefined;
  });

  it('a failed transcription tells the person, keeps the file, and runs no turn', async () => {
    const broken = writeScript(work, 'broken-stt.sh', 'echo "whisper: cannot open model /models/base.bin" >&2\nexit 2');
    rig = await startChannelRig({ which: ['telegram'], overrides: { voice: { stt: { command: broken } } } });
    const note = oggOpus(speak(PHRASES[1]));
    rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, voice: { content: note, duration: 2 } });
    const notice = await rig.telegram.waitFor(() => rig?.telegram.messagesTo(OWNER_TG)[0], 60_000);
    const kept = uploads(rig);
    expect(kept).toHaveLength(1);
    expect(notice.text).toBe(`I could not transcribe your voice note: the speech-to-text engine failed: ${broken} failed (exit 2): whisper: cannot open model /models/base.bin. It is kept in this conversation's workspace as uploads/${path.basename(kept[0] ?? '')}.`);
    expect(readFileSync(kept[0] ?? '')).toEqual(note);
    expect(rig.llm.requests).toHaveLength(0);
  }, 90_000);

  it('with a caption, the turn still runs, and the model knows the audio was not transcribed', async () => {
    rig = await startChannelRig({ which: ['telegram'], overrides: { voice: { stt: { command: pocketsphinxCommand(work) }, max_duration_s: 1 } } });
    rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, voice: { content: oggOpus(speak(PHRASES[0])), duration: 3 }, caption: 'listen to this' });
    await rig.telegram.waitFor(() => rig?.telegram.messagesTo(OWNER_TG)[1], 60_000);
    expect(rig.telegram.messagesTo(OWNER_TG)[0]?.text).toMatch(/^I could not transcribe your voice note: it is longer than 1 s, the longest I transcribe \(voice\.max_duration_s\)\. It is kept/);
    expect(userTexts(rig.llm)[0]).toMatch(/^listen to this\n\n\[The person sent these files; they are saved in this conversation's workspace:\]\n- voice-\d+\.ogg \(audio\/ogg, [\d.]+ KB, not transcribed: it is longer than 1 s, the longest I transcribe \(voice\.max_duration_s\)\): /);
  }, 90_000);

  it('without voice.stt a voice note is stored and the model is told it was not transcribed', async () => {
    rig = await startChannelRig({ which: ['telegram'] });
    rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, voice: { content: oggOpus(speak(PHRASES[2])), duration: 2 } });
    await rig.telegram.waitFor(() => rig?.telegram.messagesTo(OWNER_TG)[0], 30_000);
    expect(userTexts(rig.llm)[0]).toMatch(/^\[The person sent these files; they are saved in this conversation's workspace:\]\n- voice-\d+\.ogg \(audio\/ogg, [\d.]+ KB, not transcribed: speech to text is not set up \(voice\.stt\)\): /);
  }, 60_000);

  it('a spoken answer that cannot be made is said in one line after the text', async () => {
    const mute = writeScript(work, 'mute-tts.sh', 'cat >/dev/null\nexit 0');
    rig = await startChannelRig({ which: ['telegram'], overrides: { voice: { tts: { command: mute, chat_default: 'on' } } } });
    rig.llm.script({ content: 'Hello.' });
    rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, text: 'hi' });
    await rig.telegram.waitFor(() => rig?.telegram.messagesTo(OWNER_TG)[1], 30_000);
    expect(rig.telegram.messagesTo(OWNER_TG).map((message) => message.text)).toEqual(['Hello.', `(Not spoken: the text-to-speech engine failed: ${mute} printed no audio (write it to stdout, or put {output} in voice.tts.command).)`]);
  }, 60_000);
});

describeVoice('voice on Discord (discord.js against the fake gateway and REST)', () => {
  let rig: ChannelRig;

  beforeEach(async () => {
    rig = await startChannelRig({ which: ['discord'], overrides: voiceConfig({ tts: { command: ESPEAK_COMMAND, chat_default: 'on' } }) });
  });
  afterEach(async () => {
    await rig.close();
  });

  it('a voice message is transcribed, and the answer comes back as text and a playable MP3 attachment', async () => {
    rig.llm.script({ content: 'Play some music.' });
    const { channelId: dm } = rig.discord.sendUserMessage({ userId: OWNER_DC, content: '', dm: true, voiceMessage: true, attachments: [{ filename: 'voice-message.ogg', content: oggOpus(speak(PHRASES[4])), contentType: 'audio/ogg' }] });
    const attachment = await rig.discord.waitFor(() => rig.discord.messages.find((message) => message.channelId === dm && message.files.length > 0), 60_000);
    expect(userTexts(rig.llm)[0]).toMatch(new RegExp(`^🎤 \\(transcribed voice message\\) ${PHRASES[4]}\\n`));
    const texts = rig.discord.messages.filter((message) => message.channelId === dm && message.files.length === 0).map((message) => message.content);
    expect(texts).toEqual(['Play some music.']);
    expect(attachment.files[0]?.name).toBe('answer.mp3');
    const audio = attachment.files[0]?.bytes ?? Buffer.alloc(0);
    expect(probe(audio)).toMatchObject({ formatName: 'mp3', codec: 'mp3' });
    expect(recognise(audio, work)).toBe('play some music');
  }, 90_000);
});
