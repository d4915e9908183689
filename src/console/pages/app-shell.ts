import type { ConsoleApp, Route } from '../app.js';

/**
 * What makes the console an installable app: the web app manifest and the service worker. Both are public (the
 * browser fetches a manifest without cookies) and hold nothing of the person's. The worker is served from
 * /console/ so its scope is the whole console, with the shell's versioned URLs written in: a new version of any
 * shell file is a new worker, which replaces the old cache.
 */
export function appShellRoutes(app: ConsoleApp): Route[] {
  const urls = app.assets.urls;
  const shell = [urls.css, urls.js, urls.icon, urls.icon192, urls.icon512];
  const version = shell.map((url) => url.slice(url.indexOf('?v=') + 3)).join('.');
  const worker = Buffer.concat([
    Buffer.from(`const SHELL = ${JSON.stringify({ version, urls: shell, icon: urls.icon192 })};\n`),
    app.assets.get('sw.js')?.body ?? Buffer.alloc(0),
  ]);
  const manifest = Buffer.from(JSON.stringify({
    id: '/console/', name: 'Familiar', short_name: 'Familiar', description: 'Your Familiar: chat, approvals, jobs and memory.',
    start_url: '/console/chat', scope: '/console/', display: 'standalone', background_color: '#ffffff', theme_color: '#3b5bdb',
    icons: [
      { src: urls.icon192, sizes: '192x192', type: 'image/png', purpose: 'any' },
      { src: urls.icon512, sizes: '512x512', type: 'image/png', purpose: 'any' },
      { src: urls.icon, sizes: 'any', type: 'image/svg+xml' },
    ],
  }));
  return [
    {
      method: 'GET', path: /^\/console\/manifest\.webmanifest$/, public: true,
      handle: async () => ({ type: 'file', contentType: 'application/manifest+json', body: manifest, cache: 'no-cache' }),
    },
    {
      method: 'GET', path: /^\/console\/sw\.js$/, public: true,
      // Checked on every load, so a new daemon's shell replaces the old one at once.
      handle: async () => ({ type: 'file', contentType: 'text/javascript; charset=utf-8', body: worker, cache: 'no-cache' }),
    },
  ];
}
