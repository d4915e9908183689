import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { OWNER_TG, startChannelRig, type ChannelRig } from '../helpers/channels.js';
import { scriptedTerminal } from '../helpers/io.js';
import { UNTIL } from '../helpers/chat-approvals.js';

const ORIGIN = { channel: 'telegram', chatId: String(OWNER_TG), userId: String(OWNER_TG) };

describe('/snooze and /done in the terminal act on the last reminder delivered', () => {
  let rig: ChannelRig;
  afterEach(async () => {
    await rig.close();
  });

  /** A reminder the running daemon delivers to the owner's Telegram chat now. */
  async function deliver(title: string): Promise<void> {
    const made = await rig.app.tools.execute({ name: 'reminder_create', arguments: { title, when: 'in 1 hour' }, conversationId: 'c-test', turnId: 't-test', origin: ORIGIN });
    const id = /Reminder (r-[0-9a-f]{6})/.exec(made.result.output)?.[1] ?? '';
    const run = await rig.app.scheduler.runNow(id);
    expect(run).toMatchObject({ success: true, value: { deliveredTo: `telegram:${OWNER_TG}` } });
  }

  it('snoozes the reminder once, then marks the next one done', async () => {
    rig = await startChannelRig({ which: ['telegram'] });
    await deliver('Feed the cat');
    const term = scriptedTerminal();
    const finished = runCli(['chat', '--config', rig.t.configPath, '--log-level', 'silent'], term.io);
    await term.waitFor(/you> /);
    term.say('/snooze 1h');
    expect(await term.waitFor(/💤 Snoozed until [^\n]*"Feed the cat"\)/)).toMatch(new RegExp(String.raw`until ${UNTIL}\. \("Feed the cat"\)$`, 'u'));
    const snoozed = rig.app.scheduler.list().filter((job) => job.kind === 'reminder' && job.prompt === 'Feed the cat' && job.spec === 'snoozed: in 1 hour');
    expect(snoozed).toHaveLength(1);
    term.say('/snooze 10m');
    await term.waitFor(/Already snoozed until [^\n]*\("Feed the cat"\)/);
    await deliver('Lock the door');
    term.say('/done');
    await term.waitFor(/✅ Done\. \("Lock the door"\)/);
    term.say('/exit');
    expect(await finished).toBe(0);
    expect(rig.app.scheduler.list().filter((job) => job.spec.startsWith('snoozed'))).toHaveLength(1);
  });
});
