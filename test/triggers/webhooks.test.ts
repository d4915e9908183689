import { createHmac, randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Daemon } from '../../src/daemon.js';
import { TriggerInbox } from '../../src/triggers/inbox.js';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { makeTestApp } from '../helpers/app.js';
import { githubExample as example, githubHeaders as signed } from '../helpers/github-examples.js';

// One daemon (in process, on http.listen) for the file: three routes, one per scheme, and a job per route.
const GITHUB_SECRET = 'It\'s a Secret to Everybody';
const STANDARD_SECRET = `whsec_${randomBytes(24).toString('base64')}`;
const HMAC_SECRET = 'generic-hmac-secret-0123456789';
const TOKEN = 'path-token-0123456789abcdef';
const githubHeaders = (body: string, event: string, delivery: string, secret = GITHUB_SECRET): Record<string, string> => signed(body, event, delivery, secret);

describe('webhook triggers', () => {
  let fake: FakeOpenAI;
  let app: Daemon;
  let base: string;
  let inbox: TriggerInbox;

  const post = (route: string, body: string, headers: Record<string, string>, token = TOKEN): Promise<Response> =>
    fetch(`${base}/hooks/${route}/${token}`, { method: 'POST', body, headers });
  const runs = (jobId: string) => app.scheduler.runs(jobId);
  const settled = (jobId: string, count: number) => expect.poll(() => runs(jobId).filter((run) => run.status !== 'running').length, { timeout: 10_000 }).toBe(count);

  beforeAll(async () => {
    fake = await startOpenAiServer();
    fake.handle(() => ({ content: 'done' }));
    ({ app } = await makeTestApp(fake, {
      http: { listen: '127.0.0.1:0' },
      heartbeat: { every: '30m' },
      triggers: {
        webhooks: {
          gh: { scheme: 'github', secret: GITHUB_SECRET, token: TOKEN },
          std: { scheme: 'standard', secret: STANDARD_SECRET, token: TOKEN },
          generic: { scheme: 'hmac', secret: HMAC_SECRET, token: TOKEN, header: 'x-sig', timestamp_header: 'x-ts', per_minute: 3 },
          unsigned: { scheme: 'hmac', token: TOKEN },
        },
      },
      scheduler: {
        jobs: [
          { id: 'on-push', trigger: { source: 'webhook:gh', match: 'github push' }, prompt: 'Tell me what was pushed.' },
          { id: 'on-std', trigger: { source: 'webhook:std' }, prompt: 'Say what happened.' },
        ],
      },
    }));
    await app.start();
    const address = app.httpAddress();
    base = `http://127.0.0.1:${address?.port}`;
    inbox = new TriggerInbox(app.db);
  });

  afterAll(async () => {
    await app.close();
    await fake.close();
  });

  it('runs the trigger job once for a signed GitHub push, with the payload as outside content', async () => {
    const body = example('push');
    const response = await post('gh', body, githubHeaders(body, 'push', 'delivery-push-1'));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'accepted' });
    await settled('on-push', 1);
    const run = runs('on-push')[0];
    expect(run).toMatchObject({ trigger: 'trigger', status: 'ok' });
    const prompt = JSON.stringify(fake.requests.at(-1)?.body.messages);
    expect(prompt).toContain('comes from outside');
    expect(prompt).toContain('webhook:gh');
  });

  it('answers a replayed delivery 200 as a duplicate and runs nothing more', async () => {
    const body = example('push');
    const response = await post('gh', body, githubHeaders(body, 'push', 'delivery-push-1'));
    expect(await response.json()).toEqual({ status: 'duplicate' });
    // A duplicate is not handed to the scheduler at all: nothing can be in flight for it.
    expect(runs('on-push')).toHaveLength(1);
  });

  it('refuses a body signed with another secret with 401 and keeps nothing', async () => {
    const body = example('push', 1);
    const response = await post('gh', body, githubHeaders(body, 'push', 'delivery-forged', 'not the secret'));
    expect(response.status).toBe(401);
    expect(inbox.get('webhook:gh:delivery-forged')).toBeUndefined();
  });

  it('answers a wrong path token with 404', async () => {
    const body = example('push');
    const response = await post('gh', body, githubHeaders(body, 'push', 'delivery-token'), 'wrong-token-0123456789abcdef');
    expect(response.status).toBe(404);
  });

  it('leaves an event the job does not match to the inbox probe', async () => {
    const body = example('issues');
    expect((await post('gh', body, githubHeaders(body, 'issues', 'delivery-issue-1'))).status).toBe(200);
    await expect.poll(() => inbox.get('webhook:gh:delivery-issue-1')?.dispatchedAt, { timeout: 5000 }).toBeDefined();
    expect(inbox.get('webhook:gh:delivery-issue-1')?.jobs).toEqual([]);
    expect(inbox.unclaimedSince(0).map((item) => item.id)).toContain('webhook:gh:delivery-issue-1');
  });

  it('has the heartbeat report a trigger no job took once, as outside content', async () => {
    const first = await app.heartbeat.beat({ force: true });
    expect(first).toMatchObject({ kind: 'reported', items: 1 });
    const prompt = JSON.stringify(fake.requests.at(-1)?.body.messages);
    expect(prompt).toContain('trigger webhook:gh: webhook gh: github issues');
    expect(prompt).toContain('comes from outside');
    expect((await app.heartbeat.beat({ force: true })).kind).toBe('idle');
  });

  it('accepts a Standard Webhooks delivery signed by the reference library', async () => {
    const body = JSON.stringify({ type: 'invoice.paid', data: { id: 'inv_1' } });
    const now = new Date();
    const signature = new Webhook(STANDARD_SECRET).sign('msg_1', now, body);
    const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': String(Math.floor(now.getTime() / 1000)), 'webhook-signature': signature };
    expect((await post('std', body, headers)).status).toBe(200);
    await settled('on-std', 1);
  });

  it('refuses a Standard Webhooks delivery older than the replay window with 401', async () => {
    const body = JSON.stringify({ type: 'invoice.paid' });
    const then = new Date(Date.now() - 10 * 60_000);
    const headers = { 'webhook-id': 'msg_old', 'webhook-timestamp': String(Math.floor(then.getTime() / 1000)), 'webhook-signature': new Webhook(STANDARD_SECRET).sign('msg_old', then, body) };
    expect((await post('std', body, headers)).status).toBe(401);
    expect(inbox.get('webhook:std:msg_old')).toBeUndefined();
  });

  it('accepts a generic HMAC over the timestamp and body, and refuses it once the route\'s rate is spent', async () => {
    const statuses: number[] = [];
    for (let index = 0; index < 4; index++) {
      const body = JSON.stringify({ n: index });
      const ts = String(Math.floor(Date.now() / 1000));
      const sig = createHmac('sha256', HMAC_SECRET).update(`${ts}.${body}`).digest('hex');
      statuses.push((await post('generic', body, { 'x-sig': `sha256=${sig}`, 'x-ts': ts, 'x-webhook-id': `g-${index}` })).status);
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
  });

  it('has doctor say which routes are ready and which have no secret', async () => {
    const lines = await app.parts.find((part) => part.name === 'triggers')?.doctor?.() ?? [];
    expect(lines.find((line) => line.label === 'webhook gh (github)')?.status).toBe('ok');
    expect(lines.find((line) => line.label === 'webhook unsigned (hmac)')).toMatchObject({ status: 'fail', detail: 'no secret: every request is refused' });
  });

  it('refuses every request to a route without a secret', async () => {
    expect((await post('unsigned', '{}', { 'x-signature': 'sha256=00' })).status).toBe(404);
  });
});
