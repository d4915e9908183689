// `familiar start` with Matrix, as a person runs it: matrix-js-sdk leaves a ref'd 110 s timer behind every request it
// made, so a stopped daemon used to stay alive that long after "stopped" (systemd kills a stop after 90 s).
import { afterEach, describe, expect, it } from 'vitest';
import { startMatrixServer, type FakeMatrix } from '../../fakes/matrix-server.js';
import { startOpenAiServer, type FakeOpenAI } from '../../fakes/openai-server.js';
import { tempDir, writeTestConfig } from '../../helpers/app.js';
import { startDaemon } from '../../helpers/daemon.js';
import { OWNER_MX } from './matrix-rig.js';

let llm: FakeOpenAI | undefined;
let matrix: FakeMatrix | undefined;
afterEach(async () => {
  await Promise.all([llm?.close(), matrix?.close()]);
});

describe('familiar start with Matrix', () => {
  it('answers in a room, and exits once stopped (the SDK\'s leftover timers do not hold the process)', async () => {
    llm = await startOpenAiServer();
    matrix = await startMatrixServer();
    llm.handle(() => ({ content: 'Hello from the daemon.' }));
    const room = matrix.createRoom({ members: [OWNER_MX] });
    const dir = tempDir('familiar-matrix-process-');
    writeTestConfig(dir, llm, {
      log: { level: 'info', format: 'json' },
      channels: { matrix: { homeserver_url: matrix.baseUrl, access_token: matrix.accessToken, allowed_users: [OWNER_MX] } },
    });
    const daemon = startDaemon(dir, { TEST_LLM_KEY: llm.apiKey });
    await daemon.ready;
    const fake = matrix;
    fake.say(room, OWNER_MX, 'hello?');
    await expect.poll(() => fake.messagesIn(room).map((event) => String(event.shown['body'])), { timeout: 20_000 }).toContain('Hello from the daemon.');
    // The test's own timeout (30 s) is far below the 110 s the timers would hold it.
    expect(await daemon.term()).toBe(0);
    expect(daemon.stderr()).toContain('"msg":"stopped"');
  });
});
