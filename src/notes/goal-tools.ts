import { fail, type AnyTool } from '../tools/types.js';
import { addDays, weekday } from './dates.js';
import { outsideAware, taskForModel } from './format.js';
import { appendListItem, withFields, type Note } from './note-files.js';
import type { NotesServices } from './services.js';
import type { TaskInput } from './tasks.js';
import { DATE, PERSISTS_NOTES } from './tool-schema.js';

export const GOAL_STATUSES = ['active', 'paused', 'achieved', 'dropped'] as const;
const PERIODS = ['day', 'week', 'month'] as const;
type Period = (typeof PERIODS)[number];

/** The last day a planning period covers, from today. */
export function periodEnd(today: string, period: Period): string {
  if (period === 'day') return today;
  if (period === 'week') return addDays(today, 7 - weekday(today));
  const [year = 0, month = 1] = today.split('-').map(Number);
  const last = new Date(Date.UTC(year, month, 0));
  return `${last.getUTCFullYear()}-${String(last.getUTCMonth() + 1).padStart(2, '0')}-${String(last.getUTCDate()).padStart(2, '0')}`;
}

/** What a planning session looks at: active goals, and open tasks overdue or due within the period (then undated ones). */
export function planningReview(services: NotesServices, period: Period): string {
  return planningReviewOf(services, period).text;
}

/** The review and the files it quotes (goal notes, task lists), for the outside-content check. */
export function planningReviewOf(services: NotesServices, period: Period): { text: string; paths: string[] } {
  const today = services.tasks.today();
  const end = periodEnd(today, period);
  const goals = services.notes.all().filter((note) => note.type === 'goal' && (note.data.status ?? 'active') === 'active');
  const due = services.tasks.search({ status: 'open', dueBefore: end, limit: 100 });
  const undated = services.tasks.search({ status: 'open', limit: 200 }).filter((task) => task.due === undefined).slice(0, 30);
  const lines = [`Planning ${period === 'day' ? 'today' : `the ${period}`}: ${today} to ${end}.`, '', `Active goals (${goals.length}):`];
  for (const goal of goals) lines.push(`- [[${goal.name}]]${typeof goal.data.target === 'string' ? ` (target ${goal.data.target})` : ''}${goal.data.why ? ` — ${String(goal.data.why)}` : ''}`);
  if (goals.length === 0) lines.push('- none (goal_create makes one)');
  lines.push('', `Open tasks due by ${end} or overdue (${due.length}):`, ...(due.length > 0 ? due.map(taskForModel) : ['- none']));
  lines.push('', `Open tasks without a date (${undated.length}):`, ...(undated.length > 0 ? undated.map(taskForModel) : ['- none']));
  return { text: lines.join('\n'), paths: [...goals.map((goal) => goal.path), ...due.map((task) => task.path), ...undated.map((task) => task.path)] };
}

/** Goals, reflections and planning: notes of those types, and a plan written as a note with its tasks. */
export function createGoalTools(services: NotesServices): AnyTool[] {
  return [goalCreateTool(services), goalUpdateTool(services), reflectionCreateTool(services), planReviewTool(services), planCreateTool(services)];
}

function goalCreateTool({ notes }: NotesServices): AnyTool {
  return {
    name: 'goal_create',
    effects: PERSISTS_NOTES,
    aliases: ['goalCreate'],
    description: 'Record a goal of the person\'s as a note of type goal (status active), with why it matters and a target date. Plans and tasks can link to it as [[Title]].',
    parameters: {
      type: 'object',
      properties: {
        title: { type: 'string', minLength: 1, maxLength: 200 },
        why: { type: 'string', maxLength: 1000 },
        target_date: DATE,
        body: { type: 'string', maxLength: 50_000, description: 'milestones, first steps, notes' },
        tags: { type: 'array', items: { type: 'string' }, maxItems: 10 },
      },
      required: ['title'],
      additionalProperties: false,
    },
    async execute(params: { title: string; why?: string; target_date?: string; body?: string; tags?: string[] }, ctx) {
      const created = await notes.create({
        title: params.title, type: 'goal', tags: params.tags ?? [], conversationId: ctx.conversationId,
        fields: { status: 'active', target: params.target_date, why: params.why },
        body: `${params.body ?? ''}${params.body ? '\n\n' : ''}## Progress\n`,
      });
      if (!created.success) return fail(created.error);
      return { success: true, output: `Goal recorded: ${created.value.path} (status active). Link to it as [[${created.value.name}]].` };
    },
  };
}

function goalUpdateTool({ notes, tasks }: NotesServices): AnyTool {
  return {
    name: 'goal_update',
    effects: PERSISTS_NOTES,
    aliases: ['goalUpdate'],
    description: 'Update a goal: its status (active, paused, achieved, dropped), target date, title, or add a dated progress entry under "## Progress".',
    parameters: {
      type: 'object',
      properties: {
        goal: { type: 'string', minLength: 1, description: 'the goal\'s title or path' },
        status: { type: 'string', enum: [...GOAL_STATUSES] },
        progress: { type: 'string', maxLength: 5000 },
        target_date: DATE,
        title: { type: 'string', minLength: 1, maxLength: 200 },
      },
      required: ['goal'],
      additionalProperties: false,
    },
    async execute(params: { goal: string; status?: string; progress?: string; target_date?: string; title?: string }, ctx) {
      const found = notes.find(params.goal);
      if (!found.success) return fail(found.error);
      if (found.value.type !== 'goal') return fail(`${found.value.path} is not a goal (type ${found.value.type ?? 'note'}); use note_update for it.`);
      const today = tasks.today();
      const updated = await notes.update(found.value.path, (note: Note) => {
        const set: Record<string, unknown> = {};
        if (params.status !== undefined) set.status = params.status;
        if (params.target_date !== undefined) set.target = params.target_date;
        if (params.title !== undefined) set.title = params.title;
        let body: string | undefined;
        const entries = [params.status !== undefined && params.status !== note.data.status ? `status → ${params.status}` : undefined, params.progress?.replace(/\s+/g, ' ').trim()].filter(Boolean);
        if (entries.length > 0) body = appendListItem(note.file.body, `- ${today}: ${entries.join('; ')}`, note.file.newline);
        return withFields(note, set, notes.stamp(), body);
      }, ctx.conversationId);
      if (!updated.success) return fail(updated.error);
      return { success: true, output: `Goal updated: ${updated.value.path}${params.status ? ` (status ${params.status})` : ''}.` };
    },
  };
}

function reflectionCreateTool({ notes, tasks }: NotesServices): AnyTool {
  return {
    name: 'reflection_create',
    effects: PERSISTS_NOTES,
    aliases: ['reflectionCreate'],
    description: 'Write a reflection (a note of type reflection): how a day, week or project went, what was learned, what to change.',
    parameters: {
      type: 'object',
      properties: {
        body: { type: 'string', minLength: 1, maxLength: 50_000 },
        title: { type: 'string', maxLength: 200, description: 'default "Reflection YYYY-MM-DD"' },
        period: { type: 'string', enum: [...PERIODS] },
        tags: { type: 'array', items: { type: 'string' }, maxItems: 10 },
      },
      required: ['body'],
      additionalProperties: false,
    },
    async execute(params: { body: string; title?: string; period?: Period; tags?: string[] }, ctx) {
      const today = tasks.today();
      const created = await notes.create({
        title: params.title?.trim() || `Reflection ${today}`, type: 'reflection', body: params.body, tags: params.tags ?? [],
        fields: { period: params.period, date: today }, conversationId: ctx.conversationId,
      });
      if (!created.success) return fail(created.error);
      return { success: true, output: `Reflection saved: ${created.value.path}.` };
    },
  };
}

function planReviewTool(services: NotesServices): AnyTool {
  return {
    name: 'plan_review',
    effects: [],
    aliases: ['planReview'],
    description: 'Start a planning session: lists active goals and the open tasks due in the period (and overdue, and undated ones). Then agree the plan with the person and save it with plan_create.',
    parameters: { type: 'object', properties: { period: { type: 'string', enum: [...PERIODS], default: 'week' } }, additionalProperties: false },
    async execute(params: { period?: Period }, ctx) {
      const review = planningReviewOf(services, params.period ?? 'week');
      return outsideAware(ctx, review.paths, review.text);
    },
  };
}

function planCreateTool(services: NotesServices): AnyTool {
  const { notes, tasks } = services;
  return {
    name: 'plan_create',
    effects: PERSISTS_NOTES,
    aliases: ['planCreate'],
    description:
      'Save a plan as a note of type plan: the plan text, links to the goals it serves, and its new tasks as checklist lines in the note (they show up in task_search and /tasks). Existing tasks are not copied: mention them in the text.',
    parameters: {
      type: 'object',
      properties: {
        title: { type: 'string', maxLength: 200, description: 'default "Plan <period> <date>"' },
        period: { type: 'string', enum: [...PERIODS], default: 'week' },
        body: { type: 'string', minLength: 1, maxLength: 50_000 },
        goals: { type: 'array', items: { type: 'string' }, maxItems: 20, description: 'titles of the goals this plan serves' },
        tasks: {
          type: 'array',
          maxItems: 50,
          items: {
            type: 'object',
            properties: { description: { type: 'string', minLength: 1, maxLength: 300 }, due: DATE, scheduled: DATE, priority: { type: 'string', enum: ['highest', 'high', 'medium', 'low', 'lowest'] }, reminder: { type: 'string' } },
            required: ['description'],
            additionalProperties: false,
          },
        },
      },
      required: ['body'],
      additionalProperties: false,
    },
    async execute(params: { title?: string; period?: Period; body: string; goals?: string[]; tasks?: TaskInput[] }, ctx) {
      const period = params.period ?? 'week';
      const today = tasks.today();
      const lines: string[] = [];
      for (const input of params.tasks ?? []) {
        const line = tasks.buildLine(input);
        if (!line.success) return fail(`Not saved: task "${input.description}": ${line.error}`);
        lines.push(line.value);
      }
      const goalLinks: string[] = [];
      for (const goal of params.goals ?? []) {
        const found = notes.find(goal);
        if (!found.success) return fail(`Not saved: ${found.error}`);
        goalLinks.push(`[[${found.value.name}]]`);
      }
      let body = params.body.trim();
      if (goalLinks.length > 0) body += `\n\n## Goals\n\n${goalLinks.map((link) => `- ${link}`).join('\n')}`;
      if (lines.length > 0) body += `\n\n## Tasks\n\n${lines.join('\n')}`;
      const created = await notes.create({
        title: params.title?.trim() || `Plan ${period === 'day' ? '' : `${period} of `}${today}`, type: 'plan', body,
        fields: { period, from: today, until: periodEnd(today, period) }, conversationId: ctx.conversationId,
      });
      if (!created.success) return fail(created.error);
      const written = tasks.files.read(created.value.path)?.tasks ?? [];
      services.reminders?.follow(written, ctx.unattended ? undefined : ctx.origin);
      return { success: true, output: `Plan saved: ${created.value.path} with ${written.length} task(s).${written.length > 0 ? `\n${written.map(taskForModel).join('\n')}` : ''}` };
    },
  };
}
