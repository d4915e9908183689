// Voice on Signal: a voice note (AAC, as the apps record it, made here by espeak-ng and ffmpeg) is transcribed by a
// stand-in recogniser command (the real engines are tested in test/voice/), and a spoken answer goes out as an MP3
// marked as a voice note.
import { execFileSync } from 'node:child_process';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { ESPEAK_COMMAND, describeVoice, probe, speak } from '../../helpers/audio.js';
import { tempDir } from '../../helpers/app.js';
import { userTexts } from '../../helpers/channels.js';
import { OWNER, startSignalRig, type SignalRig } from '../../helpers/signal.js';
import { writeScript } from '../../voice/scripts.js';

const work = tempDir('familiar-signal-voice-');
const recogniser = writeScript(work, 'hear.sh', 'echo "water the plants at six"');

/** An AAC voice note in an ADTS stream, as Signal's apps send with audio/aac. */
function aacNote(): Buffer {
  return execFileSync('ffmpeg', ['-v', 'error', '-i', 'pipe:0', '-c:a', 'aac', '-b:a', '48k', '-f', 'adts', 'pipe:1'], { input: speak('water the plants') });
}

describeVoice('voice notes on Signal', () => {
  let rig: SignalRig;

  beforeEach(async () => {
    rig = await startSignalRig({ voice: { stt: { command: [recogniser, '{input}'] }, tts: { command: ESPEAK_COMMAND } } });
  });
  afterEach(async () => {
    await rig.close();
  });

  const toOwner = () => rig.signal.sentTo({ recipient: OWNER.number ?? '' });

  it('a voice note (an audio/aac attachment without a file name) becomes the person\'s words, marked as transcribed', async () => {
    rig.llm.script({ content: 'Noted.' });
    rig.signal.sendUserMessage({ from: OWNER, attachments: [{ contentType: 'audio/aac', content: aacNote() }] });
    await rig.signal.waitFor(() => toOwner()[0], 30_000);
    expect(userTexts(rig.llm)[0]).toMatch(/^🎤 \(transcribed voice note\) water the plants at six\n\n.*voice-\d+-1\.aac \(audio\/aac, /s);
  }, 40_000);

  it('/voice on: the answer comes as text and as an MP3 sent as a voice note', async () => {
    rig.signal.sendUserMessage({ from: OWNER, text: '/voice on' });
    await rig.signal.waitFor(() => toOwner()[0]);
    rig.llm.script({ content: 'Good morning.' });
    rig.signal.sendUserMessage({ from: OWNER, text: 'hi' });
    const voice = await rig.signal.waitFor(() => toOwner().find((message) => message.attachments.length > 0), 30_000);
    expect(toOwner()[1]?.message).toBe('Good morning.');
    expect(voice.voiceNote).toBe(true);
    expect(voice.attachments[0]?.contentType).toBe('audio/mpeg');
    expect(probe(voice.attachments[0]?.bytes ?? Buffer.alloc(0))).toMatchObject({ codec: 'mp3' });
  }, 40_000);
});
