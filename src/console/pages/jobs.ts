import { describeNextRun, describeSchedule } from '../../time/describe.js';
import type { Job } from '../../scheduler/types.js';
import type { ConsoleApp, RequestContext, Route } from '../app.js';
import { html } from '../html.js';
import { actionButton, emptyState, formatDuration, truncate } from '../layout.js';
import type { Result } from '../../lib/result.js';

/**
 * What runs unattended: jobs and reminders with their schedule in words, the next run in the person's zone, the
 * last result; pause, resume, run now, remove; each job's run history. Skills' own schedules are on the skills page.
 */
export function jobRoutes(app: ConsoleApp): Route[] {
  const { scheduler, skills } = app.deps;
  const act = (name: string, run: (job: Job) => Promise<string> | string): Route => ({
    method: 'POST', path: new RegExp(`^/console/jobs/([A-Za-z0-9_-]{1,64})/${name}$`),
    async handle({ params, session }) {
      const id = params[0] ?? '';
      // The console is the owner's view: every job, as at the terminal (scheduler/ownership.ts).
      const job = scheduler.get(id);
      if (!job || skills.ownsJob(job)) {
        app.setFlash(session, { kind: 'error', text: job ? `"${id}" is a skill's schedule: change it on the skills page.` : `No job with id "${id}" in this chat; list the jobs to see the ids.` });
        return { type: 'redirect', location: '/console/jobs' };
      }
      try {
        app.setFlash(session, { kind: 'ok', text: await run(job) });
      } catch (error) {
        app.setFlash(session, { kind: 'error', text: error instanceof Error ? error.message : String(error) });
      }
      app.events.publish('jobs', { id });
      return { type: 'redirect', location: name === 'remove' ? '/console/jobs' : `/console/jobs/${encodeURIComponent(id)}` };
    },
  });
  const outcome = (result: Result<unknown>, done: string): string => {
    if (!result.success) throw new Error(result.error);
    return done;
  };
  return [
    { method: 'GET', path: /^\/console\/jobs$/, handle: async (context) => listPage(app, context) },
    { method: 'GET', path: /^\/console\/jobs\/([A-Za-z0-9_-]{1,64})$/, handle: async (context) => jobPage(app, context) },
    act('pause', (job) => outcome(scheduler.pause(job.id), `Paused ${job.id}: it will not run until you resume it.`)),
    act('resume', (job) => outcome(scheduler.resume(job.id), `Resumed ${job.id}.`)),
    act('run', (job) => {
      // A run can take minutes: it goes on in the background and lands in the run history (and its chat).
      void scheduler.runNow(job.id).then((result) => {
        if (!result.success) app.deps.log.warn({ component: 'console', jobId: job.id }, `console: run now refused: ${result.error}`);
        app.events.publish('jobs', { id: job.id });
      });
      return `Started ${job.id}; its result appears in the run history below when it is done.`;
    }),
    act('remove', (job) => {
      if (job.source === 'config') throw new Error(`${job.id} is declared in config.yaml (scheduler.jobs): remove it there, or pause it here.`);
      scheduler.remove(job.id);
      return `Removed ${job.id}.`;
    }),
  ];
}

function listPage(app: ConsoleApp, context: RequestContext) {
  const { scheduler, clock } = app.deps;
  const now = app.now();
  const jobs = scheduler.list().filter((job) => !app.deps.skills.ownsJob(job));
  const csrf = context.session?.csrf ?? '';
  const body = html`<h1>Jobs and reminders</h1>
<p class="muted">Times are in ${app.deps.config.timezone}. Make new ones in the chat ("remind me every Monday at 9 to…") or with <code>familiar jobs add</code>.</p>
${jobs.length === 0 ? emptyState('No jobs or reminders yet.') : html`<ul class="cards jobs">${jobs.map((job) => {
    const last = scheduler.runs(job.id, 1)[0];
    return html`<li class="card job${job.enabled ? '' : ' paused'}">
  <header><a href="/console/jobs/${encodeURIComponent(job.id)}"><strong>${job.id}</strong></a> <span class="chip">${job.kind === 'reminder' ? 'reminder' : 'job'}</span>${job.enabled ? html`` : html` <span class="chip warn">paused</span>`}${job.source === 'config' ? html` <span class="chip">config.yaml</span>` : html``}</header>
  <p>${truncate(app.redact(job.prompt), 200)}</p>
  <dl class="facts"><dt>When</dt><dd>${describeSchedule(job, clock)}</dd><dt>Next run</dt><dd>${describeNextRun(job, clock, now)}</dd>
  <dt>Last run</dt><dd>${last ? html`<span class="state ${last.status}">${last.status}</span> ${app.formatTime(last.startedAt)}${last.error ? html` — ${truncate(app.redact(last.error), 120)}` : html``}` : 'never'}</dd></dl>
  <div class="actions">${jobActions(job, csrf)}</div>
</li>`;
  })}</ul>`}`;
  return app.render(context, { title: 'Jobs', section: 'jobs', body });
}

function jobPage(app: ConsoleApp, context: RequestContext) {
  const { scheduler, clock } = app.deps;
  const id = context.params[0] ?? '';
  const job = scheduler.get(id);
  if (!job || app.deps.skills.ownsJob(job)) return app.render(context, { title: 'Job', section: 'jobs', status: 404, body: html`<h1>No job "${id}"</h1><p><a href="/console/jobs">All jobs</a></p>` });
  const runs = scheduler.runs(id, 30);
  const csrf = context.session?.csrf ?? '';
  const body = html`<p><a href="/console/jobs">← All jobs</a></p>
<h1>${job.id}${job.enabled ? '' : ' (paused)'}</h1>
<dl class="facts">
  <dt>What</dt><dd>${job.kind === 'reminder' ? 'Reminder: ' : ''}${app.redact(job.prompt)}</dd>
  <dt>When</dt><dd>${describeSchedule(job, clock)}</dd>
  <dt>Next run</dt><dd>${describeNextRun(job, clock, app.now())}</dd>
  <dt>Results go to</dt><dd>${job.deliverTo ?? (job.origin ? `${job.origin.channel}:${job.origin.chatId}` : app.deps.config.scheduler.default_chat ?? 'nowhere (set scheduler.default_chat)')}</dd>
  <dt>May approve</dt><dd>${job.approve.length > 0 ? job.approve.join(', ') : 'nothing high-risk (nobody can approve in an unattended run)'}</dd>
  <dt>Made</dt><dd>${app.formatTime(job.createdAt)} (${job.source})</dd>
</dl>
<div class="actions">${jobActions(job, csrf)}</div>
<h2>Run history</h2>
${runs.length === 0 ? emptyState('It has not run yet.') : html`<ol class="runs">${runs.map((run) => html`<li class="run ${run.status}"><details${run === runs[0] ? html` open` : html``}>
  <summary><span class="state ${run.status}">${run.status}</span> ${app.formatTime(run.startedAt)} · ${run.trigger === 'schedule' ? 'on schedule' : run.trigger === 'catch_up' ? 'caught up' : 'run by hand'}${run.durationMs !== undefined ? ` · ${formatDuration(run.durationMs)}` : ''}${run.deliveredTo ? ` · sent to ${run.deliveredTo}` : ''}</summary>
  ${run.error ? html`<p class="error">${app.redact(run.error)}</p>` : html``}
  ${run.output ? html`<pre>${app.redact(run.output)}</pre>` : html``}
</details></li>`)}</ol>`}`;
  return app.render(context, { title: job.id, section: 'jobs', body });
}

function jobActions(job: Job, csrf: string) {
  const base = `/console/jobs/${encodeURIComponent(job.id)}`;
  const done = job.doneAt !== undefined;
  return html`${job.enabled
    ? actionButton({ action: `${base}/pause`, label: 'Pause', csrf })
    : done ? html`` : actionButton({ action: `${base}/resume`, label: 'Resume', csrf, kind: 'primary' })}
  ${actionButton({ action: `${base}/run`, label: 'Run now', csrf })}
  ${job.source === 'config' ? html`` : actionButton({ action: `${base}/remove`, label: 'Remove', csrf, kind: 'danger', confirm: `Remove ${job.id}? It will not run again.` })}`;
}
