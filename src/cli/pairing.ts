import { PairingStore } from '../channels/pairing.js';
import { openDatabase } from '../db/database.js';
import type { Command } from './context.js';

const USAGE = 'usage: familiar pairing list | approve CODE | deny CODE | revoke CHANNEL USER_ID\n';

/**
 * `familiar pairing`: the owner's side of pairing. Works on the database directly, so it needs no running
 * daemon; a running daemon sees an approval with the person's next message.
 */
export const pairingCommand: Command = async (context) => {
  const [action, ...rest] = context.args;
  const { stdout, stderr } = context.io;
  if (!action || !['list', 'approve', 'deny', 'revoke'].includes(action)) {
    stderr.write(USAGE);
    return 2;
  }
  const db = openDatabase(context.loadConfig().config.data_dir);
  try {
    const store = new PairingStore(db);
    if (action === 'list') {
      const pending = store.pending();
      const paired = store.paired();
      if (context.options.json) {
        stdout.write(`${JSON.stringify({ pending, paired }, null, 2)}\n`);
        return 0;
      }
      stdout.write(pending.length === 0 ? 'No pending pairing codes.\n' : 'Pending (approve with: familiar pairing approve CODE):\n');
      for (const request of pending) {
        const minutes = Math.max(0, Math.round((request.expiresAt - Date.now()) / 60000));
        stdout.write(`  ${request.code}  ${request.channel} user ${request.userId} (${request.userName || 'no name'}), expires in ${minutes} min\n`);
      }
      if (paired.length > 0) stdout.write('Paired users:\n');
      for (const user of paired) stdout.write(`  ${user.channel} user ${user.userId} (${user.userName || 'no name'}), since ${new Date(user.addedAt).toISOString()}\n`);
      return 0;
    }
    if (action === 'revoke') {
      const [channel, userId] = rest;
      if (!channel || !userId) {
        stderr.write(USAGE);
        return 2;
      }
      const removed = store.revoke(channel, userId);
      stdout.write(removed ? `Removed ${channel} user ${userId}.\n` : `${channel} user ${userId} was not paired (users in allowed_users are changed in the config).\n`);
      return removed ? 0 : 1;
    }
    const code = rest[0];
    if (!code) {
      stderr.write(USAGE);
      return 2;
    }
    const request = action === 'approve' ? store.approve(code) : store.deny(code);
    stdout.write(action === 'approve'
      ? `Approved: ${request.channel} user ${request.userId} (${request.userName || 'no name'}) can now talk to the assistant.\n`
      : `Denied: ${request.channel} user ${request.userId} gets no further codes.\n`);
    return 0;
  } finally {
    db.close();
  }
};
