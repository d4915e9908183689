// The console's service worker (served at /console/sw.js, scope /console/, with the shell's URLs put in SHELL
// above this line). It keeps only the app shell — the style sheet, the script, the icons — so the installed app
// opens at once; pages and answers carry the person's data and always come from the daemon, never from a cache.
// It shows Web Push notifications and answers an approval's Approve or Deny with the one-time token that came in
// the (end-to-end encrypted) push: no cookie is sent with that answer, the token alone counts, once.
/* global SHELL */
const CACHE = `familiar-shell-${SHELL.version}`;

self.addEventListener('install', (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(SHELL.urls)).then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches.keys()
      .then((keys) => Promise.all(keys.filter((key) => key !== CACHE).map((key) => caches.delete(key))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url);
  // Everything but the shell's own versioned files goes to the network untouched.
  if (event.request.method !== 'GET' || url.origin !== self.location.origin || !SHELL.urls.includes(url.pathname + url.search)) return;
  event.respondWith(caches.match(event.request).then((hit) => hit ?? fetch(event.request)));
});

self.addEventListener('push', (event) => {
  let data;
  try {
    data = event.data ? event.data.json() : {};
  } catch {
    data = { body: event.data ? event.data.text() : '' };
  }
  const options = {
    body: data.body ?? '', tag: data.tag, icon: SHELL.icon, badge: SHELL.icon,
    data: { url: data.url ?? '/console/chat', approval: data.approval },
  };
  if (data.approval) {
    options.actions = [{ action: 'approve', title: 'Approve' }, { action: 'deny', title: 'Deny' }];
    options.requireInteraction = true;
  }
  event.waitUntil(self.registration.showNotification(data.title ?? 'Familiar', options));
});

self.addEventListener('notificationclick', (event) => {
  const data = event.notification.data ?? {};
  event.notification.close();
  if (data.approval && (event.action === 'approve' || event.action === 'deny')) {
    event.waitUntil(answer(data.approval, event.action));
    return;
  }
  event.waitUntil(open(data.url ?? '/console/chat'));
});

async function answer(approval, choice) {
  let text;
  try {
    const response = await fetch('/console/push/answer', {
      method: 'POST', credentials: 'omit',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ question: approval.id, token: approval.token, answer: choice }),
    });
    text = response.ok ? (choice === 'approve' ? 'Approved.' : 'Denied.') : (await response.text()).trim();
  } catch {
    text = 'The daemon could not be reached; the question is still open in the console.';
  }
  await self.registration.showNotification('Familiar', { body: text, tag: approval.id, icon: SHELL.icon });
}

async function open(url) {
  const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
  const shown = windows.find((client) => new URL(client.url).pathname.startsWith('/console/'));
  if (shown) {
    await shown.focus();
    return shown.navigate(url);
  }
  return self.clients.openWindow(url);
}
