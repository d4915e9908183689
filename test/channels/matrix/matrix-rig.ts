import type { Daemon as App } from '../../../src/daemon.js';
import { startMatrixServer, type FakeMatrix } from '../../fakes/matrix-server.js';
import { startOpenAiServer, type FakeOpenAI } from '../../fakes/openai-server.js';
import { makeTestApp, type TestApp } from '../../helpers/app.js';

export const OWNER_MX = '@owner:example.org';
export const FRIEND_MX = '@friend:example.org';
export const STRANGER_MX = '@stranger:example.org';

export interface MatrixRig {
  llm: FakeOpenAI;
  matrix: FakeMatrix;
  t: TestApp;
  app: App;
  /** Closes the app and builds + starts a new one on the same folder (a daemon restart). */
  restart(): Promise<App>;
  close(): Promise<void>;
}

/**
 * A daemon with only Matrix configured, pointed at the fake homeserver, started. The LLM echoes the last user
 * message unless a test scripts it. `setup` runs on the fake before the daemon starts (rooms, early messages).
 */
export async function startMatrixRig(options: { overrides?: Record<string, unknown>; setup?: (matrix: FakeMatrix) => void } = {}): Promise<MatrixRig> {
  const llm = await startOpenAiServer();
  const matrix = await startMatrixServer();
  options.setup?.(matrix);
  const channels = { matrix: { homeserver_url: matrix.baseUrl, user_id: matrix.botUserId, access_token: matrix.accessToken, allowed_users: [OWNER_MX, FRIEND_MX] } };
  const t = await makeTestApp(llm, { channels, ...options.overrides });
  llm.handle((request) => {
    const user = request.body.messages.filter((message) => message.role === 'user').at(-1);
    return { content: `echo: ${typeof user?.content === 'string' ? user.content : '[parts]'}` };
  });
  await t.app.start();
  const rig: MatrixRig = {
    llm, matrix, t, app: t.app,
    async restart() {
      await rig.app.close(2000);
      rig.app = await t.restart();
      await rig.app.start();
      return rig.app;
    },
    async close() {
      await rig.app.close(1000);
      await Promise.all([llm.close(), matrix.close()]);
    },
  };
  return rig;
}

/** The bodies of the bot's messages in a room, edits applied. */
export function bodies(matrix: FakeMatrix, roomId: string): string[] {
  return matrix.messagesIn(roomId).map((event) => String(event.shown['body']));
}
