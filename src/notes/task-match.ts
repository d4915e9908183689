import { failure, succeed, type Result } from '../lib/result.js';
import type { Task, TaskFiles } from './task-files.js';

// Words that say nothing about which task is meant ("tick off the milk task").
const FILLER = new Set(['a', 'an', 'the', 'my', 'to', 'for', 'of', 'and', 'task', 'tasks', 'todo', 'off', 'done']);

/**
 * The task `reference` names: its 🆔 id or ref, its exact description, or else words that match exactly one open
 * task (each word found in its description). Several matches are refused with the candidates (id and title), so the
 * model can ask which; none with how to find them. Contract: never throws.
 */
export function matchTask(files: TaskFiles, reference: string): Result<Task> {
  const tasks = files.all();
  const exact = files.find(reference, tasks);
  if (exact.success) return exact;
  // The same id or description twice is for the person to fix; words would only guess.
  if (/ names \d+ tasks| tasks read "/.test(exact.error)) return exact;
  const words = reference.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((word) => word !== '' && !FILLER.has(word));
  if (words.length === 0) return failure(`"${reference}" names no task; give its id or words from its description (task_search lists the open tasks).`);
  const matches = tasks.filter((task) => task.open && words.every((word) => task.description.toLowerCase().includes(word)));
  if (matches.length === 1 && matches[0]) return succeed(matches[0]);
  if (matches.length === 0) {
    return failure(`No task "${reference}" among the open ones (by id or by words). Call task_search (with text) to see the open tasks and their ids, then call again with the id.`);
  }
  const shown = matches.slice(0, 10).map((task) => `- ${task.id ?? task.ref}: ${task.description}`).join('\n');
  return failure(`"${reference}" matches ${matches.length} open tasks; ask the person which one, then call again with its id:\n${shown}${matches.length > 10 ? `\n(and ${matches.length - 10} more)` : ''}`);
}
