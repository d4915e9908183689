// Files and voice on Matrix: uploads through /media/v3/upload, downloads through the authenticated media API, voice
// messages (m.audio with MSC3245's voice flag) transcribed by the fake speech endpoint, spoken answers sent back the
// same way. ffmpeg (the voice part's converter) makes and checks the audio.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { startSpeechServer, type FakeSpeechServer } from '../../fakes/speech-server.js';
import { userTexts } from '../../helpers/channels.js';
import { describeVoice, ffmpegPipe, probe } from '../../helpers/audio.js';
import { OWNER_MX, bodies, startMatrixRig, type MatrixRig } from './matrix-rig.js';

let speech: FakeSpeechServer;
beforeAll(async () => {
  speech = await startSpeechServer();
});
afterAll(async () => {
  await speech.close();
});

describeVoice('Matrix files and voice messages', () => {
  let rig: MatrixRig;
  let dm = '';

  beforeEach(async () => {
    rig = await startMatrixRig({
      setup: (matrix) => {
        dm = matrix.createRoom({ members: [OWNER_MX] });
      },
      overrides: {
        voice: {
          stt: { base_url: speech.baseUrl, api_key: speech.apiKey, max_retries: 0 },
          tts: { base_url: speech.baseUrl, api_key: speech.apiKey, max_retries: 0 },
        },
      },
    });
  });
  afterEach(async () => {
    await rig.close();
  });

  it('stores a file a person sends, downloaded through the authenticated media API', async () => {
    const mxc = rig.matrix.putMedia(Buffer.from('buy milk'), 'text/plain');
    rig.matrix.post(dm, OWNER_MX, 'm.room.message', { msgtype: 'm.file', body: 'read this', filename: 'notes.txt', url: mxc, info: { mimetype: 'text/plain', size: 8 } });
    await rig.matrix.waitFor(() => bodies(rig.matrix, dm)[0]);
    const prompt = userTexts(rig.llm)[0] ?? '';
    expect(prompt).toMatch(/^read this\n/);
    const stored = /- notes\.txt \(text\/plain, 8 B\): (\S+)/.exec(prompt)?.[1] ?? '';
    expect(stored).toMatch(/^uploads\/[a-z0-9]+-notes\.txt$/);
    expect(readFileSync(path.join(rig.app.config.data_dir, 'workspaces', rig.app.conversations.resolve('matrix', dm), stored), 'utf8')).toBe('buy milk');
    const download = rig.matrix.requests.find((request) => request.path.includes('/media/download/'));
    expect(download?.path).toMatch(/^\/_matrix\/client\/v1\/media\/download\/example\.org\//);
  });

  it('sends artifacts as uploaded files: an image as m.image, the rest as m.file', async () => {
    rig.app.tools.register({
      name: 'export', description: 'Export.', parameters: { type: 'object', properties: {} },
      async execute() {
        return {
          success: true, output: 'exported',
          artifacts: [{ type: 'json', name: 'result', content: '{"ok":true}' }, { type: 'image', name: 'chart.png', content: Buffer.from([0x89, 0x50, 0x4e, 0x47]) }],
        };
      },
    });
    rig.llm.script({ toolCalls: [{ name: 'export', arguments: {} }] }, { content: 'Exported.' });
    rig.matrix.say(dm, OWNER_MX, 'export please');
    await rig.matrix.waitFor(() => rig.matrix.messagesIn(dm).length >= 3);
    const [text, json, image] = rig.matrix.messagesIn(dm);
    expect(text?.content['body']).toBe('Exported.');
    expect(json?.content).toMatchObject({ msgtype: 'm.file', body: 'result.json', info: { mimetype: 'application/json', size: 11 } });
    expect(rig.matrix.media(String(json?.content['url']))?.toString()).toBe('{"ok":true}');
    expect(image?.content).toMatchObject({ msgtype: 'm.image', body: 'chart.png', info: { mimetype: 'image/png', size: 4 } });
    expect(rig.matrix.uploads.map((upload) => upload.fileName)).toEqual(['result.json', 'chart.png']);
  });

  it('transcribes a voice message and answers its words', async () => {
    speech.script('what is on my list today');
    // What is said does not matter here (the fake endpoint answers the scripted words): one second of tone, as a voice note.
    const note = ffmpegPipe(['-f', 'lavfi', '-i', 'sine=frequency=440:duration=1', '-ac', '1', '-ar', '48000', '-c:a', 'libopus', '-f', 'ogg', 'pipe:1'], Buffer.alloc(0));
    const mxc = rig.matrix.putMedia(note, 'audio/ogg');
    rig.matrix.post(dm, OWNER_MX, 'm.room.message', {
      msgtype: 'm.audio', body: 'Voice message', url: mxc, info: { mimetype: 'audio/ogg', size: note.length, duration: 2000 },
      'org.matrix.msc1767.audio': { duration: 2000, waveform: [] }, 'org.matrix.msc3245.voice': {},
    });
    await rig.matrix.waitFor(() => bodies(rig.matrix, dm)[0], 15_000);
    expect(userTexts(rig.llm)[0]).toMatch(/^🎤 \(transcribed voice note\) what is on my list today\n/);
  });

  it('/voice on: the answer comes as text and as a voice message (OGG/Opus, marked as voice)', async () => {
    rig.matrix.say(dm, OWNER_MX, '/voice on');
    await rig.matrix.waitFor(() => bodies(rig.matrix, dm)[0]);
    rig.llm.script({ content: 'Good morning.' });
    rig.matrix.say(dm, OWNER_MX, 'hi');
    const voice = await rig.matrix.waitFor(() => rig.matrix.messagesIn(dm).find((event) => event.content['msgtype'] === 'm.audio'), 15_000);
    expect(voice.content).toMatchObject({ body: 'Voice message', info: { mimetype: 'audio/ogg' }, 'org.matrix.msc3245.voice': {} });
    expect(probe(rig.matrix.media(String(voice.content['url'])) ?? Buffer.alloc(0))).toMatchObject({ formatName: 'ogg', codec: 'opus' });
    expect(bodies(rig.matrix, dm)[1]).toBe('Good morning.');
  });
});
