import { createHash } from 'node:crypto';
import { errorMessage, StaleWriteError } from '../../errors.js';
import { field, type Answer, type ConsoleApp, type RequestContext, type Route } from '../app.js';
import { html, type Html } from '../html.js';
import { actionButton, csrfField, emptyState, formatBytes } from '../layout.js';
import { renderMarkdown } from '../markdown.js';
import type { MemoryChange } from '../../memory/history.js';

const EDITABLE = /\.(md|markdown|txt)$/i;
const MAX_FILE_BYTES = 1024 * 1024;
/** What the editor sends for a file that did not exist when it was opened. */
const NEW_FILE = 'new';

/**
 * Memory: the Markdown files, a plain editor with a preview, each file's history with diffs, revert. Saving is the
 * store's compare-and-swap on what the editor opened: when the file changed meanwhile (a hand edit, the
 * assistant), nothing is written — the page shows both versions and keeps the person's text. Files are reached
 * by their path inside the memory folder only (the store refuses `..`, absolute paths and links leading out).
 * A file that holds a configured secret is shown redacted and cannot be edited here (saving the redacted text
 * would destroy the secret).
 */
export function memoryRoutes(app: ConsoleApp): Route[] {
  return [
    { method: 'GET', path: /^\/console\/memory$/, handle: async (context) => listPage(app, context) },
    { method: 'GET', path: /^\/console\/memory\/file$/, handle: async (context) => editPage(app, context, context.url.searchParams.get('path') ?? '') },
    { method: 'POST', path: /^\/console\/memory\/file$/, maxBody: 2 * MAX_FILE_BYTES + 64 * 1024, handle: async (context) => save(app, context) },
    {
      // The person vouches for a file that holds outside content: it is theirs again, and back in the prompt.
      method: 'POST', path: /^\/console\/memory\/trust$/,
      async handle({ form, session }) {
        const resolved = app.deps.memory.resolve(field(form, 'path'));
        if (!resolved.success) return { type: 'redirect', location: '/console/memory' };
        const cleared = app.deps.labels?.clear('memory', resolved.value.relative) ?? false;
        app.deps.log.info({ component: 'console', path: resolved.value.relative, cleared }, 'console: memory file trusted');
        app.setFlash(session, { kind: 'ok', text: cleared ? `${resolved.value.relative} is yours again: it is back in the assistant's prompt.` : `${resolved.value.relative} holds no outside content.` });
        return { type: 'redirect', location: `/console/memory/file?path=${encodeURIComponent(resolved.value.relative)}` };
      },
    },
    {
      method: 'POST', path: /^\/console\/memory\/preview$/, maxBody: 2 * MAX_FILE_BYTES,
      async handle({ form }) {
        return { type: 'html', body: html`<div class="markdown">${renderMarkdown(app.redact(textOf(form)))}</div>` };
      },
    },
    { method: 'GET', path: /^\/console\/memory\/change\/(\d{1,12})$/, handle: async (context) => changePage(app, context) },
    {
      method: 'POST', path: /^\/console\/memory\/change\/(\d{1,12})\/revert$/,
      async handle({ params, form, session }) {
        const change = app.deps.history.get(Number(params[0]));
        if (!change) return { type: 'redirect', location: '/console/memory' };
        const result = await app.deps.history.revert(change, { force: field(form, 'force') === 'yes' });
        app.setFlash(session, result.success
          ? { kind: 'ok', text: change.previous === null ? `Reverted: ${change.path} did not exist before that change, so it is removed.` : `Reverted ${change.path} to how it was before change #${change.id}.` }
          : { kind: 'error', text: `Not reverted: ${result.error.replace(/familiar memory diff \d+/, 'see the diff below').replace('--force', '"Revert anyway"')}` });
        return { type: 'redirect', location: result.success ? `/console/memory/file?path=${encodeURIComponent(change.path)}` : `/console/memory/change/${change.id}` };
      },
    },
  ];
}

function listPage(app: ConsoleApp, context: RequestContext): Answer {
  const files = app.deps.memory.list();
  const changes = app.deps.history.list({ limit: 15 });
  const body = html`<h1>Memory</h1>
<p class="muted">The assistant's long-term memory: Markdown files in ${app.deps.memory.root}. They are read on every turn, so a change here applies at once.</p>
<form method="get" action="/console/memory/file" class="filters"><label>New file <input name="path" placeholder="notes/ideas.md" required pattern=".+\\.(md|markdown|txt)"></label><button type="submit" class="primary">Create</button></form>
${files.length === 0 ? emptyState('The memory folder is empty.') : html`<ul class="files">${files.map((file) => html`<li><a href="/console/memory/file?path=${encodeURIComponent(file.path)}">${file.path}</a>${app.deps.labels?.get('memory', file.path) ? html` <span class="chip warn" title="kept out of the assistant's prompt until you trust it">outside content</span>` : html``} <small class="muted">${formatBytes(file.size)} · ${app.formatTime(file.mtimeMs)}</small></li>`)}</ul>`}
<h2>Recent changes</h2>
${changeList(app, changes)}`;
  return app.render(context, { title: 'Memory', section: 'memory', body });
}

function changeList(app: ConsoleApp, changes: readonly MemoryChange[]): Html {
  if (changes.length === 0) return emptyState('No changes recorded yet (edits made outside Familiar are not recorded).');
  return html`<ol class="changes">${changes.map((change) => html`<li><a href="/console/memory/change/${change.id}">#${change.id}</a> ${change.path} · ${kindLabel(change)} · ${app.formatTime(change.createdAt)}${change.undoneAt !== null ? html` <span class="chip">reverted</span>` : html``}</li>`)}</ol>`;
}

function kindLabel(change: MemoryChange): string {
  if (change.kind !== 'write') return change.kind === 'undo' ? 'undo' : 'revert';
  if (change.content === null) return 'removed';
  if (change.previous === null) return 'created';
  return change.conversationId ? `by the assistant (${change.conversationId})` : 'by you or a command';
}

interface EditorState {
  path: string;
  content: string;
  expected: string;
  preview?: boolean;
  conflict?: { current: string | null };
  error?: string;
}

function editPage(app: ConsoleApp, context: RequestContext, requested: string, state?: EditorState): Answer {
  const resolved = app.deps.memory.resolve(requested);
  if (!resolved.success || !EDITABLE.test(resolved.value.relative)) {
    return app.render(context, {
      title: 'Memory', section: 'memory', status: 400,
      body: html`<h1>Memory</h1><p class="error">${resolved.success ? 'Only .md, .markdown and .txt files are edited here.' : resolved.error}</p><p><a href="/console/memory">All files</a></p>`,
    });
  }
  const path = resolved.value.relative;
  const current = readOrNull(app, path);
  const content = state?.content ?? current ?? '';
  const secret = app.holdsSecret(current ?? '') && !state;
  const csrf = context.session?.csrf ?? '';
  const history = app.deps.history.list({ path, limit: 30 });
  const body = html`<p><a href="/console/memory">← All files</a></p>
<h1>${path}${current === null ? ' (new)' : ''}</h1>
${state?.error ? html`<p class="flash error" role="alert">${state.error}</p>` : html``}
${outsideNotice(app, path, csrf)}
${state?.conflict ? html`<section class="card conflict"><h2>The file changed while you were editing</h2>
  <p>It was edited by hand or by the assistant after you opened it, so nothing was saved. Your text is in the editor below; the file as it is now is here. Merge what you need, then save again.</p>
  <pre>${app.redact(state.conflict.current ?? '(the file was removed)')}</pre></section>` : html``}
${secret
    ? html`<p class="flash error">This file holds a secret from the configuration (shown as [REDACTED]), so it is not editable here: saving the redacted text would destroy it. Edit it on the machine.</p>
      <pre class="memory-view">${app.redact(content)}</pre>`
    : html`<form method="post" action="/console/memory/file" class="editor" id="editor">${csrfField(csrf)}
  <input type="hidden" name="path" value="${path}">
  <input type="hidden" name="expected" value="${state?.expected ?? (current === null ? NEW_FILE : hash(current))}">
  <div class="editor-tabs" role="tablist"><button type="submit" name="action" value="edit" class="tab" data-tab="edit" aria-selected="${state?.preview ? 'false' : 'true'}">Edit</button><button type="submit" name="action" value="preview" class="tab" data-tab="preview" aria-selected="${state?.preview ? 'true' : 'false'}">Preview</button></div>
  <label for="content" class="visually-hidden">Content</label>
  <textarea id="content" name="content" rows="22" spellcheck="true"${state?.preview ? html` hidden` : html``}>${content}</textarea>
  <div class="preview markdown" id="preview"${state?.preview ? html`` : html` hidden`}>${state?.preview ? renderMarkdown(app.redact(content)) : html``}</div>
  <div class="actions"><button type="submit" name="action" value="save" class="primary">Save</button> <span class="muted">Saved atomically; a change made meanwhile is never overwritten.</span></div>
</form>`}
<h2>History</h2>
${changeList(app, history)}`;
  return app.render(context, { title: path, section: 'memory', body });
}

async function save(app: ConsoleApp, context: RequestContext): Promise<Answer> {
  const form = context.form;
  const requested = field(form, 'path');
  const expected = field(form, 'expected');
  const action = field(form, 'action') || 'save';
  const resolved = app.deps.memory.resolve(requested);
  if (!resolved.success || !EDITABLE.test(resolved.value.relative)) return editPage(app, context, requested);
  const path = resolved.value.relative;
  const current = readOrNull(app, path);
  let content = textOf(form);
  // A form sends its lines with CRLF: a file written with LF keeps LF.
  if (!(current ?? '').includes('\r\n')) content = content.replace(/\r\n/g, '\n');
  const state: EditorState = { path, content, expected };
  if (action === 'preview' || action === 'edit') return editPage(app, context, path, { ...state, preview: action === 'preview' });
  if (Buffer.byteLength(content) > MAX_FILE_BYTES) return editPage(app, context, path, { ...state, error: `Not saved: the text is larger than ${formatBytes(MAX_FILE_BYTES)}.` });
  if (app.holdsSecret(current ?? '')) return editPage(app, context, path);
  const opened = expected === NEW_FILE ? null : expected;
  const unchanged = opened === null ? current === null : current !== null && hash(current) === opened;
  if (!unchanged) return editPage(app, context, path, { ...state, conflict: { current }, expected: current === null ? NEW_FILE : hash(current) });
  try {
    // Compare-and-swap on the content just checked: a hand edit landing in between makes the store refuse.
    await app.deps.memory.write(path, content, { expected: current });
  } catch (error) {
    if (error instanceof StaleWriteError) {
      const now = readOrNull(app, path);
      return editPage(app, context, path, { ...state, conflict: { current: now }, expected: now === null ? NEW_FILE : hash(now) });
    }
    return editPage(app, context, path, { ...state, error: `Not saved: ${errorMessage(error)}` });
  }
  app.deps.log.info({ component: 'console', path }, 'console: memory file saved');
  app.setFlash(context.session, { kind: 'ok', text: `Saved ${path}.` });
  return { type: 'redirect', location: `/console/memory/file?path=${encodeURIComponent(path)}` };
}

function changePage(app: ConsoleApp, context: RequestContext): Answer {
  const change = app.deps.history.get(Number(context.params[0]));
  if (!change) return app.render(context, { title: 'Memory', section: 'memory', status: 404, body: html`<h1>No such change</h1><p><a href="/console/memory">Memory</a></p>` });
  const csrf = context.session?.csrf ?? '';
  const diff = app.deps.history.diff(change).split('\n');
  const current = readOrNull(app, change.path);
  const changedSince = current !== change.content;
  const body = html`<p><a href="/console/memory/file?path=${encodeURIComponent(change.path)}">← ${change.path}</a></p>
<h1>Change #${change.id} to ${change.path}</h1>
<p class="muted">${kindLabel(change)} · ${app.formatTime(change.createdAt)}${change.undoneAt !== null ? ` · reverted ${app.formatTime(change.undoneAt)}` : ''}</p>
<pre class="diff">${diff.map((line) => html`<span class="${line.startsWith('+') ? 'add' : line.startsWith('-') ? 'del' : 'ctx'}">${app.redact(line)}</span>\n`)}</pre>
${change.undoneAt === null ? html`<div class="actions">
  ${changedSince
      ? html`<p class="muted">The file changed after this change (by hand or a later write): reverting puts it back to before this change and loses those later edits.</p>${actionButton({ action: `/console/memory/change/${change.id}/revert`, label: 'Revert anyway', csrf, fields: { force: 'yes' }, kind: 'danger', confirm: 'Revert and lose the later edits?' })}`
      : actionButton({ action: `/console/memory/change/${change.id}/revert`, label: 'Revert this change', csrf, kind: 'danger', confirm: `Put ${change.path} back as it was before this change?` })}
</div>` : html``}`;
  return app.render(context, { title: `Change #${change.id}`, section: 'memory', body });
}

/**
 * A file written while outside content was in play (a web page, a mail) is kept out of the assistant's prompt and
 * read as data. Said here with its sources, and the person may vouch for it once they have read it.
 */
function outsideNotice(app: ConsoleApp, path: string, csrf: string): Html {
  const sources = app.deps.labels?.get('memory', path);
  if (!sources) return html``;
  return html`<section class="card"><p><span class="chip warn">outside content</span> Written while the assistant was reading ${sources.join(', ')}. It is kept out of the assistant's prompt and read as data, not instructions. Saving your own edit does not change that; trust it once you have checked it.</p>
${actionButton({ action: '/console/memory/trust', label: 'Trust this file', csrf, fields: { path }, confirm: `Put ${path} back in the assistant's prompt?` })}</section>`;
}

function readOrNull(app: ConsoleApp, path: string): string | null {
  try {
    return app.deps.memory.read(path);
  } catch {
    return null;
  }
}

function textOf(form: FormData | undefined): string {
  const value = form?.get('content');
  return typeof value === 'string' ? value : '';
}

function hash(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
