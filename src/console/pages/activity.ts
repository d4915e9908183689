import type { AuditFilter } from '../../audit/query.js';
import { formatNumber } from '../../lib/numbers.js';
import { instantOfWallClock, wallClockAt } from '../../lib/zoned.js';
import type { ConsoleApp, RequestContext, Route } from '../app.js';
import { html } from '../html.js';
import { emptyState, formatDuration, truncate } from '../layout.js';

const PAGE = 50;

/**
 * What it did: every tool call (the audit), newest first, filtered by tool, conversation, outcome and time, each
 * with its arguments and output (secrets masked) and the approval decision; and the turns with their token counts.
 */
export function activityRoutes(app: ConsoleApp): Route[] {
  return [
    { method: 'GET', path: /^\/console\/activity$/, handle: async (context) => activityPage(app, context) },
    { method: 'GET', path: /^\/console\/turns$/, handle: async (context) => turnsPage(app, context) },
  ];
}

function activityPage(app: ConsoleApp, context: RequestContext) {
  const query = context.url.searchParams;
  const tool = (query.get('tool') ?? '').trim().slice(0, 100);
  const conversation = (query.get('conversation') ?? '').trim().slice(0, 200);
  const outcome = query.get('outcome') ?? '';
  const from = zoned(query.get('from'), app.deps.config.timezone);
  const to = zoned(query.get('to'), app.deps.config.timezone);
  const before = Number(query.get('before') ?? '');
  const filter: AuditFilter = {
    limit: PAGE,
    ...(tool ? { tool } : {}),
    ...(conversation ? { conversationId: conversation } : {}),
    ...(outcome === 'ok' || outcome === 'failed' || outcome === 'denied' ? { outcome } : {}),
    ...(from !== undefined ? { since: from } : {}),
    ...(to !== undefined ? { until: to } : {}),
    ...(Number.isSafeInteger(before) && before > 0 ? { beforeId: before } : {}),
  };
  const entries = app.deps.records.audit(filter);
  const tools = app.deps.records.auditedTools();
  const next = new URLSearchParams(query);
  next.set('before', String(entries.at(-1)?.id ?? 0));
  const body = html`<h1>Activity</h1>
<nav class="tabs"><a href="/console/activity" aria-current="page">Tool calls</a><a href="/console/turns">Turns</a></nav>
<form method="get" action="/console/activity" class="filters">
  <label>Tool <input name="tool" value="${tool}" list="tools" placeholder="any (or a prefix: mcp:*)"></label>
  <datalist id="tools">${tools.map((name) => html`<option value="${name}">`)}</datalist>
  <label>Conversation <input name="conversation" value="${conversation}" placeholder="any"></label>
  <label>Outcome <select name="outcome">${[['', 'any'], ['ok', 'ok'], ['failed', 'failed'], ['denied', 'denied']].map(([value, label]) => html`<option value="${value}"${value === outcome ? html` selected` : html``}>${label}</option>`)}</select></label>
  <label>From <input type="datetime-local" name="from" value="${query.get('from') ?? ''}"></label>
  <label>To <input type="datetime-local" name="to" value="${query.get('to') ?? ''}"></label>
  <button type="submit" class="primary">Filter</button> <a href="/console/activity">Clear</a>
  <p class="muted">Times are in ${app.deps.config.timezone}.</p>
</form>
${entries.length === 0 ? emptyState('No tool calls match.') : html`<ol class="timeline">${entries.map((entry) => {
    const state = app.deps.records.auditOutcome(entry);
    return html`<li class="call ${state}"><details>
  <summary><time>${app.formatTime(entry.createdAt)}</time> <span class="tool-name">${entry.tool}</span>${entry.person ? html` <span class="muted">for ${entry.person}</span>` : ''} <span class="tool-state">${state}</span> <span class="tool-time">${formatDuration(entry.durationMs)}</span>
    <code class="tool-args">${truncate(app.mask(entry.input), 160)}</code></summary>
  <dl class="facts">
    <dt>Conversation</dt><dd>${entry.conversationId ? html`<a href="/console/activity?conversation=${encodeURIComponent(entry.conversationId)}">${entry.conversationId}</a>` : '—'}</dd>
    <dt>Turn</dt><dd>${entry.turnId ? html`<a href="/console/turns?conversation=${encodeURIComponent(entry.conversationId ?? '')}">${entry.turnId}</a>` : '—'}</dd>
    <dt>Approval</dt><dd>${entry.decision ?? 'not needed'}</dd>
  </dl>
  <h3>Arguments</h3><pre>${pretty(app.mask(entry.input))}</pre>
  <h3>${entry.success ? 'Output' : 'Error'}</h3><pre>${app.redact(entry.success ? (entry.output ?? '') : (entry.error ?? entry.output ?? ''))}</pre>
</details></li>`;
  })}</ol>
  ${entries.length === PAGE ? html`<p><a href="/console/activity?${next.toString()}">Older calls →</a></p>` : html``}`}`;
  return app.render(context, { title: 'Activity', section: 'activity', body });
}

function turnsPage(app: ConsoleApp, context: RequestContext) {
  const query = context.url.searchParams;
  const conversation = (query.get('conversation') ?? '').trim().slice(0, 200);
  const before = Number(query.get('before') ?? '');
  const turns = app.deps.records.turns({
    limit: PAGE,
    ...(conversation ? { conversationId: conversation } : {}),
    ...(Number.isSafeInteger(before) && before > 0 ? { beforeStartedAt: before } : {}),
  });
  const next = new URLSearchParams(query);
  next.set('before', String(turns.at(-1)?.startedAt ?? 0));
  const body = html`<h1>Activity</h1>
<nav class="tabs"><a href="/console/activity">Tool calls</a><a href="/console/turns" aria-current="page">Turns</a></nav>
<form method="get" action="/console/turns" class="filters">
  <label>Conversation <input name="conversation" value="${conversation}" placeholder="any"></label>
  <button type="submit" class="primary">Filter</button> <a href="/console/turns">Clear</a>
</form>
${turns.length === 0 ? emptyState('No turns yet.') : html`<div class="table-wrap"><table class="data">
<thead><tr><th>Started</th><th>Source</th><th>Conversation</th><th>Status</th><th>Model</th><th class="num">LLM calls</th><th class="num">Tool calls</th><th class="num">Prompt</th><th class="num">Completion</th><th class="num">Time</th></tr></thead>
<tbody>${turns.map((turn) => html`<tr class="${turn.status}">
  <td>${app.formatTime(turn.startedAt)}</td><td>${turn.source}</td>
  <td><a href="/console/activity?conversation=${encodeURIComponent(turn.conversationId)}">${truncate(turn.conversationId, 40)}</a></td>
  <td title="${turn.error ? app.redact(turn.error) : ''}">${turn.status}</td><td>${turn.model ?? '—'}</td>
  <td class="num">${turn.llmCalls}</td><td class="num">${turn.toolCalls}</td>
  <td class="num">${formatNumber(turn.promptTokens)}</td><td class="num">${formatNumber(turn.completionTokens)}</td>
  <td class="num">${turn.endedAt !== null ? formatDuration(turn.endedAt - turn.startedAt) : 'running'}</td></tr>`)}</tbody>
</table></div>
${turns.length === PAGE ? html`<p><a href="/console/turns?${next.toString()}">Older turns →</a></p>` : html``}`}`;
  return app.render(context, { title: 'Turns', section: 'activity', body });
}

/** `2026-11-22T08:30` (a datetime-local field) in the person's zone, as an instant. */
export function zoned(value: string | null, timeZone: string): number | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/.exec(value ?? '');
  if (!match) return undefined;
  const [year, month, day, hour, minute] = match.slice(1).map(Number) as [number, number, number, number, number];
  return instantOfWallClock({ year, month, day, hour, minute, second: 0 }, timeZone);
}

/** The zoned `datetime-local` value of an instant. */
export function localInput(instant: number, timeZone: string): string {
  const wall = wallClockAt(instant, timeZone);
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${wall.year}-${pad(wall.month)}-${pad(wall.day)}T${pad(wall.hour)}:${pad(wall.minute)}`;
}

function pretty(json: string): string {
  try {
    return JSON.stringify(JSON.parse(json), null, 2);
  } catch {
    return json;
  }
}
