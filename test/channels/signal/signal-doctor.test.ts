import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignalChannel } from '../../../src/channels/signal/signal-channel.js';
import type { ChannelRouter } from '../../../src/channels/router.js';
import { createLogger } from '../../../src/log.js';
import { startSignalCliServer, type FakeSignalCli } from '../../fakes/signal-cli-server.js';

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

// The doctor and start-up checks use only signal-cli's RPC: no router is needed (nothing is received).
const channel = (url: string, account: string) => new SignalChannel({
  router: undefined as unknown as ChannelRouter, config: { url, account, allowed_users: [] }, log: createLogger({ level: 'silent', format: 'json', secrets: [] }),
});

describe('Signal doctor and start-up checks', () => {
  let signal: FakeSignalCli;
  beforeAll(async () => {
    signal = await startSignalCliServer();
  });
  afterAll(async () => {
    await signal.close();
  });

  it('says ok with signal-cli\'s version and the account when the daemon serves it', async () => {
    expect(await channel(signal.url, signal.account).doctor()).toEqual([{ status: 'ok', label: 'signal', detail: `signal-cli 0.14.6, account ${signal.account}` }]);
  });

  it('says how to start signal-cli when nothing listens at channels.signal.url', async () => {
    const port = await closedPort();
    const [line] = await channel(`http://127.0.0.1:${port}`, '+4915100000001').doctor();
    expect(line).toMatchObject({ status: 'fail', label: 'signal' });
    expect(line?.detail).toBe(`signal-cli not reachable at http://127.0.0.1:${port} (ECONNREFUSED); start it with: signal-cli -a +4915100000001 daemon --http 127.0.0.1:${port} --receive-mode on-connection`);
    expect(line?.fix).toContain('channels.signal.url');
  });

  it('says the account is not signal-cli\'s when the daemon serves another number', async () => {
    const [line] = await channel(signal.url, '+4915199999999').doctor();
    expect(line).toMatchObject({ status: 'fail', label: 'signal' });
    expect(line?.detail).toContain('does not know the account +4915199999999');
    expect(line?.fix).toContain('channels.signal.account');
  });

  it('refuses to start, with the fix, when signal-cli is not reachable', async () => {
    const port = await closedPort();
    await expect(channel(`http://127.0.0.1:${port}`, '+4915100000001').start()).rejects.toMatchObject({ code: 'SIGNAL_UNREACHABLE', message: expect.stringContaining('start it with: signal-cli -a +4915100000001 daemon') });
  });
});
