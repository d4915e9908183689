// The console with the local push service: the daemon's HTTPS client (web-push uses Node's global agent) trusts
// the service's self-signed certificate, as it would trust a real push service's public one.
import https from 'node:https';
import type { FakeOpenAI } from '../fakes/openai-server.js';
import { startPushService, type FakePushService, type TestSubscription } from '../fakes/push-service.js';
import { startConsoleApp, type ConsoleApp, type ConsoleClient } from './console.js';

export interface PushRig {
  app: ConsoleApp;
  client: ConsoleClient;
  push: FakePushService;
  device: TestSubscription;
  close(): Promise<void>;
}

/** A started console, logged in, with one device subscribed through the console's own endpoint. */
export async function startPushRig(fake: FakeOpenAI): Promise<PushRig> {
  const push = await startPushService();
  const previous = https.globalAgent;
  https.globalAgent = new https.Agent({ ca: push.ca });
  const app = await startConsoleApp(fake);
  const client = await app.login();
  const device = push.subscribe();
  const response = await client.post('/console/push/subscribe', { subscription: JSON.stringify(device) }, { Accept: 'application/json' });
  if (response.status !== 200) throw new Error(`subscribe failed: ${response.status} ${await response.text()}`);
  return {
    app, client, push, device,
    async close() {
      await app.app.close(0).catch(() => undefined);
      await push.close();
      https.globalAgent = previous;
    },
  };
}

/** Waits until `count` pushes arrived (a push is sent after the reply, without the test being told). */
export async function pushesArrive(push: FakePushService, count: number, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (push.received.length < count) {
    if (Date.now() > deadline) throw new Error(`${push.received.length} push(es) arrived, not ${count}; refused: ${push.refused.join('; ')}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
