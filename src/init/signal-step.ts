import type { SetupFlags } from './flags.js';
import { SetupFailed } from './llm-step.js';
import type { SetupUi } from './ui.js';

export interface SignalChoice {
  url: string;
  account: string;
  allowedUsers: string[];
}

export interface ExistingSignal {
  url?: string;
  account?: string;
  allowedUsers: string[];
}

const SIGNAL_URL = 'http://127.0.0.1:8080';
const NUMBER = /^\+[1-9]\d{5,17}$/;
const PERSON = /^(?:\+[1-9]\d{5,17}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;

/**
 * Signal: the account signal-cli runs for and where its daemon listens (checked with GET /api/v1/check; a daemon
 * not running yet is only a warning: it may be started after), and who may talk to it (numbers or UUIDs).
 */
export async function chooseSignal(ui: SetupUi, flags: SetupFlags, existing: ExistingSignal | undefined): Promise<SignalChoice | undefined> {
  const wanted = flags.signal ?? (ui.interactive ? await ui.confirm({ message: 'Talk to it on Signal (through signal-cli, which you run)?', initialValue: existing !== undefined }) : existing !== undefined);
  if (!wanted) return undefined;
  const account = flags.signalAccount ?? (ui.interactive
    ? await ui.text({ message: 'The number signal-cli is registered or linked with (+4915…)', initialValue: existing?.account ?? '', validate: (value) => (NUMBER.test(value.trim()) ? undefined : 'a number in international form, +4915…') })
    : existing?.account);
  if (account === undefined || !NUMBER.test(account.trim())) throw new SetupFailed('Signal: give the account with --signal-account +4915… (the number signal-cli runs for)');
  const url = (flags.signalUrl ?? existing?.url ?? SIGNAL_URL).replace(/\/+$/, '');
  const reachable = await ui.progress(`Looking for signal-cli at ${url}`, () => check(url));
  if (reachable) ui.success(`signal-cli answers at ${url}.`);
  else ui.warn(`signal-cli does not answer at ${url} yet; start it with: signal-cli -a ${account.trim()} daemon --http ${new URL(url).host} --receive-mode on-connection (docs/channels/signal.md)`);
  let allowedUsers = flags.signalUser.length > 0 ? flags.signalUser : existing?.allowedUsers ?? [];
  if (flags.signalUser.length === 0 && ui.interactive) {
    const typed = await ui.text({
      message: 'Your Signal number (+4917…) or UUID, comma-separated for several; empty = approve yourself later by pairing',
      initialValue: allowedUsers.join(','),
      validate: (value) => (value.split(',').every((id) => id.trim() === '' || PERSON.test(id.trim())) ? undefined : 'numbers (+4917…) or UUIDs, separated by commas'),
    });
    allowedUsers = typed.split(',').map((id) => id.trim()).filter((id) => id !== '');
  }
  if (allowedUsers.length === 0) ui.warn('Nobody is allowed on Signal yet: message the bot, then approve the code it sends: familiar pairing approve CODE');
  return { url, account: account.trim(), allowedUsers };
}

async function check(url: string): Promise<boolean> {
  try {
    const response = await fetch(`${url}/api/v1/check`, { signal: AbortSignal.timeout(3000) });
    await response.body?.cancel();
    return response.ok;
  } catch {
    return false;
  }
}
