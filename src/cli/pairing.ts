import { cleanName } from '../channels/display-name.js';
import { INVITE_TTL_MS, PairingStore } from '../channels/pairing.js';
import { openDatabase } from '../db/database.js';
import type { Command } from './context.js';

const USAGE = 'usage: familiar pairing list | approve CODE | deny CODE | revoke CHANNEL USER_ID | invite CHANNEL\n';
const CHANNEL_NAME = /^[a-z][a-z0-9_-]{0,31}$/;

/** A name as the platform gave it, made safe for a terminal (no escapes, no reordering, one line). */
const shownName = (name: string): string => cleanName(name) || 'no name';

/**
 * `familiar pairing`: the owner's side of pairing. Works on the database directly, so it needs no running
 * daemon; a running daemon sees an approval with the person's next message.
 */
export const pairingCommand: Command = async (context) => {
  const [action, ...rest] = context.args;
  const { stdout, stderr } = context.io;
  if (!action || !['list', 'approve', 'deny', 'revoke', 'invite'].includes(action)) {
    stderr.write(USAGE);
    return 2;
  }
  const db = openDatabase(context.loadConfig().config.data_dir);
  try {
    const store = new PairingStore(db);
    if (action === 'list') {
      const pending = store.pending();
      const paired = store.paired();
      const invites = store.invites();
      if (context.options.json) {
        stdout.write(`${JSON.stringify({ pending, paired, invites }, null, 2)}\n`);
        return 0;
      }
      stdout.write(pending.length === 0 ? 'No pending pairing codes.\n' : 'Pending (approve with: familiar pairing approve CODE):\n');
      for (const request of pending) {
        const minutes = Math.max(0, Math.round((request.expiresAt - Date.now()) / 60000));
        stdout.write(`  ${request.code}  ${request.channel} user ${request.userId} (${shownName(request.userName)}), expires in ${minutes} min\n`);
      }
      if (invites.length > 0) stdout.write('Open invites (familiar pairing invite):\n');
      for (const invite of invites) stdout.write(`  ${invite.code}  ${invite.channel}, expires ${new Date(invite.expiresAt).toISOString()}\n`);
      if (paired.length > 0) stdout.write('Paired users:\n');
      for (const user of paired) stdout.write(`  ${user.channel} user ${user.userId} (${shownName(user.userName)}), since ${new Date(user.addedAt).toISOString()}\n`);
      return 0;
    }
    if (action === 'invite') {
      const [channel] = rest;
      if (!channel || !CHANNEL_NAME.test(channel)) {
        stderr.write(USAGE);
        return 2;
      }
      const invite = store.invite(channel);
      stdout.write(
        `Invite code for ${channel}: ${invite.code} (valid ${INVITE_TTL_MS / 3600000} hours, once).\n` +
        `Give it to the person; they send it to the bot in a direct message (on Telegram "/start ${invite.code}", or open\n` +
        `https://t.me/<your bot>?start=${invite.code}) and are let in at once, however many strangers are waiting for codes.\n`,
      );
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
      ? `Approved: ${request.channel} user ${request.userId} (${shownName(request.userName)}) can now talk to the assistant.\n`
      : `Denied: ${request.channel} user ${request.userId} gets no further codes.\n`);
    return 0;
  } finally {
    db.close();
  }
};
