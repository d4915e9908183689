import type { AuditEntry } from '../../audit/query.js';
import type { ChatMessage } from '../../llm/types.js';
import { field, type ConsoleApp, type RequestContext, type Route } from '../app.js';
import { newMessageId, type LiveTurn, type Upload } from '../chat.js';
import { TOPICS, type Topic } from '../events.js';
import { html, type Html } from '../html.js';
import type { ConsoleItem } from '../items.js';
import { csrfField, formatBytes, formatDuration, truncate } from '../layout.js';
import { renderMarkdown } from '../markdown.js';
import { CONSOLE_CHANNEL, CONSOLE_CHAT, type StoredMessage } from '../types.js';

/** Files and text of one message: the router's own per-file limit is 20 MB. */
const MAX_UPLOAD_BYTES = 26 * 1024 * 1024;

/** The chat: conversations, the transcript with tool calls and files, the live turn, and the message form. */
export function chatRoutes(app: ConsoleApp): Route[] {
  return [
    { method: 'GET', path: /^\/console\/chat$/, handle: async (context) => chatPage(app, context) },
    {
      method: 'POST', path: /^\/console\/chat\/send$/, maxBody: MAX_UPLOAD_BYTES,
      async handle({ form, request, session }) {
        const uploads: Upload[] = [];
        for (const entry of form?.getAll('files') ?? []) {
          if (typeof entry === 'string' || entry.size === 0) continue;
          uploads.push({ name: entry.name || 'file', mimeType: entry.type, data: Buffer.from(await entry.arrayBuffer()) });
        }
        const messageId = /^[A-Za-z0-9_-]{8,64}$/.test(field(form, 'messageId')) ? field(form, 'messageId') : newMessageId();
        const submitted = await app.chat.submit({ text: field(form, 'text'), uploads, messageId });
        if (request.headers.accept?.includes('application/json')) {
          return submitted.success ? { type: 'json', status: 202, body: { accepted: messageId } } : { type: 'json', status: 400, body: { error: submitted.error } };
        }
        if (!submitted.success) app.setFlash(session, { kind: 'error', text: submitted.error });
        return { type: 'redirect', location: '/console/chat' };
      },
    },
    {
      // A button under a delivered reminder, pressed in the console: the owner's press, in the console's one chat.
      method: 'POST', path: /^\/console\/chat\/button$/,
      async handle({ form, request, session }) {
        const data = field(form, 'data');
        const answer = app.deps.pressButton && data !== '' ? await app.deps.pressButton({ channel: CONSOLE_CHANNEL, chatId: CONSOLE_CHAT, userId: CONSOLE_CHAT, data, allowed: true }) : undefined;
        if (request.headers.accept?.includes('application/json')) return answer ? { type: 'json', body: answer } : { type: 'json', status: 404, body: { error: 'no such button' } };
        app.setFlash(session, answer ? { kind: 'ok', text: answer.outcome ?? answer.notice } : { kind: 'error', text: 'No such button.' });
        return { type: 'redirect', location: '/console/chat' };
      },
    },
    {
      method: 'GET', path: /^\/console\/events$/,
      async handle({ url, response }) {
        const asked = (url.searchParams.get('topics') ?? '').split(',');
        const topics = new Set<Topic>(TOPICS.filter((topic) => asked.includes(topic)));
        if (!app.events.open(response, topics)) return { type: 'json', status: 503, body: { error: 'too many console pages are open; close some' } };
        return { type: 'done' };
      },
    },
    {
      // An image a tool made (image_generate), shown in the chat: raster types only (an SVG could carry script).
      method: 'GET', path: /^\/console\/artifacts\/(\d{1,12})\/view$/,
      async handle({ params }) {
        const found = app.items.artifact(Number(params[0]));
        const mimeType = found?.item.mimeType;
        if (!found || mimeType === undefined || !INLINE_IMAGES.has(mimeType)) return { type: 'json', status: 404, body: { error: 'no such image' } };
        return { type: 'file', contentType: mimeType, body: found.content, disposition: 'inline' };
      },
    },
    {
      method: 'GET', path: /^\/console\/artifacts\/(\d{1,12})$/,
      async handle({ params }) {
        const found = app.items.artifact(Number(params[0]));
        if (!found) return { type: 'json', status: 404, body: { error: 'no such file' } };
        const name = found.item.name ?? 'file';
        // Always a download (never shown as a page of the console), whatever type the tool gave it.
        return {
          type: 'file', contentType: 'application/octet-stream', body: found.content,
          disposition: `attachment; filename="${name.replace(/[^A-Za-z0-9._-]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(name)}`,
        };
      },
    },
  ];
}


/** Image types the chat shows inline (raster only). */
const INLINE_IMAGES: ReadonlySet<string> = new Set(['image/png', 'image/jpeg', 'image/webp', 'image/gif']);
function chatPage(app: ConsoleApp, context: RequestContext): ReturnType<ConsoleApp['render']> {
  const active = app.chat.activeConversation();
  const conversations = app.deps.conversations.listOf(CONSOLE_CHANNEL, CONSOLE_CHAT, 30);
  const asked = context.url.searchParams.get('c');
  // Only the console's own conversations are shown here.
  const shown = asked && conversations.some((entry) => entry.id === asked) ? asked : active;
  const readOnly = shown !== active;
  const csrf = context.session?.csrf ?? '';
  const transcript = app.deps.conversations.transcript(shown);
  const audit = new Map(app.deps.records.audit({ conversationId: shown, limit: 2000 }).map((entry) => [entry.callId, entry]));
  const live = readOnly ? [] : app.chat.current().filter((turn) => turn.conversationId === shown);
  const body = html`<div class="chat">
  <aside class="conversations" aria-label="Conversations">
    <h2>Conversations</h2>
    <form method="post" action="/console/chat/send" class="new-conversation">${csrfField(csrf)}<input type="hidden" name="text" value="/reset"><input type="hidden" name="messageId" value="${newMessageId()}"><button type="submit" class="plain">New conversation</button></form>
    <ul>${conversations.map((entry) => html`<li><a href="/console/chat${entry.id === active ? '' : `?c=${encodeURIComponent(entry.id)}`}"${entry.id === shown ? html` aria-current="page"` : html``}>
      <span>${truncate(app.redact(entry.preview ?? (entry.id === active ? 'New conversation' : '(empty)')), 60)}</span>
      <small>${app.formatTime(entry.createdAt)}${entry.archivedAt === undefined ? ' · current' : ''}</small></a></li>`)}</ul>
  </aside>
  <section class="conversation" aria-label="Conversation">
    <ol class="transcript" id="transcript" data-conversation="${shown}" aria-live="polite">
      ${renderTranscript(app, transcript, app.items.of(shown), audit)}
      ${live.map((turn) => renderLive(app, turn, transcript))}
    </ol>
    <div data-live="approvals" data-src="/console/approvals?fragment=1&channel=console" class="inline-approvals"></div>
    ${readOnly
      ? html`<p class="muted">This conversation is archived. <a href="/console/chat">Back to the current one</a>.</p>`
      : html`<form method="post" action="/console/chat/send" enctype="multipart/form-data" class="composer" id="composer">
      ${csrfField(csrf)}<input type="hidden" name="messageId" value="${newMessageId()}">
      <label for="message" class="visually-hidden">Message</label>
      <textarea id="message" name="text" rows="3" placeholder="Write to ${app.deps.config.agent.name}… (Enter sends, Shift+Enter for a new line; /help lists the commands)"></textarea>
      <div class="composer-actions">
        <label class="file-pick">Attach files<input type="file" name="files" multiple></label>
        <span class="muted" id="file-names"></span>
        <button type="submit" class="primary" id="send">Send</button>
      </div>
    </form>
    <form method="post" action="/console/chat/send" class="stop-form" id="stop-form">${csrfField(csrf)}<input type="hidden" name="text" value="/stop"><input type="hidden" name="messageId" value="${newMessageId()}"><button type="submit" class="plain" id="stop">Stop the running turn</button></form>`}
  </section>
</div>`;
  return app.render(context, { title: 'Chat', section: 'chat', body });
}

/** The stored messages and the console's own items (files, deliveries, commands), in the order they happened. */
function renderTranscript(app: ConsoleApp, messages: readonly StoredMessage[], items: readonly ConsoleItem[], audit: ReadonlyMap<string, AuditEntry>): Html[] {
  const results = new Map<string, string>();
  for (const { message } of messages) if (message.role === 'tool') results.set(message.tool_call_id, typeof message.content === 'string' ? message.content : '');
  const entries: Array<{ at: number; order: number; view: Html }> = [];
  messages.forEach((stored, index) => {
    const view = renderMessage(app, stored.message, results, audit);
    if (view) entries.push({ at: stored.createdAt, order: index, view });
  });
  items.forEach((item, index) => entries.push({ at: item.createdAt, order: messages.length + index, view: renderItem(app, item) }));
  entries.sort((a, b) => a.at - b.at || a.order - b.order);
  if (entries.length === 0) return [html`<li class="empty">Nothing here yet. Write below; /help lists what I can do.</li>`];
  return entries.map((entry) => entry.view);
}

function renderMessage(app: ConsoleApp, message: ChatMessage, results: ReadonlyMap<string, string>, audit: ReadonlyMap<string, AuditEntry>): Html | undefined {
  if (message.role === 'user') {
    const text = typeof message.content === 'string' ? message.content : message.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
    return html`<li class="message user"><div class="bubble">${app.redact(text)}</div></li>`;
  }
  if (message.role !== 'assistant') return undefined;
  const text = typeof message.content === 'string' ? message.content : '';
  const calls = (message.tool_calls ?? []).flatMap((call) => (call.type === 'function' ? [call] : []));
  if (calls.length === 0) return html`<li class="message assistant"><div class="bubble markdown">${renderMarkdown(app.redact(text))}</div></li>`;
  return html`${text.trim() ? html`<li class="message assistant step"><div class="bubble markdown">${renderMarkdown(app.redact(text))}</div></li>` : html``}
    ${calls.map((call) => {
      const entry = audit.get(call.id);
      const result = results.get(call.id) ?? '';
      const state = entry ? app.deps.records.auditOutcome(entry) : result.startsWith('ERROR:') ? 'failed' : 'ok';
      return toolCard({ tool: call.function.name, arguments: truncate(app.mask(call.function.arguments), 300), state, durationMs: entry?.durationMs, output: truncate(app.redact(result), 2000), decision: entry?.decision ?? undefined });
    })}`;
}

export function toolCard(tool: { callId?: string; tool: string; arguments: string; state: string; durationMs?: number | undefined; output?: string | undefined; decision?: string | undefined }): Html {
  return html`<li class="tool ${tool.state}"${tool.callId ? html` data-call="${tool.callId}"` : html``}>
  <details><summary><span class="tool-name">${tool.tool}</span> <code class="tool-args">${tool.arguments}</code> <span class="tool-state">${stateLabel(tool.state)}</span> <span class="tool-time">${formatDuration(tool.durationMs)}</span></summary>
  ${tool.decision ? html`<p class="muted">${tool.decision}</p>` : html``}
  <pre class="tool-output">${tool.output ?? ''}</pre></details></li>`;
}

function stateLabel(state: string): string {
  return ({ running: 'running…', ok: 'done', failed: 'failed', denied: 'denied' } as Record<string, string>)[state] ?? state;
}

function renderItem(app: ConsoleApp, item: ConsoleItem): Html {
  switch (item.kind) {
    case 'artifact':
      return html`<li class="artifact">${item.mimeType !== undefined && INLINE_IMAGES.has(item.mimeType) ? html`<img class="artifact-image" src="/console/artifacts/${item.id}/view" alt="${item.name ?? 'image'}"><br>` : html``}<a href="/console/artifacts/${item.id}" download>📎 ${item.name ?? 'file'}</a> <small class="muted">${formatBytes(item.size)}</small></li>`;
    case 'delivery':
      return html`<li class="message assistant delivery"><div class="bubble markdown"><p class="muted">Delivered by a job or skill · ${app.formatTime(item.createdAt)}</p>${renderMarkdown(app.redact(item.text ?? ''))}</div></li>`;
    case 'command':
      return html`<li class="message user command"><div class="bubble">${app.redact(item.name ?? '')}</div></li><li class="message assistant command"><div class="bubble markdown">${renderMarkdown(app.redact(item.text ?? ''))}</div></li>`;
  }
}

/** A turn still running when the page was opened: its question (if not stored yet), running tools, streamed text. */
function renderLive(app: ConsoleApp, turn: LiveTurn, transcript: readonly StoredMessage[]): Html {
  const lastUser = [...transcript].reverse().find((stored) => stored.message.role === 'user')?.message;
  const stored = lastUser && typeof lastUser.content === 'string' && lastUser.content.startsWith(turn.question);
  return html`${stored ? html`` : html`<li class="message user"><div class="bubble">${turn.question}</div></li>`}
  ${turn.tools.filter((tool) => tool.state === 'running').map((tool) => toolCard(tool))}
  <li class="message assistant streaming" data-live-turn="${turn.messageId}"><div class="bubble">${app.redact(turn.text)}</div></li>`;
}

