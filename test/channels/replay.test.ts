// Messages accepted but never answered (the process died during their turn) are answered once at the next start.
// The crash itself is played by writing the inbox row a killed daemon leaves; test/ops/crash.test.ts kills a real one.
import { afterEach, describe, expect, it } from 'vitest';
import { ChannelInbox, type ReplayableMessage } from '../../src/channels/inbox.js';
import { OWNER_TG, STRANGER_TG, sleep, startChannelRig, userTexts, type ChannelRig } from '../helpers/channels.js';

const HOUR = 3600 * 1000;
const message = (text: string, extra: Partial<ReplayableMessage> = {}): ReplayableMessage => ({
  userId: String(OWNER_TG), userName: 'owner', text, isDirect: true, attachments: [], ...extra,
});

describe('replay of messages cut by a crash', () => {
  let rig: ChannelRig;

  afterEach(async () => {
    await rig.close();
  });

  /** Leaves rows as a killed daemon would (claimed, never finished), then restarts. */
  async function crashWith(rows: Array<{ id: number; text: string; agoMs?: number; extra?: Partial<ReplayableMessage> }>): Promise<void> {
    const inbox = new ChannelInbox(rig.app.db);
    for (const row of rows) inbox.claim('telegram', `${OWNER_TG}/${row.id}`, String(OWNER_TG), Date.now() - (row.agoMs ?? 0), message(row.text, row.extra));
    await rig.restart();
  }

  it('answers a message left unanswered, once, in order, and not again at the next restart', async () => {
    rig = await startChannelRig({ which: ['telegram'] });
    rig.llm.handle((request) => ({ content: `answer to ${userTexts(rig.llm).at(-1) ?? ''} (${request.body.messages.length})` }));
    await crashWith([{ id: 77, text: 'first question', agoMs: 2000 }, { id: 78, text: 'second question', agoMs: 1000 }]);
    await rig.telegram.waitFor(() => rig.telegram.messagesTo(OWNER_TG).length === 2);
    expect(rig.telegram.messagesTo(OWNER_TG).map((sent) => sent.text?.replace(/ \(\d+\)$/, ''))).toEqual(['answer to first question', 'answer to second question']);
    expect(userTexts(rig.llm)).toEqual(['first question', 'second question']);

    await rig.restart();
    await sleep(300);
    expect(rig.telegram.messagesTo(OWNER_TG)).toHaveLength(2);
    expect(rig.llm.requests).toHaveLength(2);
    const rows = rig.app.db.prepare("SELECT message_key, status, message FROM channel_inbox WHERE channel = 'telegram' ORDER BY message_key").all();
    expect(rows).toEqual([
      { message_key: `${OWNER_TG}/77`, status: 'answered', message: null },
      { message_key: `${OWNER_TG}/78`, status: 'answered', message: null },
    ]);
  });

  it('does not answer a message cut more than an hour ago, and logs how many were dropped', async () => {
    rig = await startChannelRig({ which: ['telegram'] });
    await crashWith([{ id: 90, text: 'stale question', agoMs: HOUR + 60_000 }]);
    await sleep(300);
    expect(rig.telegram.messagesTo(OWNER_TG)).toEqual([]);
    expect(rig.llm.requests).toEqual([]);
    expect(rig.t.logs.join('')).toMatch(/"expired":1.*more than an hour ago are not answered/);
    expect(rig.app.db.prepare("SELECT status FROM channel_inbox WHERE message_key = ?").get(`${OWNER_TG}/90`)).toEqual({ status: 'expired' });
  });

  it('tells the agent that a file sent with the replayed message was not kept', async () => {
    rig = await startChannelRig({ which: ['telegram'] });
    await crashWith([{ id: 91, text: 'what is in this file?', extra: { attachments: [{ kind: 'file', name: 'notes.pdf', mimeType: 'application/pdf', size: 1234 }] } }]);
    await rig.telegram.waitFor(() => rig.telegram.messagesTo(OWNER_TG)[0]);
    const text = userTexts(rig.llm)[0] ?? '';
    expect(text).toContain('what is in this file?');
    expect(text).toMatch(/notes\.pdf, was not saved: .*not kept across a restart/);
  });

  it('does not run again a message whose reply was being sent when the process died, and logs it', async () => {
    rig = await startChannelRig({ which: ['telegram'] });
    const inbox = new ChannelInbox(rig.app.db);
    inbox.claim('telegram', `${OWNER_TG}/93`, String(OWNER_TG), Date.now(), message('already answered, maybe'));
    inbox.replying('telegram', `${OWNER_TG}/93`);
    await rig.restart();
    await sleep(300);
    expect(rig.telegram.sent).toEqual([]);
    expect(rig.llm.requests).toEqual([]);
    expect(rig.t.logs.join('')).toMatch(/"unconfirmed":1.*died while sending replies/);
    expect(rig.app.db.prepare("SELECT status, message FROM channel_inbox WHERE message_key = ?").get(`${OWNER_TG}/93`)).toEqual({ status: 'unconfirmed', message: null });
  });

  it('does not answer a replayed message from someone no longer allowed', async () => {
    rig = await startChannelRig({ which: ['telegram'] });
    await crashWith([{ id: 92, text: 'let me in', extra: { userId: String(STRANGER_TG) } }]);
    await sleep(300);
    expect(rig.telegram.sent).toEqual([]);
    expect(rig.llm.requests).toEqual([]);
    expect(rig.app.db.prepare("SELECT status FROM channel_inbox WHERE message_key = ?").get(`${OWNER_TG}/92`)).toEqual({ status: 'ignored' });
  });
});
