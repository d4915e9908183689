import { field, type ConsoleApp, type Route } from '../app.js';
import { digest } from '../auth.js';
import { html, type Html } from '../html.js';
import type { ConsolePush } from '../push/console-push.js';
import { parseSubscription } from '../push/push-store.js';

/**
 * Notifications on this device: the page's switch subscribes the browser (the page script asks the PushManager with
 * the daemon's VAPID public key) and sends the subscription here; switching off removes it. And the answer a
 * notification's Approve or Deny sends: public (no cookie: a phone's session may have ended, and the token is the
 * proof), still same-origin, and it counts only with the one-time token that question's notification carried.
 */
export function pushRoutes(app: ConsoleApp, push: ConsolePush, person: string): Route[] {
  return [
    {
      method: 'POST', path: /^\/console\/push\/subscribe$/, maxBody: 8192,
      async handle({ form, session, request }) {
        const parsed = parseSubscription(field(form, 'subscription'));
        if (!parsed.success) return { type: 'json', status: 400, body: { error: parsed.error } };
        push.store.add(parsed.value, { person, sessionHash: session ? digest(session.id) : undefined, userAgent: request.headers['user-agent'] }, app.now());
        app.deps.log.info({ component: 'push', push: new URL(parsed.value.endpoint).host }, 'push: a device turned notifications on');
        return { type: 'json', body: { subscribed: true } };
      },
    },
    {
      method: 'POST', path: /^\/console\/push\/unsubscribe$/, maxBody: 4096,
      async handle({ form }) {
        return { type: 'json', body: { removed: push.store.remove(field(form, 'endpoint')) } };
      },
    },
    {
      method: 'POST', path: /^\/console\/push\/answer$/, public: true, maxBody: 1024,
      async handle({ form }) {
        const id = field(form, 'question');
        const answer = field(form, 'answer');
        if (answer !== 'approve' && answer !== 'deny') return { type: 'json', status: 400, body: { error: 'answer must be approve or deny' } };
        // The token is spent before the answer is tried: a refused answer (the question ended meanwhile) cannot be replayed either.
        if (!push.tokens.spend(id, field(form, 'token'))) {
          return { type: 'json', status: 403, body: { error: 'This notification\'s answer is no longer valid (already used, or the question ended). Open the console to see it.' } };
        }
        const question = app.deps.approvals.questions.get(id);
        const result = app.deps.approvals.questions.answer(id, answer, { by: 'the owner', surface: 'a notification' });
        if (!result.success) return { type: 'json', status: 409, body: { error: result.error } };
        app.deps.log.info({ component: 'push', tool: question?.tool, callId: question?.callId, answer }, 'push: approval answered from a notification');
        return { type: 'json', body: { answered: answer } };
      },
    },
  ];
}

/** The switch on the Health page, with the key the browser subscribes with (made here on first use). */
export function deviceCard(push: ConsolePush): Html {
  return html`<section class="card" id="device"><h2>This device</h2>
<p><label class="inline-label"><input type="checkbox" id="push-toggle" data-key="${push.store.keys().publicKey}" disabled> Notifications on this device</label>
<span class="muted" id="push-state">Replies, reminders, job results and approvals arrive here when no console page is open. ${String(push.store.count())} device(s) have them on.</span></p>
<p class="muted">To install the console as an app, use the browser's “Add to Home Screen” or “Install”. A phone needs the console over https (docs/web-console.md).</p>
</section>`;
}
