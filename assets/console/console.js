// Familiar console: the one script of the pages. Every page works without it (plain forms, server-rendered); this
// adds what needs a script: logging in from the link's #token, the chat's streamed answer, live approval cards and
// log lines, the memory preview, confirmations. It builds text with textContent; the only HTML it inserts is what
// the console's own server rendered (fragments, Markdown it has already made safe).

const csrf = document.querySelector('meta[name="csrf-token"]')?.getAttribute('content') ?? '';
const section = document.body.dataset.section;

/** POST to the console with the session's CSRF token; resolves with the Response. */
function post(url, body) {
  return fetch(url, { method: 'POST', body, headers: { 'X-CSRF-Token': csrf, Accept: 'application/json' }, credentials: 'same-origin' });
}

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** An assistant message whose HTML the console's server rendered and made safe (a command's answer, a delivery). */
function renderedMessage(kind, html) {
  const item = element('li', `message assistant ${kind}`);
  const bubble = element('div', 'bubble markdown');
  bubble.innerHTML = html; // rendered and made safe by the console's server
  item.append(bubble);
  return item;
}

/**
 * Buttons under a delivered message (a reminder's Snooze and Done): a press is posted, and once it counted the
 * buttons give way to its outcome; a refusal or a late press only says so.
 */
function replyButtons(buttons) {
  const row = element('div', 'actions reply-buttons');
  const said = element('p', 'muted');
  for (const { label, data } of buttons) {
    const button = element('button', 'plain', label);
    button.type = 'button';
    button.addEventListener('click', async () => {
      for (const each of row.querySelectorAll('button')) each.disabled = true;
      const response = await post('/console/chat/button', new URLSearchParams({ data, _csrf: csrf }));
      const answer = await response.json().catch(() => ({}));
      if (answer.outcome) { row.replaceWith(element('p', 'outcome', answer.outcome)); return; }
      said.textContent = answer.notice ?? answer.error ?? 'That did not work.';
      for (const each of row.querySelectorAll('button')) each.disabled = false;
    });
    row.append(button);
  }
  row.append(said);
  return row;
}

// ---- Logging in: the token comes after #, which the browser never sends; it is posted once and then forgotten.
function login() {
  const form = document.getElementById('login-form');
  const status = document.getElementById('login-status');
  const send = async (token) => {
    status.textContent = 'Logging in…';
    const body = new URLSearchParams({ token });
    const response = await fetch('/console/login', { method: 'POST', body, headers: { Accept: 'application/json' }, credentials: 'same-origin' });
    const answer = await response.json().catch(() => ({}));
    if (response.ok) location.replace(answer.next ?? '/console/chat');
    else status.textContent = answer.error ?? `Refused (${response.status}).`;
  };
  const match = /(?:^#|&)token=([A-Za-z0-9_-]+)/.exec(location.hash);
  if (match) {
    // Out of the address bar and the history at once: a link is spent by its first use anyway.
    history.replaceState(null, '', location.pathname);
    void send(match[1]);
  }
  form?.addEventListener('submit', (event) => {
    event.preventDefault();
    const token = new FormData(form).get('token');
    if (typeof token === 'string' && token.trim()) void send(token.trim().replace(/^.*#token=/, ''));
  });
}

// ---- Confirmations for destructive buttons (data-confirm on the form).
document.addEventListener('submit', (event) => {
  const form = event.target;
  if (form instanceof HTMLFormElement && form.dataset.confirm && !window.confirm(form.dataset.confirm)) event.preventDefault();
}, true);

// ---- Live parts of a page: [data-live=NAME] with data-src is re-fetched when its topic changes.
async function refresh(name) {
  for (const target of document.querySelectorAll(`[data-live="${name}"]`)) {
    const source = target.dataset.src;
    if (!source) continue;
    const response = await fetch(source, { credentials: 'same-origin', headers: { 'X-Requested-With': 'console' } });
    if (response.ok) target.innerHTML = await response.text();
  }
}

function setBadge(count) {
  const badge = document.querySelector('[data-badge="approvals"]');
  if (!badge) return;
  badge.textContent = String(count);
  badge.hidden = count === 0;
}

// Approval buttons answer in place (the card list refreshes from the event that follows).
document.addEventListener('submit', async (event) => {
  const form = event.target;
  // The attribute, not form.action: a field named "action" (the memory editor's) shadows that property.
  const target = form instanceof HTMLFormElement ? form.getAttribute('action') ?? '' : '';
  if (!target.includes('/console/approvals/') || event.defaultPrevented) return;
  event.preventDefault();
  for (const button of form.closest('.approval')?.querySelectorAll('button') ?? []) button.disabled = true;
  const response = await post(target, new FormData(form));
  if (!response.ok) {
    const answer = await response.json().catch(() => ({}));
    window.alert(answer.error ?? `Not answered (${response.status}).`);
  }
  await refresh('approvals');
});

// ---- Events from the daemon.
function listen(topics, handlers) {
  const source = new EventSource(`/console/events?topics=${topics.join(',')}`);
  for (const [topic, handler] of Object.entries(handlers)) {
    source.addEventListener(topic, (event) => handler(JSON.parse(event.data)));
  }
  let opened = false;
  source.addEventListener('open', () => {
    // After a reconnect (a daemon restart) the lists may have changed meanwhile.
    if (opened) void refresh('approvals');
    opened = true;
  });
  return source;
}

// ---- The chat.
function chat() {
  const transcript = document.getElementById('transcript');
  const composer = document.getElementById('composer');
  const stopForm = document.getElementById('stop-form');
  if (!transcript) return;
  const conversation = transcript.dataset.conversation;
  const nearBottom = () => window.innerHeight + window.scrollY >= document.body.scrollHeight - 160;
  const append = (node) => {
    const follow = nearBottom();
    transcript.querySelector('li.empty')?.remove();
    transcript.append(node);
    if (follow) node.scrollIntoView({ block: 'end' });
  };
  const userBubble = (messageId, text, files) => {
    if (transcript.querySelector(`[data-message="${CSS.escape(messageId)}"]`)) return;
    const item = element('li', 'message user');
    item.dataset.message = messageId;
    const bubble = element('div', 'bubble', text);
    if (files?.length) bubble.append(element('div', 'muted', `📎 ${files.join(', ')}`));
    item.append(bubble);
    append(item);
  };
  const streaming = () => transcript.querySelector('li.streaming');
  const ensureStreaming = (messageId) => {
    let item = streaming();
    if (!item) {
      item = element('li', 'message assistant streaming');
      item.append(element('div', 'bubble'));
      append(item);
    }
    if (messageId) item.dataset.liveTurn = messageId;
    return item;
  };
  const toolCard = (event) => {
    const item = element('li', `tool ${event.state}`);
    item.dataset.call = event.callId;
    const details = element('details');
    const summary = element('summary');
    summary.append(element('span', 'tool-name', event.tool), ' ', element('code', 'tool-args', event.arguments ?? ''), ' ',
      element('span', 'tool-state', event.state === 'running' ? 'running…' : event.state), ' ', element('span', 'tool-time', ''));
    details.append(summary, element('pre', 'tool-output', ''));
    item.append(details);
    return item;
  };
  const inlineImages = new Set(['image/png', 'image/jpeg', 'image/webp', 'image/gif']);
  const artifacts = (list) => list.map((file) => {
    const item = element('li', 'artifact');
    if (inlineImages.has(file.mimeType)) {
      const image = element('img', 'artifact-image');
      image.src = `/console/artifacts/${file.id}/view`;
      image.alt = file.name;
      item.append(image, element('br'));
    }
    const link = element('a', '', `📎 ${file.name}`);
    link.href = `/console/artifacts/${file.id}`;
    link.setAttribute('download', '');
    item.append(link, ' ', element('small', 'muted', `${Math.max(1, Math.round(file.size / 1024))} KB`));
    return item;
  });
  const mine = (event) => event.conversationId === conversation;

  listen(['chat', 'approvals'], {
    approvals: (event) => { setBadge(event.waiting); void refresh('approvals'); },
    chat: (event) => {
      if (!mine(event)) return;
      switch (event.kind) {
        case 'accepted': userBubble(event.messageId, event.text, event.files); break;
        case 'working': ensureStreaming(event.messageId); break;
        case 'delta': ensureStreaming().querySelector('.bubble').append(event.text); if (nearBottom()) streaming()?.scrollIntoView({ block: 'end' }); break;
        case 'reset': { const bubble = streaming()?.querySelector('.bubble'); if (bubble) bubble.textContent = ''; break; }
        case 'tool_start': {
          const current = ensureStreaming();
          const bubble = current.querySelector('.bubble');
          // The text before a tool call stays as a step of the answer; the answer goes on below the call.
          if (bubble.textContent.trim()) { current.classList.remove('streaming'); current.classList.add('step'); delete current.dataset.liveTurn; }
          else current.remove();
          append(toolCard(event));
          ensureStreaming(current.dataset.liveTurn);
          break;
        }
        case 'tool_end': {
          const card = transcript.querySelector(`[data-call="${CSS.escape(event.callId)}"]`);
          if (!card) break;
          card.className = `tool ${event.state}`;
          card.querySelector('.tool-state').textContent = event.state === 'ok' ? 'done' : event.state;
          card.querySelector('.tool-time').textContent = event.durationMs < 1000 ? `${event.durationMs} ms` : `${(event.durationMs / 1000).toFixed(1)} s`;
          card.querySelector('.tool-output').textContent = event.output ?? '';
          break;
        }
        case 'reply': {
          const item = ensureStreaming(event.messageId);
          item.classList.remove('streaming');
          delete item.dataset.liveTurn;
          const bubble = item.querySelector('.bubble');
          bubble.classList.add('markdown');
          bubble.innerHTML = event.html; // rendered and made safe by the console's server
          for (const file of artifacts(event.artifacts ?? [])) append(file);
          break;
        }
        case 'command': {
          append(renderedMessage('command', event.html));
          if (/^\/reset\b/.test(event.command)) setTimeout(() => location.assign('/console/chat'), 600);
          break;
        }
        case 'delivery': {
          const item = renderedMessage('delivery', event.html);
          if ((event.buttons ?? []).length > 0) item.querySelector('.bubble').append(replyButtons(event.buttons));
          append(item);
          for (const file of artifacts(event.artifacts ?? [])) append(file);
          break;
        }
      }
    },
  });
  void refresh('approvals');

  const newId = () => {
    const bytes = crypto.getRandomValues(new Uint8Array(12));
    return btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  };
  const textarea = composer?.querySelector('textarea');
  const fileInput = composer?.querySelector('input[type=file]');
  const fileNames = document.getElementById('file-names');
  fileInput?.addEventListener('change', () => {
    fileNames.textContent = [...fileInput.files].map((file) => file.name).join(', ');
  });
  textarea?.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      composer.requestSubmit();
    }
  });
  const send = async (form, text, files) => {
    const data = new FormData(form);
    const messageId = newId();
    data.set('messageId', messageId);
    if (text !== undefined) data.set('text', text);
    const shown = String(data.get('text') ?? '').trim();
    if (!shown && !files.length) return;
    userBubble(messageId, shown, files.map((file) => file.name));
    const response = await post('/console/chat/send', data);
    if (!response.ok) {
      const answer = await response.json().catch(() => ({}));
      transcript.querySelector(`[data-message="${CSS.escape(messageId)}"]`)?.remove();
      window.alert(answer.error ?? `Not sent (${response.status}).`);
      return false;
    }
    return true;
  };
  composer?.addEventListener('submit', async (event) => {
    event.preventDefault();
    const files = [...(fileInput?.files ?? [])];
    const sent = await send(composer, undefined, files);
    if (sent) {
      textarea.value = '';
      if (fileInput) fileInput.value = '';
      fileNames.textContent = '';
    }
    textarea.focus();
  });
  stopForm?.addEventListener('submit', (event) => {
    event.preventDefault();
    void send(stopForm, '/stop', []);
  });
  transcript.lastElementChild?.scrollIntoView({ block: 'end' });
}

// ---- The log on the health page, live.
function logs() {
  const list = document.getElementById('log');
  const level = document.getElementById('log-level');
  if (!list) return;
  const zone = list.dataset.timezone;
  const format = new Intl.DateTimeFormat('sv-SE', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' });
  const names = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };
  const filter = () => {
    const minimum = Number(level.value);
    for (const item of list.children) item.hidden = Number(item.dataset.level) < minimum;
  };
  level.addEventListener('change', filter);
  filter();
  list.scrollTop = list.scrollHeight;
  listen(['logs', 'approvals'], {
    approvals: (event) => setBadge(event.waiting),
    logs: ({ line }) => {
      let entry;
      try { entry = JSON.parse(line); } catch { entry = { msg: line, level: 30 }; }
      const { level: value = 30, time, msg = '', component, ...rest } = entry;
      delete rest.pid;
      delete rest.hostname;
      const item = element('li');
      item.dataset.level = String(value);
      item.append(element('time', '', typeof time === 'number' ? format.format(new Date(time)) : ''), ' ',
        element('span', `level l${value}`, names[value] ?? 'info'), ' ');
      if (component) item.append(element('span', 'component', String(component)), ' ');
      item.append(element('span', 'msg', String(msg)));
      if (Object.keys(rest).length > 0) item.append(' ', element('code', 'extra', JSON.stringify(rest).slice(0, 500)));
      item.hidden = Number(value) < Number(level.value);
      const follow = list.scrollTop + list.clientHeight >= list.scrollHeight - 40;
      list.append(item);
      while (list.children.length > 500) list.firstElementChild.remove();
      if (follow) list.scrollTop = list.scrollHeight;
    },
  });
}

// ---- The memory editor: Edit / Preview without a round trip of the whole page, and no silent loss of typing.
function memory() {
  const form = document.getElementById('editor');
  if (!form) return;
  const textarea = form.querySelector('textarea');
  const preview = document.getElementById('preview');
  const original = textarea.value;
  let saving = false;
  form.addEventListener('submit', async (event) => {
    const action = event.submitter?.value;
    if (action === 'save') { saving = true; return; }
    event.preventDefault();
    for (const tab of form.querySelectorAll('.tab')) tab.setAttribute('aria-selected', String(tab.value === action));
    if (action === 'preview') {
      const response = await post('/console/memory/preview', new URLSearchParams({ content: textarea.value, _csrf: csrf }));
      preview.innerHTML = response.ok ? await response.text() : ''; // rendered and made safe by the console's server
      preview.hidden = false;
      textarea.hidden = true;
    } else {
      preview.hidden = true;
      textarea.hidden = false;
      textarea.focus();
    }
  });
  window.addEventListener('beforeunload', (event) => {
    if (!saving && textarea.value !== original) event.preventDefault();
  });
}

// ---- Pages that only need the approvals badge, and the jobs list that changes when a run ends.
function badgeOnly(topics = ['approvals'], onJobs) {
  listen(topics, {
    approvals: (event) => { setBadge(event.waiting); void refresh('approvals'); },
    jobs: () => onJobs?.(),
  });
}

/** The installed app: the service worker (the shell's cache, notifications) and the "Notifications on this device" switch. */
async function installable() {
  if (!('serviceWorker' in navigator)) return;
  const registered = navigator.serviceWorker.register('/console/sw.js', { scope: '/console/' });
  const toggle = document.getElementById('push-toggle');
  const state = document.getElementById('push-state');
  if (!toggle) return;
  const say = (text) => { if (state) state.textContent = text; };
  if (!('PushManager' in window) || !window.isSecureContext) {
    say('This browser cannot get notifications here (a phone needs the console over https).');
    return;
  }
  const registration = await registered.then(() => navigator.serviceWorker.ready);
  toggle.checked = (await registration.pushManager.getSubscription()) !== null;
  toggle.disabled = false;
  toggle.addEventListener('change', async () => {
    toggle.disabled = true;
    try {
      if (toggle.checked) {
        if ((await Notification.requestPermission()) !== 'granted') throw new Error('Notifications are blocked for this site in the browser\'s settings.');
        const key = Uint8Array.from(atob(toggle.dataset.key.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));
        const subscription = await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key });
        const response = await post('/console/push/subscribe', new URLSearchParams({ subscription: JSON.stringify(subscription) }));
        if (!response.ok) throw new Error((await response.json()).error ?? `the daemon answered ${response.status}`);
        say('Notifications are on for this device.');
      } else {
        const subscription = await registration.pushManager.getSubscription();
        if (subscription) {
          await post('/console/push/unsubscribe', new URLSearchParams({ endpoint: subscription.endpoint }));
          await subscription.unsubscribe();
        }
        say('Notifications are off for this device.');
      }
    } catch (error) {
      toggle.checked = !toggle.checked;
      say(`Could not change notifications: ${error.message}`);
    } finally {
      toggle.disabled = false;
    }
  });
}

if (section !== 'login') installable().catch(() => undefined);

switch (section) {
  case 'login': login(); break;
  case 'chat': chat(); break;
  case 'health': logs(); break;
  case 'memory': memory(); badgeOnly(); break;
  case 'jobs': badgeOnly(['approvals', 'jobs'], async () => {
    // A run that ended: the page is re-read and its main part replaced (the page is the server's rendering).
    // It is asked as the script's (X-Requested-With), so the flash line meant for the next page is left for it,
    // and the one this page shows stays.
    const response = await fetch(location.href, { credentials: 'same-origin', headers: { 'X-Requested-With': 'console' } });
    if (!response.ok) return;
    const next = new DOMParser().parseFromString(await response.text(), 'text/html').getElementById('main');
    const main = document.getElementById('main');
    if (!next || !main) return;
    const flash = main.querySelector(':scope > .flash');
    if (flash && !next.querySelector(':scope > .flash')) next.prepend(flash);
    main.replaceChildren(...next.childNodes);
  }); break;
  default: badgeOnly();
}
