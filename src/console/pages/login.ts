import { field, type ConsoleApp, type Route } from '../app.js';
import { SESSION_COOKIE, SESSION_TTL_MS } from '../auth.js';
import { html } from '../html.js';
import { page } from '../layout.js';
import { sessionCookie } from '../security.js';

/**
 * Logging in: `familiar console` prints `…/console/login#token=…`. The token sits after the `#`, which the
 * browser never sends: the page's script reads it, removes it from the address bar and posts it once; the answer
 * sets the session cookie. Without the script, the person pastes the token into the form. The static files and
 * this page are the only things served without a session.
 */
export function loginRoutes(app: ConsoleApp): Route[] {
  const secure = app.deps.config.http.public_url?.startsWith('https:') === true;
  const loginPage = (status: number, message?: string) => ({
    type: 'html' as const,
    status,
    body: page({
      title: 'Log in', section: 'login', assets: app.assets.urls,
      ...(message ? { flash: { kind: 'error' as const, text: message } } : {}),
      body: html`<section class="login card">
  <h1>Log in to Familiar</h1>
  <p>Run <code>familiar console</code> on the machine where Familiar runs and open the link it prints. A link works once, for 10 minutes.</p>
  <form method="post" action="/console/login" id="login-form">
    <label for="token">Or paste the token (the part after <code>#token=</code>):</label>
    <input id="token" name="token" type="password" autocomplete="off" spellcheck="false" required>
    <button type="submit" class="primary">Log in</button>
  </form>
  <p class="muted" id="login-status" role="status"></p>
</section>`,
    }),
  });

  return [
    { method: 'GET', path: /^\/console\/?$/, public: true, handle: async ({ session }) => ({ type: 'redirect', location: session ? '/console/chat' : '/console/login' }) },
    { method: 'GET', path: /^\/console\/login$/, public: true, handle: async ({ session }) => (session ? { type: 'redirect', location: '/console/chat' } : loginPage(200)) },
    {
      method: 'POST', path: /^\/console\/login$/, public: true, maxBody: 4096,
      async handle({ form, request, response }) {
        const exchanged = app.auth.exchange(field(form, 'token'), request.headers['user-agent']);
        if (!exchanged.success) {
          app.deps.log.warn({ component: 'console' }, 'console: a login with an unknown, used or expired token was refused');
          return wantsJson(request.headers.accept) ? { type: 'json', status: 401, body: { error: exchanged.error } } : loginPage(401, exchanged.error);
        }
        response.setHeader('Set-Cookie', sessionCookie(SESSION_COOKIE, exchanged.value.id, { maxAgeS: Math.floor(SESSION_TTL_MS / 1000), secure }));
        app.deps.log.info({ component: 'console' }, 'console: logged in');
        return wantsJson(request.headers.accept) ? { type: 'json', body: { next: '/console/chat' } } : { type: 'redirect', location: '/console/chat' };
      },
    },
    {
      method: 'POST', path: /^\/console\/logout$/,
      async handle({ session, response }) {
        if (session) app.auth.logout(session.id);
        response.setHeader('Set-Cookie', sessionCookie(SESSION_COOKIE, '', { maxAgeS: 0, secure }));
        return { type: 'redirect', location: '/console/login' };
      },
    },
    {
      method: 'GET', path: /^\/console\/assets\/([a-z0-9.-]+)$/, public: true,
      async handle({ params, url }) {
        const asset = app.assets.get(params[0] ?? '');
        if (!asset) return { type: 'json', status: 404, body: { error: 'no such file' } };
        // A versioned URL never changes content; an unversioned one is checked each time.
        const cache = url.searchParams.get('v') === asset.version ? 'public, max-age=31536000, immutable' : 'no-cache';
        return { type: 'file', contentType: asset.contentType, body: asset.body, cache };
      },
    },
  ];
}

function wantsJson(accept: string | undefined): boolean {
  return accept?.includes('application/json') === true;
}
