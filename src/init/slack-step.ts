import type { Result } from '../lib/result.js';
import { SLACK_MEMBER_ID, type SetupFlags } from './flags.js';
import { SetupFailed } from './llm-step.js';
import type { SetupUi } from './ui.js';

export const SLACK_URL = 'https://slack.com/api/';

export interface SlackChoice {
  appToken: string;
  botToken: string;
  apiUrl: string;
  allowedUsers: string[];
}

export interface ExistingSlack {
  appToken?: string;
  botToken?: string;
  apiUrl?: string;
  allowedUsers: string[];
}

/** Slack: both tokens checked (auth.test, apps.connections.open), the person's member id asked (or left to pairing). */
export async function chooseSlack(ui: SetupUi, flags: SetupFlags, existing: ExistingSlack | undefined): Promise<SlackChoice | undefined> {
  const known = existing?.botToken !== undefined;
  const wanted = flags.slack.on ?? (ui.interactive ? await ui.confirm({ message: 'Talk to it on Slack?', initialValue: known }) : known);
  if (!wanted) return undefined;
  const apiUrl = (flags.slack.apiUrl ?? existing?.apiUrl ?? SLACK_URL).replace(/\/*$/, '/');
  if (ui.interactive && flags.slack.botToken === undefined) ui.note('Create the app from the manifest in docs/channels/slack.md (api.slack.com/apps → Create New App → From a manifest), install it to your workspace, then copy its two tokens.', 'Slack');
  let appToken = flags.slack.appToken ?? (await keep(ui, 'SLACK_APP_TOKEN', existing?.appToken, 'Slack app-level token (xapp-…: Basic Information → App-Level Tokens, scope connections:write)'));
  let botToken = flags.slack.botToken ?? (await keep(ui, 'SLACK_BOT_TOKEN', existing?.botToken, 'Slack bot token (xoxb-…: OAuth & Permissions → Bot User OAuth Token)'));
  for (;;) {
    const checked = await ui.progress('Checking the tokens with Slack', () => checkSlackTokens(appToken.trim(), botToken.trim(), apiUrl));
    if (checked.success) {
      ui.success(`Slack bot: ${checked.value}`);
      break;
    }
    if (!ui.interactive) throw new SetupFailed(`Slack: ${checked.error}`);
    ui.error(checked.error);
    appToken = await ui.password({ message: 'Slack app-level token (xapp-…)', validate: (value) => (value.trim() === '' ? 'paste the token' : undefined) });
    botToken = await ui.password({ message: 'Slack bot token (xoxb-…)', validate: (value) => (value.trim() === '' ? 'paste the token' : undefined) });
  }
  const choice = { appToken: appToken.trim(), botToken: botToken.trim(), apiUrl };
  if (flags.slack.users.length > 0) return { ...choice, allowedUsers: flags.slack.users };
  if (!ui.interactive) {
    if (!existing || existing.allowedUsers.length === 0) ui.warn('No --slack-user: nobody is allowed yet. DM the app, then approve the code it sends: familiar pairing approve CODE');
    return { ...choice, allowedUsers: existing?.allowedUsers ?? [] };
  }
  const typed = await ui.text({
    message: 'Your Slack member id (your profile → ⋮ → Copy member ID); empty = approve yourself later by pairing',
    initialValue: existing?.allowedUsers.join(',') ?? '',
    validate: (value) => (value.split(',').map((id) => id.trim()).every((id) => id === '' || SLACK_MEMBER_ID.test(id)) ? undefined : 'member ids look like U0123ABCD, separated by commas'),
  });
  return { ...choice, allowedUsers: typed.split(',').map((id) => id.trim()).filter((id) => id !== '') };
}

/** Both tokens with one cheap call each (plain fetch: the Slack libraries are not needed for two requests); the bot's name. */
export async function checkSlackTokens(appToken: string, botToken: string, apiUrl: string, fetchImpl: typeof fetch = fetch): Promise<Result<string>> {
  const call = async (method: string, token: string): Promise<{ ok?: boolean; error?: string; user?: string; team?: string }> => {
    const response = await fetchImpl(`${apiUrl}${method}`, { method: 'POST', headers: { Authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(10_000) });
    if (!response.ok) throw new Error(`Slack answered ${response.status}; try again, or check channels.slack.api_url`);
    return (await response.json()) as { ok?: boolean; error?: string };
  };
  try {
    const me = await call('auth.test', botToken);
    if (me.ok !== true) return { success: false, error: `Slack refused the bot token (${me.error ?? 'no reason'}): copy the Bot User OAuth Token (xoxb-…) again` };
    const socket = await call('apps.connections.open', appToken);
    if (socket.ok !== true) return { success: false, error: `Slack refused the app-level token (${socket.error ?? 'no reason'}): make one with scope connections:write (xapp-…), and turn Socket Mode on` };
    return { success: true, value: `${me.user ?? 'the bot'} in ${me.team ?? 'your workspace'}` };
  } catch (error) {
    return { success: false, error: error instanceof Error ? error.message : String(error) };
  }
}

async function keep(ui: SetupUi, variable: string, current: string | undefined, question: string): Promise<string> {
  if (current !== undefined && current !== '') {
    if (!ui.interactive) return current;
    if (await ui.confirm({ message: `Keep the ${variable} already in .env (…${current.slice(-4)})?`, initialValue: true })) return current;
  }
  if (!ui.interactive) throw new SetupFailed(`${variable} is not set: pass it with --slack-${variable === 'SLACK_APP_TOKEN' ? 'app' : 'bot'}-token`);
  return ui.password({ message: question, validate: (value) => (value.trim() === '' ? 'a token is needed (or press Ctrl-C to stop)' : undefined) });
}
