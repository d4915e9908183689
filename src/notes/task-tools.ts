import { fail, type AnyTool, type ToolCallContext } from '../tools/types.js';
import { outsideAware, taskForModel } from './format.js';
import type { NotesServices } from './services.js';
import type { TaskInput, TaskPatch } from './tasks.js';
import { matchTask } from './task-match.js';
import { DATE, PERSISTS_TASKS } from './tool-schema.js';

const NULLABLE_DATE = { type: ['string', 'null'], pattern: '^\\d{4}-\\d{2}-\\d{2}$' };
const PRIORITY = { type: 'string', enum: ['highest', 'high', 'medium', 'low', 'lowest'] };
const TASK_REF = { type: 'string', minLength: 1, description: 'the ref task_search shows (its 🆔 id, or ~… for a task without one), or the exact description' };
const RECURRENCE = 'Obsidian Tasks wording: "every day", "every weekday", "every week on Monday", "every 2 weeks", "every month on the 1st", "every year"; add "when done" to count from completion';

function originOf(ctx: ToolCallContext) {
  return { conversationId: ctx.conversationId, ...(ctx.unattended ? {} : { chat: ctx.origin }) };
}

/** Task tools over checklist lines in the Obsidian Tasks emoji format (tasks.md, tasks/<list>.md, notes). */
export function createTaskTools(services: NotesServices): AnyTool[] {
  return [taskCreateTool(services), taskUpdateTool(services), taskCompleteTool(services), taskSearchTool(services)];
}

function taskCreateTool({ tasks, reminders }: NotesServices): AnyTool {
  const reminderNote = reminders ? '' : ' (Reminders are off: the scheduler is not running here.)';
  return {
    name: 'task_create',
    effects: PERSISTS_TASKS,
    aliases: ['taskCreate'],
    description:
      'Add a task to the person\'s task list (a "- [ ]" line in memory/tasks.md, or tasks/<list>.md for another list), with optional due date, recurrence, priority and a reminder sent to this chat. Dates are YYYY-MM-DD in the person\'s time zone.',
    parameters: {
      type: 'object',
      properties: {
        description: { type: 'string', minLength: 1, maxLength: 300 },
        due: DATE,
        scheduled: DATE,
        start: DATE,
        recurrence: { type: 'string', description: RECURRENCE },
        priority: PRIORITY,
        reminder: { type: 'string', description: 'when to remind, in words ("tomorrow at 3pm", "in 2 hours", "next Friday 9:00"), "YYYY-MM-DD HH:mm", or "HH:mm" on the due day' },
        list: { type: 'string', description: 'a list name (default: the main list "tasks")' },
        tags: { type: 'array', items: { type: 'string' }, maxItems: 10 },
      },
      required: ['description'],
      additionalProperties: false,
    },
    async execute(params: TaskInput, ctx) {
      const created = await tasks.create(params, originOf(ctx));
      if (!created.success) return fail(created.error);
      const task = created.value;
      return { success: true, output: `Added to ${task.path}: ${taskForModel(task)}${task.reminder ? reminderNote : ''}` };
    },
  };
}

function taskUpdateTool({ tasks }: NotesServices): AnyTool {
  return {
    name: 'task_update',
    effects: PERSISTS_TASKS,
    aliases: ['taskUpdate'],
    description: 'Change a task: description, dates (null clears one), recurrence, priority, reminder, or status (open, in_progress, cancelled, done). Only that task\'s line is rewritten.',
    parameters: {
      type: 'object',
      properties: {
        task: TASK_REF,
        description: { type: 'string', minLength: 1, maxLength: 300 },
        due: NULLABLE_DATE,
        scheduled: NULLABLE_DATE,
        start: NULLABLE_DATE,
        recurrence: { type: ['string', 'null'], description: RECURRENCE },
        priority: { type: ['string', 'null'], enum: ['highest', 'high', 'medium', 'low', 'lowest', null] },
        reminder: { type: ['string', 'null'], description: 'when to remind, in words ("tomorrow at 3pm", "in 20 minutes"), "YYYY-MM-DD HH:mm", "HH:mm" on the due day, or null to remove it' },
        status: { type: 'string', enum: ['open', 'in_progress', 'cancelled', 'done'] },
      },
      required: ['task'],
      additionalProperties: false,
    },
    async execute(params: { task: string } & TaskPatch, ctx) {
      const { task: reference, ...patch } = params;
      if (Object.keys(patch).length === 0) return fail('Nothing to change: give a field to set.');
      const updated = await tasks.update(reference, patch, originOf(ctx));
      if (!updated.success) return fail(updated.error);
      return { success: true, output: `Updated: ${taskForModel(updated.value)}` };
    },
  };
}

function taskCompleteTool({ tasks }: NotesServices): AnyTool {
  return {
    name: 'task_complete',
    effects: PERSISTS_TASKS,
    aliases: ['taskComplete'],
    description: 'Tick a task done (✅ today; its reminder is cancelled). A recurring task gets its next occurrence as a new line. task is its id, or words from its description when they match exactly one open task; when several match, the answer lists them (id: title) so you can ask which.',
    parameters: {
      type: 'object',
      properties: { task: { type: 'string', minLength: 1, description: 'the task\'s id (or ref) from task_search, or words from its description ("milk")' } },
      required: ['task'],
      additionalProperties: false,
    },
    async execute(params: { task: string }, ctx) {
      const found = matchTask(tasks.files, params.task);
      if (!found.success) return fail(found.error);
      const done = await tasks.complete(found.value.ref, originOf(ctx));
      if (!done.success) return fail(done.error);
      const next = done.value.next;
      return { success: true, output: `Done: ${taskForModel(done.value)}${next ? `\nNext occurrence: ${taskForModel(next)}` : ''}` };
    },
  };
}

function taskSearchTool({ tasks }: NotesServices): AnyTool {
  return {
    name: 'task_search',
    readOnly: true,
    effects: [],
    aliases: ['taskSearch'],
    description:
      'Find tasks (read fresh from the files, so ticks and edits made by hand count): open (default), done or all; due before/after a day (YYYY-MM-DD, inclusive); in a list; with a tag; containing words. Sorted by due date. For "what is due this week" use due_before = the coming Sunday.',
    parameters: {
      type: 'object',
      properties: {
        status: { type: 'string', enum: ['open', 'done', 'all'], default: 'open' },
        due_before: DATE,
        due_after: DATE,
        list: { type: 'string' },
        tag: { type: 'string' },
        text: { type: 'string' },
        limit: { type: 'integer', minimum: 1, maximum: 200, default: 50 },
      },
      additionalProperties: false,
    },
    async execute(params: { status?: 'open' | 'done' | 'all'; due_before?: string; due_after?: string; list?: string; tag?: string; text?: string; limit?: number }, ctx) {
      const found = tasks.search({
        status: params.status ?? 'open',
        ...(params.due_before !== undefined ? { dueBefore: params.due_before } : {}),
        ...(params.due_after !== undefined ? { dueAfter: params.due_after } : {}),
        ...(params.list !== undefined ? { list: params.list } : {}),
        ...(params.tag !== undefined ? { tag: params.tag } : {}),
        ...(params.text !== undefined ? { text: params.text } : {}),
        limit: params.limit ?? 50,
      });
      const today = `Today is ${tasks.today()}.`;
      if (found.length === 0) return { success: true, output: `${today} No ${params.status === 'all' ? '' : `${params.status ?? 'open'} `}tasks match.` };
      return outsideAware(ctx, found.map((task) => task.path), `${today} ${found.length} task(s) (ref · line · list):\n${found.map(taskForModel).join('\n')}`);
    },
  };
}
