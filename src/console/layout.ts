import { html, type Html } from './html.js';

/** The console's sections, in the order of the navigation. */
export const SECTIONS = [
  { id: 'chat', href: '/console/chat', label: 'Chat' },
  { id: 'approvals', href: '/console/approvals', label: 'Approvals' },
  { id: 'activity', href: '/console/activity', label: 'Activity' },
  { id: 'usage', href: '/console/usage', label: 'Usage' },
  { id: 'jobs', href: '/console/jobs', label: 'Jobs' },
  { id: 'calendar', href: '/console/calendar', label: 'Calendar' },
  { id: 'skills', href: '/console/skills', label: 'Skills' },
  { id: 'pairing', href: '/console/pairing', label: 'People' },
  { id: 'memory', href: '/console/memory', label: 'Memory' },
  { id: 'health', href: '/console/health', label: 'Health' },
] as const;

export type SectionId = (typeof SECTIONS)[number]['id'];

export interface PageFrame {
  title: string;
  section: SectionId | 'login';
  /** The session's CSRF token, for forms and the page script; absent on the login page. */
  csrf?: string;
  /** Open approval questions, for the badge in the navigation. */
  waiting?: number;
  /** A one-line message from the previous action. */
  flash?: { kind: 'ok' | 'error'; text: string } | undefined;
  /** Asset URLs with their version (cache busting). */
  assets: { css: string; js: string; icon: string; icon192: string; icon512: string };
  body: Html;
}

/** The page around every view: head (no inline script or style), navigation, flash line, logout. */
export function page(frame: PageFrame): Html {
  const nav = frame.section === 'login'
    ? html``
    : html`<nav class="nav" aria-label="Sections">${SECTIONS.map((section) => html`<a href="${section.href}"${section.id === frame.section ? html` aria-current="page"` : html``}>${section.label}${section.id === 'approvals' ? html`<span class="badge" data-badge="approvals"${frame.waiting ? html`` : html` hidden`}>${frame.waiting ?? 0}</span>` : html``}</a>`)}</nav>
      <form method="post" action="/console/logout" class="logout">${csrfField(frame.csrf)}<button type="submit" class="link">Log out</button></form>`;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="referrer" content="same-origin">
${frame.csrf ? html`<meta name="csrf-token" content="${frame.csrf}">` : html``}
<title>${frame.title} · Familiar</title>
<meta name="theme-color" content="#3b5bdb">
<link rel="icon" href="${frame.assets.icon}" type="image/svg+xml">
<link rel="manifest" href="/console/manifest.webmanifest">
<link rel="apple-touch-icon" href="${frame.assets.icon192}">
<link rel="stylesheet" href="${frame.assets.css}">
<script type="module" src="${frame.assets.js}"></script>
</head>
<body data-section="${frame.section}">
<header class="top"><a class="brand" href="/console/chat"><img src="${frame.assets.icon}" alt="" width="22" height="22">Familiar</a>${nav}</header>
<main id="main">
${frame.flash ? html`<p class="flash ${frame.flash.kind}" role="status">${frame.flash.text}</p>` : html``}
${frame.body}
</main>
</body>
</html>`;
}

export function csrfField(token: string | undefined): Html {
  return token ? html`<input type="hidden" name="_csrf" value="${token}">` : html``;
}

/** A button that posts to `action` (a pause, an approval); `confirm` asks first (the page script). */
export function actionButton(options: { action: string; label: string; csrf: string; fields?: Record<string, string>; confirm?: string; kind?: 'primary' | 'danger' | 'plain' }): Html {
  const fields = Object.entries(options.fields ?? {}).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`);
  return html`<form method="post" action="${options.action}" class="inline"${options.confirm ? html` data-confirm="${options.confirm}"` : html``}>${csrfField(options.csrf)}${fields}<button type="submit" class="${options.kind ?? 'plain'}">${options.label}</button></form>`;
}

export function emptyState(text: string): Html {
  return html`<p class="empty">${text}</p>`;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1048576) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1048576).toFixed(1)} MB`;
}

export function formatDuration(ms: number | undefined): string {
  if (ms === undefined) return '';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

export function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
