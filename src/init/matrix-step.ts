import { MATRIX_USER_ID } from '../config/matrix-schema.js';
import { errorMessage } from '../errors.js';
import type { Result } from '../lib/result.js';
import type { ExistingChannel } from './channel-steps.js';
import type { SetupFlags } from './flags.js';
import { SetupFailed } from './llm-step.js';
import type { SetupUi } from './ui.js';

export interface MatrixChoice {
  homeserver: string;
  token: string;
  /** The bot account the token belongs to. */
  userId: string;
  allowedUsers: string[];
}

/**
 * Checks an access token with GET /_matrix/client/v3/account/whoami (plain fetch: matrix-js-sdk is not needed for
 * one request). `unreachable`: the address is what to fix, not the token.
 */
export async function checkMatrixToken(token: string, homeserver: string, fetchImpl: typeof fetch = fetch): Promise<Result<{ userId: string }> & { unreachable?: boolean }> {
  const base = homeserver.replace(/\/+$/, '');
  let response: Response;
  try {
    response = await fetchImpl(`${base}/_matrix/client/v3/account/whoami`, { headers: { authorization: `Bearer ${token.trim()}` }, signal: AbortSignal.timeout(15_000) });
  } catch (error) {
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
    return { success: false, unreachable: true, error: `cannot reach ${base} (${errorMessage(cause)}): check the address (channels.matrix.homeserver_url)` };
  }
  if (response.status === 401 || response.status === 403) return { success: false, error: 'the homeserver refused this access token: copy it again (docs/channels/matrix.md shows how to get one)' };
  if (!response.ok) return { success: false, unreachable: true, error: `${base} answered ${response.status} to whoami: is it the homeserver's client API address?` };
  const me = (await response.json()) as { user_id?: unknown };
  if (typeof me.user_id !== 'string') return { success: false, error: 'the homeserver\'s answer named no user' };
  return { success: true, value: { userId: me.user_id } };
}

/** Matrix: the homeserver and the bot account's access token checked, then who may talk to it (or pairing later). */
export async function chooseMatrix(ui: SetupUi, flags: SetupFlags, existing: ExistingChannel | undefined): Promise<MatrixChoice | undefined> {
  const wanted = flags.matrix ?? (ui.interactive ? await ui.confirm({ message: 'Talk to it on Matrix?', initialValue: existing?.token !== undefined }) : existing?.token !== undefined);
  if (!wanted) return undefined;
  let homeserver = flags.matrixHomeserver ?? existing?.root ?? (ui.interactive ? await askHomeserver(ui, '') : undefined);
  if (homeserver === undefined) throw new SetupFailed('Matrix: pass the homeserver with --matrix-homeserver URL');
  let token = flags.matrixToken ?? existing?.token ?? (ui.interactive ? await askToken(ui) : undefined);
  if (token === undefined) throw new SetupFailed('MATRIX_ACCESS_TOKEN is not set: pass the bot account\'s access token with --matrix-token');
  let userId: string;
  for (;;) {
    const checked = await ui.progress(`Checking the access token with ${homeserver}`, () => checkMatrixToken(token ?? '', homeserver ?? ''));
    if (checked.success) {
      userId = checked.value.userId;
      break;
    }
    if (!ui.interactive) throw new SetupFailed(`Matrix: ${checked.error}`);
    ui.error(checked.error);
    if (checked.unreachable) homeserver = await askHomeserver(ui, homeserver);
    else token = await askToken(ui);
  }
  ui.success(`Matrix bot: ${userId}`);
  ui.note(`1. In Element, create a room with "Enable end-to-end encryption" turned OFF (the bot cannot read encrypted rooms).\n2. Invite ${userId}; it joins by itself.\n3. Write to it there; in a room with others, mention it.`, 'Matrix');
  const base = { homeserver: homeserver.replace(/\/+$/, ''), token: token.trim(), userId };
  if (flags.matrixUser.length > 0) return { ...base, allowedUsers: flags.matrixUser };
  if (!ui.interactive) {
    if (!existing || existing.allowedUsers.length === 0) ui.warn('No --matrix-user: nobody is allowed yet. Message the bot, then approve the code it sends: familiar pairing approve CODE');
    return { ...base, allowedUsers: existing?.allowedUsers ?? [] };
  }
  const typed = await ui.text({
    message: 'Your Matrix user id (@you:example.org; several separated by commas); empty = approve yourself later by pairing',
    initialValue: existing?.allowedUsers.join(',') ?? '',
    validate: (value) => (value.split(',').map((id) => id.trim()).every((id) => id === '' || MATRIX_USER_ID.test(id)) ? undefined : 'user ids look like @alice:example.org'),
  });
  return { ...base, allowedUsers: typed.split(',').map((id) => id.trim()).filter((id) => id !== '') };
}

async function askHomeserver(ui: SetupUi, current: string): Promise<string> {
  const answer = await ui.text({
    message: 'Your homeserver\'s address (Element: Settings → Help & About shows it)',
    initialValue: current || 'https://matrix.example.org',
    validate: (value) => (/^https?:\/\/[^\s/]+/.test(value.trim()) ? undefined : 'an http:// or https:// address'),
  });
  return answer.trim().replace(/\/+$/, '');
}

function askToken(ui: SetupUi): Promise<string> {
  return ui.password({
    message: 'The bot account\'s access token (log in as the bot in Element: Settings → Help & About → Access Token)',
    validate: (value) => (value.trim() === '' ? 'a token is needed (or press Ctrl-C to stop)' : undefined),
  });
}
