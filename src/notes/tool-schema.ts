import type { Effect } from '../tools/effects.js';

/** A day as the notes and tasks tools take it (YYYY-MM-DD, in the person's time zone). */
export const DATE = { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' };

/** Saved in the memory folder's notes/; made while outside content is in play, the file is labelled as outside content. */
export const PERSISTS_NOTES: readonly Effect[] = [{ kind: 'persist', target: 'memory', path: 'notes/' }];

/** Saved in the memory folder's task lists (tasks.md, tasks/<list>.md). */
export const PERSISTS_TASKS: readonly Effect[] = [{ kind: 'persist', target: 'memory', path: 'tasks.md' }];
