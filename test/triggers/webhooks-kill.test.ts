// The trigger inbox of the real daemon process (`node dist/main.js start`; run `npm run build` first): a webhook
// acknowledged and then `kill -9` at once loses nothing, and its job runs once across the restart.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Sqlite } from '../../src/db/sqlite.js';
import { waitUntil } from '../helpers/daemon.js';
import { githubExample, githubHeaders } from '../helpers/github-examples.js';
import { freePort, useProcessRig } from '../helpers/rig.js';

const setUp = useProcessRig();
const SECRET = 'kill-test-webhook-secret';
const TOKEN = 'kill-test-path-token-0123456789';

describe('the trigger inbox across kill -9', () => {
  it('keeps a trigger acknowledged just before the kill, runs its job once after the restart, and a redelivery is a duplicate', async () => {
    const port = await freePort();
    const rig = await setUp({
      http: { listen: `127.0.0.1:${port}` },
      triggers: { webhooks: { gh: { scheme: 'github', secret: SECRET, token: TOKEN } } },
      scheduler: { jobs: [{ id: 'on-push', trigger: { source: 'webhook:gh' }, prompt: 'Tell me what was pushed.' }] },
    });
    // The first daemon's turn never ends: the kill cuts whatever it got to.
    let restarted = false;
    rig.llm.handle(() => (restarted ? { content: 'pushed' } : { hang: true }));
    const body = githubExample('push');
    const post = () => fetch(`http://127.0.0.1:${port}/hooks/gh/${TOKEN}`, { method: 'POST', body, headers: githubHeaders(body, 'push', 'kill-1', SECRET) });

    const first = await rig.started();
    const response = await post();
    await first.kill9();
    expect(response.status).toBe(200);

    restarted = true;
    await rig.started();
    const database = new Sqlite(path.join(rig.dir, 'data', 'familiar.db'), { readonly: true });
    try {
      const runs = () => database.prepare("SELECT status FROM job_runs WHERE job_id = 'on-push'").all() as Array<{ status: string }>;
      // Cut during its turn (recorded interrupted, as a cron run is) or dispatched after the restart (ok): one run.
      await waitUntil(() => runs().length === 1 && runs()[0]?.status !== 'running', 15_000, 'the trigger\'s run to be recorded');
      expect(['ok', 'interrupted']).toContain(runs()[0]?.status);
      expect(database.prepare("SELECT COUNT(*) AS n FROM trigger_inbox WHERE id = 'webhook:gh:kill-1' AND dispatched_at IS NOT NULL").get()).toEqual({ n: 1 });

      const again = await post();
      expect(await again.json()).toEqual({ status: 'duplicate' });
      expect(runs()).toHaveLength(1);
    } finally {
      database.close();
    }
  });
});
