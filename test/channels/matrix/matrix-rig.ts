import { startMatrixServer, type FakeMatrix } from '../../fakes/matrix-server.js';
import { startOpenAiServer, startPlatformRig, type PlatformRig } from '../../helpers/platform-rig.js';

export const OWNER_MX = '@owner:example.org';
export const FRIEND_MX = '@friend:example.org';
export const STRANGER_MX = '@stranger:example.org';

export interface MatrixRig extends PlatformRig {
  matrix: FakeMatrix;
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
  const rig = await startPlatformRig(matrix, llm, channels, options.overrides, () => llm.handle((request) => {
    const user = request.body.messages.filter((message) => message.role === 'user').at(-1);
    return { content: `echo: ${typeof user?.content === 'string' ? user.content : '[parts]'}` };
  }));
  return Object.assign(rig, { matrix });
}

/** The bodies of the bot's messages in a room, edits applied. */
export function bodies(matrix: FakeMatrix, roomId: string): string[] {
  return matrix.messagesIn(roomId).map((event) => String(event.shown['body']));
}
