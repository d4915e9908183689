import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_PENDING_PER_CHANNEL, PairingStore, PAIRING_TTL_MS } from '../../src/channels/pairing.js';
import { openDatabase, type Database } from '../../src/db/database.js';
import { tempDir } from '../helpers/app.js';

describe('PairingStore', () => {
  let db: Database;
  let store: PairingStore;
  const user = { channel: 'telegram', userId: '42', userName: 'ann', chatId: '42' };

  beforeEach(() => {
    db = openDatabase(tempDir());
    store = new PairingStore(db);
  });

  afterEach(() => db.close());

  it('issues an 8-character code from an unambiguous alphabet, once per user', () => {
    const outcome = store.request(user, 1000);
    expect(outcome.kind).toBe('issued');
    if (outcome.kind !== 'issued') return;
    expect(outcome.code).toMatch(/^[A-HJKMNP-Z2-9]{8}$/);
    expect(store.request(user, 2000)).toEqual({ kind: 'silent' });
  });

  it('expires a code after one hour, and then issues a new one', () => {
    const first = store.request(user, 0);
    if (first.kind !== 'issued') throw new Error('no code');
    expect(() => store.approve(first.code, PAIRING_TTL_MS + 1)).toThrow(/PAIRING|expired|no pending/);
    expect(store.pending(PAIRING_TTL_MS + 1)).toEqual([]);
    expect(store.request(user, PAIRING_TTL_MS + 2).kind).toBe('issued');
  });

  it('approves into the persisted allowlist, and revoke takes the user out', () => {
    const outcome = store.request(user, Date.now());
    if (outcome.kind !== 'issued') throw new Error('no code');
    expect(store.isPaired('telegram', '42')).toBe(false);
    expect(store.approve(outcome.code).userName).toBe('ann');
    expect(store.isPaired('telegram', '42')).toBe(true);
    expect(store.isPaired('discord', '42')).toBe(false);
    expect(store.paired().map((entry) => entry.userId)).toEqual(['42']);
    expect(store.revoke('telegram', '42')).toBe(true);
    expect(store.isPaired('telegram', '42')).toBe(false);
  });

  it('counts the pending limit per channel', () => {
    for (let index = 0; index < MAX_PENDING_PER_CHANNEL; index += 1) expect(store.request({ ...user, userId: `t${index}` }).kind).toBe('issued');
    expect(store.request({ ...user, userId: 'one-more' }).kind).toBe('full');
    expect(store.request({ ...user, channel: 'discord', userId: 'd1' }).kind).toBe('issued');
  });
});
