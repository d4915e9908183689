import { randomBytes } from 'node:crypto';
import { field, type ConsoleApp, type RequestContext, type Route } from '../app.js';
import { html } from '../html.js';
import { actionButton, csrfField, emptyState, formatDuration, truncate } from '../layout.js';
import { CONSOLE_CHANNEL, CONSOLE_CHAT } from '../types.js';

/**
 * Skills: status, trigger, next and last runs; pause and resume. Activating one (a draft, or a skill installed from
 * a hub) lets its instructions and scripts run, so it takes the same confirmation as in the chat: a review page
 * with what the skill contains and the high-risk tools it may use unattended (its approve list), and a confirm
 * button for exactly the files reviewed — then the `manage_skill` tool runs, approved and audited as in a chat.
 * Nothing here installs a skill or edits its files.
 */
export function skillRoutes(app: ConsoleApp): Route[] {
  const { skills } = app.deps;
  const manage = (action: 'pause' | 'resume'): Route => ({
    method: 'POST', path: new RegExp(`^/console/skills/([a-z0-9][a-z0-9_-]{0,47})/${action}$`),
    async handle({ params, session }) {
      const id = params[0] ?? '';
      const outcome = await skills.manage(id, action);
      app.setFlash(session, outcome.success ? { kind: 'ok', text: outcome.value } : { kind: 'error', text: outcome.error });
      return { type: 'redirect', location: `/console/skills/${id}` };
    },
  });
  return [
    { method: 'GET', path: /^\/console\/skills$/, handle: async (context) => listPage(app, context) },
    { method: 'GET', path: /^\/console\/skills\/([a-z0-9][a-z0-9_-]{0,47})$/, handle: async (context) => skillPage(app, context) },
    { method: 'GET', path: /^\/console\/skills\/([a-z0-9][a-z0-9_-]{0,47})\/activate$/, handle: async (context) => reviewPage(app, context) },
    manage('pause'),
    manage('resume'),
    {
      method: 'POST', path: /^\/console\/skills\/([a-z0-9][a-z0-9_-]{0,47})\/activate$/,
      async handle({ params, form, session }) {
        const id = params[0] ?? '';
        const reviewed = field(form, 'reviewed');
        const now = skills.filesHash(id);
        if (!now.success || reviewed === '' || now.value !== reviewed) {
          app.setFlash(session, { kind: 'error', text: 'Not activated: the skill\'s files changed since you reviewed them (or the review is missing). Review it again.' });
          return { type: 'redirect', location: `/console/skills/${id}/activate` };
        }
        // The tool call is what a chat makes: it passes the approval gate (approved by this confirmation) and is audited.
        const outcome = await app.deps.tools.execute({
          name: 'manage_skill', arguments: { id, action: 'activate' }, conversationId: 'console-actions', turnId: `console-${randomBytes(6).toString('hex')}`,
          origin: { channel: CONSOLE_CHANNEL, chatId: CONSOLE_CHAT, userId: CONSOLE_CHAT },
          approve: async () => ({ approved: true, by: 'the owner in the console (reviewed the skill and confirmed)' }),
        });
        app.setFlash(session, { kind: outcome.result.success ? 'ok' : 'error', text: app.redact(outcome.result.output) });
        return { type: 'redirect', location: `/console/skills/${id}` };
      },
    },
  ];
}

function listPage(app: ConsoleApp, context: RequestContext) {
  const summaries = app.deps.skills.list();
  const body = html`<h1>Skills</h1>
<p class="muted">Skills live in ${app.deps.skills.store.dir}. Make or install them in the chat (the install asks for approval) or with <code>familiar skills</code>.</p>
${summaries.length === 0 ? emptyState('No skills yet.') : html`<div class="table-wrap"><table class="data">
<thead><tr><th>Skill</th><th>Status</th><th>Trigger</th><th>Next run</th><th>Last run</th></tr></thead>
<tbody>${summaries.map((summary) => html`<tr>
  <td><a href="/console/skills/${summary.id}"><strong>${summary.id}</strong></a>${summary.name ? html`<br><small>${summary.name}</small>` : html``}${summary.maker !== undefined ? html`<br><small class="muted">by ${summary.maker}</small>` : html``}</td>
  <td>${summary.ok ? html`<span class="chip ${summary.status === 'active' ? 'ok' : summary.status === 'paused' ? 'warn' : ''}">${summary.status ?? '?'}${summary.quarantined ? ', quarantined' : ''}</span>` : html`<span class="chip error">invalid</span>`}${summary.problem ? html`<br><small class="error">${truncate(app.redact(summary.problem), 160)}</small>` : html``}</td>
  <td>${summary.trigger ?? '—'}</td>
  <td>${summary.nextRunAt !== undefined ? app.formatTime(summary.nextRunAt) : '—'}</td>
  <td>${summary.lastRun ? html`<span class="state ${summary.lastRun.status}">${summary.lastRun.status}</span> ${app.formatTime(summary.lastRun.startedAt)}` : 'never'}</td>
</tr>`)}</tbody></table></div>`}`;
  return app.render(context, { title: 'Skills', section: 'skills', body });
}

function skillPage(app: ConsoleApp, context: RequestContext) {
  const { skills } = app.deps;
  const id = context.params[0] ?? '';
  const entry = skills.store.get(id);
  if (!entry) return app.render(context, { title: 'Skill', section: 'skills', status: 404, body: html`<h1>No skill "${id}"</h1><p><a href="/console/skills">All skills</a></p>` });
  const csrf = context.session?.csrf ?? '';
  const shown = skills.show(id);
  const runs = skills.store.runs(id, 20);
  const status = entry.success ? entry.value.status : undefined;
  const body = html`<p><a href="/console/skills">← All skills</a></p>
<h1>${entry.success ? entry.value.name : id}</h1>
<div class="actions">
  ${status === 'active' ? actionButton({ action: `/console/skills/${id}/pause`, label: 'Pause', csrf }) : html``}
  ${status === 'paused' ? actionButton({ action: `/console/skills/${id}/resume`, label: 'Resume', csrf, kind: 'primary' }) : html``}
  ${status === 'draft' || (entry.success && skills.refusal(entry.value) !== undefined) ? html`<a class="button primary" href="/console/skills/${id}/activate">Review and activate…</a>` : html``}
</div>
<pre class="report">${app.redact(shown.success ? shown.value : shown.error)}</pre>
<h2>Runs</h2>
${runs.length === 0 ? emptyState('It has not run yet.') : html`<ol class="runs">${runs.map((run) => html`<li class="run ${run.status}"><details>
  <summary><span class="state ${run.status}">${run.status}</span> ${app.formatTime(run.startedAt)} · ${run.trigger}${run.durationMs !== undefined ? ` · ${formatDuration(run.durationMs)}` : ''}</summary>
  ${run.error ? html`<p class="error">${app.redact(run.error)}</p>` : html``}${run.output ? html`<pre>${app.redact(run.output)}</pre>` : html``}
</details></li>`)}</ol>`}`;
  return app.render(context, { title: id, section: 'skills', body });
}

function reviewPage(app: ConsoleApp, context: RequestContext) {
  const { skills } = app.deps;
  const id = context.params[0] ?? '';
  const review = skills.review(id);
  if (!review) return app.render(context, { title: 'Skill', section: 'skills', status: 404, body: html`<h1>No valid skill "${id}"</h1><p><a href="/console/skills">All skills</a></p>` });
  if (!review.success) return app.render(context, { title: 'Skill', section: 'skills', status: 409, body: html`<h1>${id}</h1><p class="error">${review.error}</p>` });
  const { skill, report, sha256 } = review.value;
  const csrf = context.session?.csrf ?? '';
  const body = html`<p><a href="/console/skills/${id}">← ${id}</a></p>
<h1>Activate ${skill.name}?</h1>
<article class="card approval">
  <p>Approve this action? <strong>manage_skill</strong> is a high-risk tool: activating lets this skill's instructions${report.scripts.length > 0 ? ' and scripts' : ''} run${skill.trigger.type === 'cron' ? ', on its schedule, with nobody watching' : ''}.</p>
  <dl class="facts">
    <dt>Description</dt><dd>${app.redact(skill.description)}</dd>
    <dt>Trigger</dt><dd>${report.trigger}</dd>
    <dt>May approve unattended</dt><dd>${skill.approve.length > 0 ? html`<strong>${skill.approve.join(', ')}</strong> (high-risk tools it may call with nobody asked)` : 'nothing: its high-risk calls are refused when it runs alone'}</dd>
    <dt>Tools it asks for</dt><dd>${report.tools.length === 0 ? 'none' : report.tools.map((tool) => html`<span class="chip">${tool.name}${tool.note ? ` — ${tool.note}` : ''}</span> `)}</dd>
    <dt>Scripts</dt><dd>${report.scripts.length === 0 ? 'none' : `${report.scripts.join(', ')} (they run only in the sandbox)`}</dd>
    <dt>Test</dt><dd>${report.test ?? 'none'}${report.test ? ' (must pass in the sandbox first)' : ''}</dd>
    <dt>Network</dt><dd>${report.network.declared ? 'declared' : 'not declared'}${report.network.hints.length > 0 ? html`; the scripts mention: ${report.network.hints.map((hint) => html`<code>${hint}</code> `)}` : html``}</dd>
    <dt>Files</dt><dd>${report.files.join(', ')}</dd>
  </dl>
  <details><summary>Its instructions</summary><pre>${app.redact(skill.instructions)}</pre></details>
  <form method="post" action="/console/skills/${id}/activate" class="actions">${csrfField(csrf)}<input type="hidden" name="reviewed" value="${sha256}">
    <button type="submit" class="primary">Approve: activate ${id}</button> <a href="/console/skills/${id}" class="button">Deny</a></form>
</article>`;
  return app.render(context, { title: `Activate ${id}`, section: 'skills', body });
}
