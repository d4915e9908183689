import type { Daemon as App } from '../../src/daemon.js';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { makeTestApp, type TestApp } from './app.js';

export interface PlatformRig {
  llm: FakeOpenAI;
  t: TestApp;
  app: App;
  /** Closes the app and builds + starts a new one on the same folder (a daemon restart). */
  restart(): Promise<App>;
  close(): Promise<void>;
}

/**
 * The daemon with one chat platform configured (`channels` pointed at its fake server), started; `close` closes the
 * daemon, the fake LLM and the platform's fake. `beforeStart` scripts the LLM or the fake before the daemon starts.
 */
export async function startPlatformRig(
  fake: { close(): Promise<void> }, llm: FakeOpenAI, channels: Record<string, unknown>, overrides: Record<string, unknown> = {},
  beforeStart?: () => void,
): Promise<PlatformRig> {
  const t = await makeTestApp(llm, { channels, ...overrides });
  beforeStart?.();
  await t.app.start();
  const rig: PlatformRig = {
    llm, t, app: t.app,
    async restart() {
      await rig.app.close(2000);
      rig.app = await t.restart();
      await rig.app.start();
      return rig.app;
    },
    async close() {
      await rig.app.close(1000);
      await Promise.all([llm.close(), fake.close()]);
    },
  };
  return rig;
}

export { startOpenAiServer };
