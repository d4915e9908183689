import { OWNER_CHANNELS } from '../lib/owner.js';
import { currentPerson } from '../lib/person-scope.js';
import type { Result } from '../lib/result.js';
import type { CallOrigin } from '../tools/types.js';
import type { Job } from './types.js';

/**
 * Who may see and change which jobs. A job belongs to the chat (and the person) that made it: a chat sees only
 * its own jobs and reminders, and changes only those its person made. The owner sees and changes every job —
 * the owner is whoever sits at the terminal or the console (`OWNER_CHANNELS`). Jobs made in the terminal or
 * declared in config.yaml belong to the owner: a chat they deliver to receives their results but does not list or
 * change them.
 */
export type JobScope = { kind: 'owner' } | { kind: 'chat'; channel: string; chatId: string; userId: string | undefined };

export function scopeOf(origin: CallOrigin): JobScope {
  if (OWNER_CHANNELS.has(origin.channel)) return { kind: 'owner' };
  return { kind: 'chat', channel: origin.channel, chatId: origin.chatId, userId: origin.userId };
}

/** A filter for `Scheduler.list`: nothing for the owner, the chat for everyone else. */
export function listFilter(scope: JobScope): { origin?: { channel: string; chatId: string } } {
  return scope.kind === 'owner' ? {} : { origin: { channel: scope.channel, chatId: scope.chatId } };
}

export function canSee(scope: JobScope, job: Job): boolean {
  if (scope.kind === 'owner') return true;
  // In a household a chat shows each person only their own jobs (a job from before the household is the owner's).
  const person = currentPerson();
  if (person && (job.person ?? (person.role === 'owner' ? person.name : undefined)) !== person.name) return false;
  return job.source === 'chat' && job.origin?.channel === scope.channel && job.origin.chatId === scope.chatId;
}

/**
 * The job `id` if `scope` may change it. Another chat's job is reported exactly like a missing one, so a chat
 * cannot even learn which ids exist elsewhere; in a group, a job made by another member is named as such.
 */
export function jobToChange(scope: JobScope, id: string, job: Job | undefined): Result<Job> {
  const missing = `No job with id "${id}" in this chat; list the jobs to see the ids.`;
  if (!job || !canSee(scope, job)) return { success: false, error: missing };
  if (scope.kind === 'chat' && job.origin?.userId !== undefined && scope.userId !== undefined && job.origin.userId !== scope.userId) {
    return { success: false, error: `Job "${id}" was made by another person in this chat; only they (or the owner, from the terminal) can change it.` };
  }
  return { success: true, value: job };
}
