import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { openEvents } from '../helpers/console.js';
import { pushesArrive, startPushRig, type PushRig } from '../helpers/push.js';

describe('console push notifications', () => {
  let fake: FakeOpenAI;
  let rig: PushRig;

  beforeEach(async () => {
    fake = await startOpenAiServer();
    rig = await startPushRig(fake);
  });

  afterEach(async () => {
    await rig.close();
    await fake.close();
  });

  async function send(text: string, messageId: string): Promise<void> {
    const sent = await rig.client.post('/console/chat/send', { text, messageId }, { Accept: 'application/json' });
    expect(sent.status).toBe(202);
  }

  it('pushes a reply nobody is watching exactly once, encrypted to the device, short and with secrets redacted', async () => {
    fake.script({ content: `Here is the key ${fake.apiKey} and ${'a long story '.repeat(40)}` });
    await send('tell me everything', 'message-push-001');
    await pushesArrive(rig.push, 1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(rig.push.received).toHaveLength(1);
    const [push] = rig.push.received;
    const payload = JSON.parse(push?.text ?? '{}') as { title: string; body: string; url: string };
    expect(payload.title).toBe('Familiar');
    expect(payload.body.startsWith('Here is the key [REDACTED] and a long story')).toBe(true);
    expect(payload.body.length).toBeLessThanOrEqual(200);
    expect(push?.text).not.toContain(fake.apiKey);
    expect(push?.ttl).toBeGreaterThan(0);
    expect(push?.urgency).toBe('normal');
    expect(push?.claims.aud).toBe(new URL(rig.device.endpoint).origin);
  });

  it('does not push a reply while a console page shows the chat', async () => {
    const stream = await openEvents(rig.client, 'chat');
    fake.script({ content: 'You are watching.' });
    await send('hello', 'message-push-002');
    await stream.until((event) => event.data.kind === 'reply');
    stream.close();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(rig.push.received).toHaveLength(0);
  });

  it('deletes the subscription when the push service answers 410 Gone', async () => {
    rig.push.answerWith(rig.device.endpoint, 410);
    fake.script({ content: 'Anyone there?' });
    await send('hello', 'message-push-003');
    const deadline = Date.now() + 5000;
    const count = () => (rig.app.app.db.prepare('SELECT count(*) AS n FROM push_subscriptions').get() as { n: number }).n;
    while (count() > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(count()).toBe(0);
  });

  it('forgets the device\'s subscription when its login logs out', async () => {
    const count = () => (rig.app.app.db.prepare('SELECT count(*) AS n FROM push_subscriptions').get() as { n: number }).n;
    expect(count()).toBe(1);
    const out = await rig.client.post('/console/logout', {});
    expect(out.status).toBe(303);
    expect(count()).toBe(0);
  });

  it('keeps the VAPID key pair in the database, made once', async () => {
    const rows = rig.app.app.db.prepare('SELECT public_key FROM push_keys').all() as Array<{ public_key: string }>;
    expect(rows).toHaveLength(1);
    const page = await rig.client.text('/console/health');
    expect(page).toContain(`data-key="${rows[0]?.public_key ?? ''}"`);
    expect(rig.app.app.db.prepare('SELECT count(*) AS n FROM push_keys').get()).toEqual({ n: 1 });
  });

  it('refuses a subscription whose endpoint is not https', async () => {
    const bad = { ...rig.device, endpoint: 'http://127.0.0.1:1/push/x' };
    const response = await rig.client.post('/console/push/subscribe', { subscription: JSON.stringify(bad) }, { Accept: 'application/json' });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: 'The subscription\'s endpoint must be an https URL.' });
  });
});
