// Audio uploaded in the console is heard like a voice note (issue 21): espeak-ng speaks a phrase, the browser's form
// uploads it, pocketsphinx (voice.stt.command) transcribes it, and the model gets the transcript as the person's words.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { tempDir } from '../helpers/app.js';
import { PHRASES, describeVoice, oggOpus, pocketsphinxCommand, speak } from '../helpers/audio.js';
import { openEvents, startConsoleApp, type ConsoleApp } from '../helpers/console.js';
import { writeScript } from '../voice/scripts.js';

const work = tempDir('familiar-console-voice-');

describeVoice('console: audio uploads', () => {
  let fake: FakeOpenAI;
  let app: ConsoleApp | undefined;

  beforeEach(async () => {
    fake = await startOpenAiServer();
  });

  afterEach(async () => {
    await app?.app.close(0).catch(() => undefined);
    app = undefined;
    await fake.close();
  });

  async function upload(name: string, audio: Buffer): Promise<string> {
    if (!app) throw new Error('no app');
    const client = await app.login();
    const stream = await openEvents(client, 'chat');
    fake.script({ content: 'Noted.' });
    const form = new FormData();
    form.set('text', '');
    form.set('messageId', 'message-000001');
    form.append('files', new Blob([audio], { type: 'audio/ogg' }), name);
    const sent = await client.post('/console/chat/send', form, { Accept: 'application/json' });
    expect(sent.status).toBe(202);
    await stream.until((event) => event.data.kind === 'reply');
    stream.close();
    return String(fake.requests.at(-1)?.body.messages.at(-1)?.content);
  }

  it('transcribes an uploaded voice memo into the turn, and keeps the file', async () => {
    app = await startConsoleApp(fake, { voice: { stt: { command: pocketsphinxCommand(work) } } });
    const question = await upload('memo.ogg', oggOpus(speak(PHRASES[3])));
    expect(question).toContain(`[Transcript of memo.ogg:]\n${PHRASES[3]}`);
    expect(question).toMatch(/uploads\/[a-z0-9]+-memo\.ogg/);
  }, 90_000);

  it('says so in the turn when the engine fails, and keeps the file', async () => {
    const broken = writeScript(work, 'broken-stt.sh', 'echo "cannot open model" >&2\nexit 2');
    app = await startConsoleApp(fake, { voice: { stt: { command: [broken, '{input}'] } } });
    const question = await upload('memo.ogg', oggOpus(speak(PHRASES[0])));
    expect(question).toMatch(/\[memo\.ogg could not be transcribed: .+\. The file is kept\.\]/);
    expect(question).toMatch(/uploads\/[a-z0-9]+-memo\.ogg/);
  }, 90_000);
});
