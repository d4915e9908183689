import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { openDatabase } from '../../src/db/database.js';
import { IntentStore } from '../../src/heartbeat/intent-store.js';
import { TriggerInbox } from '../../src/triggers/inbox.js';
import { tempDir, writeTestConfig } from '../helpers/app.js';
import { captureIo } from '../helpers/io.js';

// `familiar triggers` and `familiar intents` read one SQLite file: rows written here, read by the commands.
describe('familiar triggers and familiar intents', () => {
  let configPath: string;
  let intentId: string;

  async function familiar(...args: string[]) {
    const io = captureIo();
    const code = await runCli([...args, '--config', configPath], io);
    return { code, out: io.out(), err: io.err() };
  }

  beforeAll(() => {
    const dir = tempDir();
    configPath = writeTestConfig(dir, undefined);
    const db = openDatabase(path.join(dir, 'data'));
    try {
      const inbox = new TriggerInbox(db);
      inbox.record({ id: 'webhook:gh:1', source: 'webhook:gh', summary: 'webhook gh: github push in octo/repo', payload: '{}' });
      inbox.markDispatched('webhook:gh:1', ['on-push']);
      inbox.record({ id: 'mail:<a@b>', source: 'mail', summary: 'mail from Alice: Saturday', payload: 'From: Alice' });
      intentId = new IntentStore(db).insert({ match: 'invoice', remind: 'pay it', target: undefined, origin: undefined, cooldownS: 86400, firesLeft: 3, expiresAt: Date.now() + 86_400_000, createdAt: Date.now() }).id;
    } finally {
      db.close();
    }
  });


  it('lists the trigger inbox newest first, with the jobs that took each', async () => {
    const { code, out } = await familiar('triggers', 'list');
    expect(code).toBe(0);
    const lines = out.trim().split('\n');
    expect(lines[0]).toContain('mail  mail from Alice: Saturday  (not yet dispatched)');
    expect(lines[1]).toContain('webhook:gh  webhook gh: github push in octo/repo  (ran on-push)');
  });

  it('lists the standing intents and cancels one by id', async () => {
    const listed = await familiar('intents', 'list');
    expect(listed.out).toContain(`${intentId}: when "invoice" comes up → pay it`);
    expect(await familiar('intents', 'cancel', intentId)).toMatchObject({ code: 0, out: `Cancelled ${intentId}.\n` });
    expect((await familiar('intents', 'list')).out).toContain('No standing intents.');
  });

  it('exits 1 naming an intent it does not know', async () => {
    expect(await familiar('intents', 'cancel', 'i-000000')).toMatchObject({ code: 1, err: expect.stringContaining('No active intent "i-000000"') as unknown });
  });
});
