import { errorMessage } from '../../errors.js';
import type { ConsoleApp, RequestContext, Route } from '../app.js';
import { html } from '../html.js';
import { actionButton, emptyState } from '../layout.js';
import { householdSection } from './people.js';

/** People who wrote to the bot and are waiting to be let in (pairing codes): approve or deny; who is in already. */
export function pairingRoutes(app: ConsoleApp): Route[] {
  const decide = (action: 'approve' | 'deny'): Route => ({
    method: 'POST', path: new RegExp(`^/console/pairing/([A-Za-z0-9]{4,16})/${action}$`),
    async handle({ params, session }) {
      const pairing = app.deps.pairing;
      if (!pairing) return { type: 'redirect', location: '/console/pairing' };
      try {
        const request = pairing[action](params[0] ?? '') as { userName?: string; channel?: string };
        const who = `${request.userName ?? 'the person'} (${request.channel ?? ''})`;
        app.setFlash(session, { kind: 'ok', text: action === 'approve' ? `Let ${who} in.` : `Denied ${who}; they get no further codes.` });
      } catch (error) {
        app.setFlash(session, { kind: 'error', text: errorMessage(error) });
      }
      return { type: 'redirect', location: '/console/pairing' };
    },
  });
  return [
    { method: 'GET', path: /^\/console\/pairing$/, handle: async (context) => pairingPage(app, context) },
    decide('approve'),
    decide('deny'),
  ];
}

function pairingPage(app: ConsoleApp, context: RequestContext) {
  const pairing = app.deps.pairing;
  const csrf = context.session?.csrf ?? '';
  const household = householdSection(app);
  if (!pairing) return app.render(context, { title: 'People', section: 'pairing', body: html`<h1>People</h1>${household}${emptyState('No chat channel is configured, so nobody can ask to be let in.')}` });
  const pending = pairing.pending();
  const paired = pairing.paired();
  const body = html`<h1>People</h1>${household}
<h2>Waiting to be let in</h2>
<p class="muted">Someone the bot does not know got a code in a direct chat. Approve only people you know: they can then talk to the assistant.</p>
${pending.length === 0 ? emptyState('Nobody is waiting.') : html`<ul class="cards">${pending.map((request) => html`<li class="card">
  <header><strong>${request.userName || `user ${request.userId}`}</strong> <span class="muted">on ${request.channel} · id ${request.userId} · asked ${app.formatTime(request.createdAt)} · code <code>${request.code}</code> expires ${app.formatTime(request.expiresAt)}</span></header>
  <div class="actions">${actionButton({ action: `/console/pairing/${request.code}/approve`, label: 'Let in', csrf, kind: 'primary', confirm: `Let ${request.userName || request.userId} talk to the assistant?` })}
  ${actionButton({ action: `/console/pairing/${request.code}/deny`, label: 'Deny', csrf, kind: 'danger' })}</div>
</li>`)}</ul>`}
<h2>Let in by pairing</h2>
${paired.length === 0 ? emptyState('Nobody yet (people in channels.*.allowed_users are not listed here).') : html`<div class="table-wrap"><table class="data"><thead><tr><th>Name</th><th>Channel</th><th>User id</th><th>Since</th></tr></thead>
<tbody>${paired.map((user) => html`<tr><td>${user.userName}</td><td>${user.channel}</td><td>${user.userId}</td><td>${app.formatTime(user.addedAt)}</td></tr>`)}</tbody></table></div>`}`;
  return app.render(context, { title: 'People', section: 'pairing', body });
}
