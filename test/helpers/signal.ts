import { startSignalCliServer, type FakeSignalCli, type Person } from '../fakes/signal-cli-server.js';
import { startOpenAiServer, startPlatformRig, type PlatformRig } from './platform-rig.js';

export const OWNER: Person = { number: '+4917000000001', uuid: '11111111-1111-4111-8111-111111111111', name: 'Owner' };
/** Allowed by UUID; hides their number (Signal's phone-number privacy), as most people do. */
export const FRIEND: Person = { uuid: '22222222-2222-4222-8222-222222222222', name: 'Friend' };
export const STRANGER: Person = { number: '+4917000000666', uuid: '66666666-6666-4666-8666-666666666666', name: 'Stranger' };
export const GROUP = 'Z3JvdXAtaWQtb2YtdGhlLWZhbWlseS1ncm91cC0wMDE=';

export interface SignalRig extends PlatformRig {
  signal: FakeSignalCli;
}

/** The daemon with `channels.signal` pointed at a fake signal-cli daemon, started; the owner listed by number, the friend by UUID. */
export async function startSignalRig(overrides: Record<string, unknown> = {}): Promise<SignalRig> {
  const [llm, signal] = await Promise.all([startOpenAiServer(), startSignalCliServer()]);
  const rig = await startPlatformRig(signal, llm, { signal: { url: signal.url, account: signal.account, allowed_users: [OWNER.number, FRIEND.uuid] } }, overrides);
  return Object.assign(rig, { signal });
}
