/**
 * The workspace in a turn that holds outside content. An order read in a mail or a page must not be able to change
 * or delete what the person already had in the workspace (their uploads, their files, what earlier clean turns
 * made), so in such a turn:
 *
 *  - `sandbox_exec` runs as a second user, `tools.sandbox.guest_user`, after the sandbox user has made every folder
 *    it owns sticky and writable by all (`1777`, as /tmp) and taken the write bit for others off its files. The
 *    kernel then lets the guest read everything, create new files anywhere, and change or delete only what it made
 *    itself: a sticky folder's entries can be removed only by their owner or the folder's.
 *  - `write` and `edit` may create files and change files such a turn made, never other existing ones.
 *
 * The gate decides (`ctx.guest`, src/gate/gate.ts): every call it allows in such a turn is a guest's, except a
 * `write` or `edit` of a file the person named, and one with `modify_existing: true`, which declares a `modify`
 * effect that asks the person (src/gate/provenance.ts; an unattended run is refused) and runs as the sandbox user
 * once they say yes. What a guest makes is world-writable (umask 000), so the sandbox user can change and remove it
 * in later clean turns.
 */
import type { Stats } from 'node:fs';
import type Docker from 'dockerode';
import { runExec } from './exec.js';
import { deadline } from '../lib/abort.js';
import type { ToolCallContext } from '../tools/types.js';
import type { Ownership } from '../workspace/pinned-dir.js';

export interface Guest {
  /** `uid:gid`, as Docker's exec takes it. */
  user: string;
  uid: number;
  gid: number;
}

export function guestOf(guestUser: string): Guest {
  const [uid = '', gid = ''] = guestUser.split(':');
  return { user: guestUser, uid: Number(uid), gid: Number(gid) };
}

/**
 * Run by the sandbox user before a guest command: its folders become sticky and writable by all, its files lose
 * the write bit for others. `-xdev` stays on the workspace's filesystem; `-type` never follows a link.
 */
const PREPARE_FOR_GUEST =
  'u=$(id -u); find /workspace -xdev -user "$u" \\( -type d ! -perm -1777 -exec chmod 1777 {} + \\) -o \\( -type f -perm -o+w -exec chmod o-w {} + \\) 2>/dev/null; true';

/**
 * Run as the sandbox user just before a guest command, in the same container: what it owns becomes read-only to the
 * guest. Returns the guest's command, with a umask that keeps what it makes changeable by the sandbox user.
 */
export async function prepareForGuest(container: Docker.Container, command: string | string[], request: { timeoutMs: number; signal?: AbortSignal }): Promise<string | string[]> {
  const limit = deadline(request.timeoutMs, request.signal);
  try {
    await runExec(container, { cmd: ['/bin/sh', '-c', PREPARE_FOR_GUEST], outputBytes: 4096, signal: limit.signal });
  } finally {
    limit.done();
  }
  return typeof command === 'string' ? `umask 000\n${command}` : ['/bin/bash', '-c', 'umask 000\nexec "$@"', 'guest', ...command];
}

const DENIED = /Permission denied|Operation not permitted|Read-only file system/;

/** What the model reads after a guest command that was refused a change, so it can tell the person or ask. */
export function guestNote(ctx: Pick<ToolCallContext, 'taint'>, stderr: string): string | undefined {
  if (!DENIED.test(stderr)) return undefined;
  return `Note: this turn holds outside content (${ctx.taint.join(', ')}), so commands run as a guest that can read every file and create new ones, but cannot change or delete files that were already in the workspace. If the person asked for this change, run the command again with modify_existing: true (the person is asked first); otherwise write the result to a new file.`;
}

/**
 * Which files a guest turn's `write` and `edit` made, so they stay changeable by such a turn: owned by the guest
 * when the daemon can chown (it runs as root), else remembered here for the life of the process (after a restart
 * they count as the person's, which only asks more).
 */
export class GuestFiles {
  private readonly made = new Map<string, Set<string>>();

  /** `chown`: whether the daemon hands new files to the sandbox user (it is root), so it can hand them to the guest. */
  constructor(private readonly guest: Guest, private readonly chown: boolean) {}

  /** How a guest turn's new files and folders are made: the guest's, when the daemon can say so. */
  ownership(): Ownership | undefined {
    return this.chown ? { owner: { uid: this.guest.uid, gid: this.guest.gid } } : undefined;
  }

  /** True when `stats` (an existing file) may be changed by a guest turn without asking. */
  mayChange(workspaceId: string, relative: string, stats: Stats): boolean {
    return stats.uid === this.guest.uid || (this.made.get(workspaceId)?.has(relative) ?? false);
  }

  remember(workspaceId: string, relative: string): void {
    let names = this.made.get(workspaceId);
    if (!names) this.made.set(workspaceId, (names = new Set()));
    names.add(relative);
  }
}

/** The refusal `write` and `edit` give in a guest turn for a file the person had. */
export function existingFileRefusal(ctx: Pick<ToolCallContext, 'taint'>, relative: string): string {
  return `Refused: ${relative} was already in the workspace, and this turn holds outside content (${ctx.taint.join(', ')}), so it may create files but not change the person's. Write to a new file instead, or, if the person asked for this change, call again with modify_existing: true (the person is asked first).`;
}
