import type { OpenQuestion, QuestionEvent, Settlement } from '../../approval/open-questions.js';
import type { ApprovalPrompter } from '../../approval/prompter.js';
import { backTo, field, type ConsoleApp, type Route } from '../app.js';
import { html, type Html } from '../html.js';
import { actionButton, emptyState } from '../layout.js';

/** The console chat's own questions: shown as cards in the console (here and in the chat), answered there. */
export function consolePrompter(): ApprovalPrompter {
  return {
    ask: (prompt) => (prompt.settled ? prompt.settled.then((settled) => settled.answer) : Promise.resolve('timeout')),
  };
}

const RECENT = 20;

/**
 * Open approval questions from every channel, with where they come from (the chat, and the outside content a
 * tainted turn had read), answered here as on the chat's own buttons: the first answer anywhere wins. A question
 * answered elsewhere (or timed out) leaves the list and shows under "Recently decided" with how it ended.
 */
export function approvalRoutes(app: ConsoleApp): Route[] {
  const recent: Array<{ question: OpenQuestion; settlement: Settlement; at: number }> = [];
  app.deps.approvals.questions.subscribe((event: QuestionEvent) => {
    if (event.type !== 'closed') return;
    recent.unshift({ question: event.question, settlement: event.settlement, at: app.now() });
    recent.splice(RECENT);
  });

  const list = (csrf: string, channel: string | undefined): Html => {
    const open = app.deps.approvals.questions.list().filter((question) => channel === undefined || question.channel === channel);
    const decided = recent.filter((entry) => channel === undefined || entry.question.channel === channel).slice(0, channel ? 3 : RECENT);
    return html`<div class="approvals" data-waiting="${open.length}">
  ${open.length === 0 && channel === undefined ? emptyState('Nothing is waiting for your approval.') : html``}
  ${open.map((question) => html`<article class="card approval" data-question="${question.id}">
    <header><strong>${question.tool}</strong> <span class="muted">asked in ${where(question)} · ${app.formatTime(question.askedAt)} · no answer by ${app.formatTime(question.expiresAt)} means no</span></header>
    ${question.taint.length > 0 ? html`<p class="provenance">⚠ This turn had read outside content: ${question.taint.map((source) => html`<span class="chip">${app.redact(source)}</span>`)}</p>` : html``}
    <pre class="question">${app.redact(question.text)}</pre>
    <div class="actions">
      ${actionButton({ action: `/console/approvals/${question.id}`, label: 'Approve', csrf, fields: { answer: 'approve' }, kind: 'primary' })}
      ${actionButton({ action: `/console/approvals/${question.id}`, label: 'Deny', csrf, fields: { answer: 'deny' }, kind: 'danger' })}
    </div>
  </article>`)}
  ${decided.length > 0 ? html`<h2 class="subtle">Recently decided</h2><ul class="decided">${decided.map((entry) => html`<li class="${entry.settlement.answer}"><strong>${entry.question.tool}</strong> <span class="muted">(${where(entry.question)})</span> — ${entry.settlement.outcome} <small class="muted">${app.formatTime(entry.at)}</small></li>`)}</ul>` : html``}
</div>`;
  };

  return [
    {
      method: 'GET', path: /^\/console\/approvals$/,
      async handle(context) {
        const csrf = context.session?.csrf ?? '';
        const channel = context.url.searchParams.get('channel') ?? undefined;
        if (context.url.searchParams.get('fragment') === '1') return { type: 'html', body: list(csrf, channel) };
        return app.render(context, {
          title: 'Approvals', section: 'approvals',
          body: html`<h1>Approvals</h1><p class="muted">High-risk actions wait here and in the chat that asked (its buttons). The first answer anywhere counts; the other places then show it.</p>
<div data-live="approvals" data-src="/console/approvals?fragment=1">${list(csrf, undefined)}</div>`,
        });
      },
    },
    {
      method: 'POST', path: /^\/console\/approvals\/([A-Za-z0-9_-]{10,64})$/,
      async handle({ params, form, request, session }) {
        const answer = field(form, 'answer');
        if (answer !== 'approve' && answer !== 'deny') return { type: 'json', status: 400, body: { error: 'answer must be approve or deny' } };
        const question = app.deps.approvals.questions.get(params[0] ?? '');
        const result = app.deps.approvals.questions.answer(params[0] ?? '', answer, { by: 'the owner', surface: 'console' });
        if (result.success) app.deps.log.info({ component: 'console', tool: question?.tool, callId: question?.callId, answer }, 'console: approval answered');
        if (request.headers.accept?.includes('application/json')) return result.success ? { type: 'json', body: { answered: answer } } : { type: 'json', status: 409, body: { error: result.error } };
        app.setFlash(session, result.success ? { kind: 'ok', text: answer === 'approve' ? `Approved ${question?.tool ?? ''}.` : `Denied ${question?.tool ?? ''}.` } : { kind: 'error', text: result.error });
        return { type: 'redirect', location: backTo(form, '/console/approvals') };
      },
    },
  ];
}

function where(question: OpenQuestion): string {
  return question.channel === 'console' ? 'the console' : `${question.channel} chat ${question.chatId}`;
}
